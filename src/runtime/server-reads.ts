// What the runtime reads from the server besides the stream: the lists whole, one changed object, and
// the variables' values of its environment. A refused key ends the runtime (KeyRefusedError), and so
// does an environment the workspace does not have (EnvironmentNotFoundError); any other failure is
// one more reason to retry.
import type { RulekeeperClient, Schemas } from '../client/index.js';
import { DEFAULT_ENVIRONMENT } from '../model/environment-names.js';

export type RuntimeRule = Schemas['Rule'];
/** A group as `GET /v1/groups/{id}` answers it (the list's rule counts are not part of the copy). */
export type RuntimeGroup = Schemas['Group'];

/** The server refused the key (revoked, expired, never valid, or without the scope to read). */
export class KeyRefusedError extends Error {
  readonly code = 'KEY_REFUSED';
  constructor(readonly status: number) {
    super(`the server refused the key (${status}): it was revoked, expired or cannot read`);
  }
}

/** The environment the runtime was told to act in is not one of the workspace's (or was deleted). */
export class EnvironmentNotFoundError extends Error {
  readonly code = 'ENVIRONMENT_NOT_FOUND';
  readonly status = 404;
  constructor(readonly environment: string) {
    super(`the workspace has no environment "${environment}"`);
  }
}

/** The variables' values of one environment, secrets included, as the runtime acts with them. */
export interface EnvironmentValues {
  environment: string;
  values: ReadonlyMap<string, string>;
}

interface Answer<T> {
  data?: T;
  response: Response;
}

/** The answer's data; undefined for 404 (the object is gone). */
function answered<T>(what: string, answer: Answer<T>): T | undefined {
  const { status } = answer.response;
  if (status === 401 || status === 403) throw new KeyRefusedError(status);
  if (status === 404) return undefined;
  if (answer.data === undefined) throw new Error(`${what} answered ${status}`);
  return answer.data;
}

/** Reads past this many pages of one list whose revision moved between them are given up on. */
const CONSISTENT_TRIES = 10;

interface Page<T> {
  data: T[];
  nextOffset: number | null;
}

/**
 * Every page of a list, all answered at one revision: offset paging while the list changes can skip an
 * item (a deletion on page 1 moves the next page's first item onto it), and following the stream from
 * there would never bring it back. A list that moved is read again.
 */
async function wholeList<T>(
  read: (offset: number) => Promise<Answer<Page<T>>>,
  what: string,
): Promise<{ items: T[]; revision: number }> {
  for (let tries = 1; ; tries++) {
    const items: T[] = [];
    const revisions = new Set<number>();
    for (let offset: number | null = 0; offset !== null; ) {
      const answer = await read(offset);
      const page = answered(what, answer);
      if (!page || !Array.isArray(page.data)) throw new Error(`${what} answered no list`);
      revisions.add(Number(answer.response.headers.get('rulekeeper-revision')));
      items.push(...page.data);
      offset = page.nextOffset;
    }
    // The lowest revision seen: following the stream from it may replay a change, never miss one.
    const revision = Math.min(...revisions);
    if (!Number.isSafeInteger(revision)) throw new Error(`${what} answered no Rulekeeper-Revision`);
    if (revisions.size === 1 || tries >= CONSISTENT_TRIES) return { items, revision };
  }
}

function withoutCounts(group: Schemas['GroupListItem']): RuntimeGroup {
  const { ruleCount: _rules, activeRuleCount: _active, ...rest } = group;
  return rest;
}

export function serverReads(client: RulekeeperClient, signal: AbortSignal) {
  const query = (offset: number) => ({ pageSize: '1000', offset: String(offset) });
  return {
    /** Both lists, and the revision from which following the stream keeps them exact. */
    async lists(): Promise<{ rules: RuntimeRule[]; groups: RuntimeGroup[]; revision: number }> {
      const groups = await wholeList(
        (offset) => client.GET('/v1/groups', { params: { query: query(offset) }, signal }),
        'GET /v1/groups',
      );
      const rules = await wholeList(
        (offset) => client.GET('/v1/rules', { params: { query: query(offset) }, signal }),
        'GET /v1/rules',
      );
      return {
        rules: rules.items,
        groups: groups.items.map(withoutCounts),
        revision: Math.min(rules.revision, groups.revision),
      };
    },

    /** The rule as it is now, or undefined once deleted. */
    async rule(ruleId: string): Promise<RuntimeRule | undefined> {
      const answer = await client.GET('/v1/rules/{ruleId}', { params: { path: { ruleId } }, signal });
      return answered(`GET /v1/rules/${ruleId}`, answer)?.data;
    },

    async group(id: string): Promise<RuntimeGroup | undefined> {
      const answer = await client.GET('/v1/groups/{id}', { params: { path: { id } }, signal });
      return answered(`GET /v1/groups/${id}`, answer)?.data;
    },

    /**
     * The environment the key is bound to (`default` when none); undefined from a server that has no
     * environments (older than them: its whoami names none), whose rules then act without values.
     */
    async keyEnvironment(): Promise<string | undefined> {
      const answer = await client.GET('/v1/whoami', { signal });
      const key = answered('GET /v1/whoami', answer)?.data.key as
        | { environment?: unknown }
        | null
        | undefined;
      if (!key || !('environment' in key)) return undefined;
      if (key.environment === null) return DEFAULT_ENVIRONMENT;
      if (typeof key.environment !== 'string') throw new Error('GET /v1/whoami answered a bad environment');
      return key.environment;
    },

    /** The values of `environment`'s variables (EnvironmentNotFoundError when it is none of the workspace's). */
    async values(environment: string): Promise<EnvironmentValues> {
      const what = `GET /v1/environments/${environment}/values`;
      const answer = await client.GET('/v1/environments/{name}/values', {
        params: { path: { name: environment } },
        signal,
      });
      const found = answered(what, answer);
      if (!found) throw new EnvironmentNotFoundError(environment);
      const values = new Map<string, string>();
      const given: unknown = found.data?.values;
      if (typeof given !== 'object' || given === null) throw new Error(`${what} answered no values`);
      for (const [name, value] of Object.entries(given)) {
        if (typeof value !== 'string') throw new Error(`${what} answered a value that is not text`);
        values.set(name, value);
      }
      return { environment, values };
    },

    /** The change stream's answer, resuming after `revision` (else from now; 401/403: KeyRefusedError). */
    async stream(revision: number): Promise<ReadableStream<Uint8Array>> {
      const { response } = await client.GET('/v1/changes/stream', {
        params: { header: revision < 0 ? {} : { 'Last-Event-ID': String(revision) } },
        parseAs: 'stream',
        signal,
      });
      if (response.status === 401 || response.status === 403) throw new KeyRefusedError(response.status);
      if (!response.ok || !response.body) {
        await response.body?.cancel().catch(() => {});
        throw new Error(`the change stream answered ${response.status}`);
      }
      return response.body;
    },
  };
}

export type ServerReads = ReturnType<typeof serverReads>;
