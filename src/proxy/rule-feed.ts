// The proxy's copy of a workspace's rules: read from a Rulekeeper server, kept current by following its
// change stream, compiled by the one engine. While the server is away the last rules stay in force.
import { eventChunks } from '../client/events.js';
import { createClient } from '../client/index.js';
import { compileRuleSet, type EngineRule, type RuleSet } from '../engine/index.js';

interface StoredRule extends Omit<EngineRule, 'groupStatus'> {
  groupId: string;
  creationDate: number;
}

interface StoredGroup {
  id: string;
  status: string;
}

export interface RuleFeedOptions {
  server: string;
  key: string;
  log: (message: string) => void;
  /** Backoff after a failure: from `minRetryMs`, doubling to `maxRetryMs`. */
  minRetryMs?: number;
  maxRetryMs?: number;
}

export interface RuleFeed {
  /** The rule set in force now. */
  current(): RuleSet;
  /** How many rules are loaded, and the revision they are of (-1 before the first load). */
  status(): { rules: number; revision: number; connected: boolean };
  /** Settles after the first attempt to load the rules, whether it succeeded or not. */
  firstAttempt: Promise<void>;
  /** Settles when the feed has applied `revision` or a later one. */
  reached(revision: number): Promise<void>;
  stop(): void;
}

export function createRuleFeed(options: RuleFeedOptions): RuleFeed {
  const client = createClient({ baseUrl: options.server, key: options.key });
  const stopping = new AbortController();
  let rules = new Map<string, StoredRule>();
  let groups = new Map<string, StoredGroup>();
  let ruleSet = compileRuleSet([]);
  let revision = -1;
  let connected = false;
  const waiters: { revision: number; resolve: () => void }[] = [];

  /** A refused key stops the feed's attempts with a message that says so; any other failure is retried. */
  function answered<T>(what: string, answer: { data?: T; response: Response }): T | undefined {
    const { status } = answer.response;
    if (status === 401 || status === 403) throw new Error(`the server refused the key (${status})`);
    if (status === 404) return undefined;
    if (answer.data === undefined) throw new Error(`GET /v1/${what} answered ${status}`);
    return answer.data;
  }

  async function all<T>(resource: 'rules' | 'groups'): Promise<{ items: T[]; revision: number }> {
    const items: T[] = [];
    let first: number | undefined;
    for (let offset: number | null = 0; offset !== null; ) {
      const query = { pageSize: '1000', offset: String(offset) };
      const answer = await client.GET(`/v1/${resource}`, { params: { query }, signal: stopping.signal });
      const page = answered(resource, answer) as { data: T[]; nextOffset: number | null } | undefined;
      if (!page) throw new Error(`GET /v1/${resource} answered 404`);
      // The revision is read before the list is built: following from it may replay, never miss.
      first ??= Number(answer.response.headers.get('rulekeeper-revision'));
      items.push(...page.data);
      offset = page.nextOffset;
    }
    return { items, revision: first ?? 0 };
  }

  /** The rules in list order (creationDate, then id), each with its group's status, compiled. */
  function compile(): void {
    const list = [...rules.values()].sort((a, b) =>
      a.creationDate === b.creationDate ? (a.id < b.id ? -1 : 1) : a.creationDate - b.creationDate,
    );
    ruleSet = compileRuleSet(
      list.map((rule): EngineRule => {
        const group = rule.groupId ? groups.get(rule.groupId) : undefined;
        return group ? { ...rule, groupStatus: group.status } : rule;
      }),
    );
  }

  function reach(next: number): void {
    revision = Math.max(revision, next);
    for (const waiter of waiters.filter((w) => w.revision <= revision)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  async function loadAll(): Promise<number> {
    const groupList = await all<StoredGroup>('groups');
    const ruleList = await all<StoredRule>('rules');
    groups = new Map(groupList.items.map((g) => [g.id, g]));
    rules = new Map(ruleList.items.map((r) => [r.id, r]));
    compile();
    return Math.min(groupList.revision, ruleList.revision);
  }

  /** The current content of each changed object (gone when the server no longer has it). */
  async function apply(changes: { objectType: string; id: string }[]): Promise<void> {
    for (const { objectType, id } of changes) {
      const signal = stopping.signal;
      if (objectType === 'rule') {
        const answer = await client.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: id } }, signal });
        const found = answered(`rules/${id}`, answer)?.data as StoredRule | undefined;
        if (found) rules.set(id, found);
        else rules.delete(id);
      } else {
        const answer = await client.GET('/v1/groups/{id}', { params: { path: { id } }, signal });
        const found = answered(`groups/${id}`, answer)?.data;
        if (found) groups.set(id, found);
        else groups.delete(id);
      }
    }
    compile();
  }

  /** Follows the stream from `after` until it ends; answers whether the server asked for a full reload. */
  async function follow(after: number): Promise<'reset' | 'ended'> {
    const { response } = await client.GET('/v1/changes/stream', {
      params: { header: { 'Last-Event-ID': String(after) } },
      parseAs: 'stream',
      signal: stopping.signal,
    });
    if (!response.ok || !response.body) throw new Error(`the change stream answered ${response.status}`);
    let pending: { objectType: string; id: string }[] = [];
    for await (const events of eventChunks(response.body)) {
      for (const event of events) {
        if (event.event === 'reset') return 'reset';
        // A revision too large to list (an import): the lists are read again, and the stream goes on.
        if (event.event === 'bulk') {
          pending = [];
          // Read after the bulk revision was committed: the lists hold it, and the revision says so.
          reach(await loadAll());
          continue;
        }
        if (event.event !== 'change') continue;
        pending.push(JSON.parse(event.data) as { objectType: string; id: string });
        // `id:` marks a revision's last event: its changes are applied together.
        if (event.id !== undefined) {
          await apply(pending);
          pending = [];
          reach(Number(event.id));
        }
      }
    }
    return 'ended';
  }

  async function run(markFirst: () => void): Promise<void> {
    let delay = options.minRetryMs ?? 250;
    let lost = false;
    while (!stopping.signal.aborted) {
      try {
        // The lists as they are now: a server restored from an older backup may be at a lower revision.
        revision = await loadAll();
        connected = true;
        reach(revision);
        if (lost) options.log(`connected to ${options.server} again: ${rules.size} rules`);
        else options.log(`following ${options.server}: ${rules.size} rules`);
        lost = false;
        delay = options.minRetryMs ?? 250;
        markFirst();
        // A stream that ends (a server restarting) is followed again from a fresh read of the lists.
        await follow(revision);
      } catch (error) {
        if (stopping.signal.aborted) return;
        connected = false;
        if (!lost) {
          const kept = revision < 0 ? 'no rules yet' : `keeping the ${rules.size} rules it had`;
          options.log(`cannot reach ${options.server} (${(error as Error).message}): ${kept}; retrying`);
        }
        lost = true;
        markFirst();
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, options.maxRetryMs ?? 10_000);
      }
    }
  }

  let markFirst = () => {};
  const firstAttempt = new Promise<void>((resolve) => {
    markFirst = resolve;
  });
  void run(markFirst);

  return {
    current: () => ruleSet,
    status: () => ({ rules: rules.size, revision, connected }),
    firstAttempt,
    reached: (wanted) =>
      wanted <= revision
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ revision: wanted, resolve })),
    stop: () => stopping.abort(),
  };
}
