// A workspace's rules and groups, kept exactly as the server has them: the lists read once, then the
// change stream followed from their revision, resuming after the last revision applied whenever the
// connection is lost (no change missed, none read twice), reading the lists again on `reset` and
// `bulk`, waiting with backoff while the server is away, and ending on a refused key. With a key, the
// values of one environment's variables are kept beside them (the rules' `{{NAME}}` act with them),
// read with the lists and again after each change of a variable or an environment. This is the
// codebase's one reader of the change stream: the proxy, the console and the browser extension all
// follow a workspace through it. It uses fetch streams only, so it runs in Node and in a browser
// service worker alike.
import {
  createClient,
  EventTooLargeError,
  eventChunks,
  MAX_EVENT_CHARS,
  type SessionCredentials,
  type StreamEvent,
} from '../client/index.js';
import { ENVIRONMENT_NAME_PATTERN } from '../model/environment-names.js';
import { type Backoff, backoffDelay, pause } from './backoff.js';
import { boundedFetch, MAX_ANSWER_BYTES } from './bounded-fetch.js';
import {
  EnvironmentNotFoundError,
  KeyRefusedError,
  type RuntimeGroup,
  type RuntimeRule,
  type ServerReads,
  serverReads,
} from './server-reads.js';

export type FollowOptions = FollowSettings &
  (
    | {
        /** An API key of the workspace; a `read` key is enough. */
        key: string;
        session?: never;
      }
    /** A person's session, in the console (the browser sends its cookie). */
    | { key?: never; session: SessionCredentials }
  );

export interface FollowSettings {
  /** The service, e.g. `http://127.0.0.1:8080`. */
  server: string;
  /**
   * The environment whose variables' values the rules act with (`{{API}}` in a destination): default,
   * the one the key is bound to, else `default`. One the workspace does not have stops the runtime
   * (an `error` event, `ready` rejects). Read with a key only; a session keeps no values.
   */
  environment?: string;
  /** Another fetch (a test's, a proxy-aware one); default the global fetch. */
  fetch?: typeof fetch;
  /** The wait after a failure (default 250 ms), doubling with each failure up to `maxRetryMs` (30 s). */
  minRetryMs?: number;
  maxRetryMs?: number;
  /**
   * How long `ready` waits for the first copy (default 10 s): past it, `ready` rejects with the
   * server's address and what was tried (a request sent and never answered, or the last failure),
   * instead of waiting for ever on a server that accepts connections and never answers. The runtime
   * goes on trying meanwhile; `close()` it to give up.
   */
  readyTimeoutMs?: number;
  /** The longest event the stream may send (default 1 MiB), and the largest JSON answer (64 MiB). */
  maxEventChars?: number;
  maxAnswerBytes?: number;
  /**
   * false: only say what changed, from now on, without reading the lists or any object (`rules()` and
   * `groups()` stay empty): for a client that reads what it shows itself, as the console does.
   */
  keepCopy?: boolean;
}

/**
 * `connecting` until the first copy is made, `live` while the stream is followed, `reconnecting`
 * while the server is away (the copy stays as it was), `stopped` after close() or a refused key.
 */
export type RuntimeState = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface RuntimeStatus {
  state: RuntimeState;
  /** The revision the copy is of (-1 before the first copy). */
  revision: number;
  /** The environment whose values the copy holds, once known (absent from a server without environments). */
  environment?: string;
  rules: number;
  groups: number;
  /** Why the last attempt failed, while connecting or reconnecting. */
  problem?: string;
}

/** What one step of following changed: `reloaded` when the lists were read whole (start, reset, bulk). */
export interface RuntimeChange {
  revision: number;
  reloaded: boolean;
  /**
   * The objects that changed (when not reloaded): created, updated or deleted. A variable or an
   * environment (its name as id) means the values were read again.
   */
  changed: { objectType: 'rule' | 'group' | 'variable' | 'environment'; id: string }[];
}

export interface RuntimeEvents {
  /** The copy changed: it is of `change.revision` now. */
  change: (change: RuntimeChange) => void;
  /** The state changed, or an attempt failed (`problem`). */
  status: (status: RuntimeStatus) => void;
  /**
   * The server refused the key, or the workspace has no such environment (any more): the runtime
   * stopped and will not retry.
   */
  error: (error: KeyRefusedError | EnvironmentNotFoundError) => void;
}

export interface WorkspaceCopy {
  /**
   * Settles once the first copy is made and its changes followed (state `live`); rejects if the
   * runtime stops before (a refused key, close).
   */
  ready: Promise<void>;
  status(): RuntimeStatus;
  /** The rules in list order (creation date, then id), inactive ones too. */
  rules(): readonly RuntimeRule[];
  groups(): readonly RuntimeGroup[];
  /**
   * The values of the environment's variables (`status().environment`), secrets included: what the
   * rules' `{{NAME}}` stand for. Empty before the first copy, without a key, or from a server without
   * environments.
   */
  values(): ReadonlyMap<string, string>;
  /** Settles once the copy is of `revision` or a later one; rejects if the runtime stops first. */
  reached(revision: number): Promise<void>;
  /** Calls `listener` on each event of that name; answers a function that stops it. */
  on<E extends keyof RuntimeEvents>(event: E, listener: RuntimeEvents[E]): () => void;
  /** Stops following (no error event); the copy stays readable. */
  close(): void;
}

/** A revision of more changes than this is read as the lists again rather than object by object. */
const RELOAD_AFTER_CHANGES = 100;
/** Change events held waiting for their revision's id; past it the server is not one to trust. */
const MAX_PENDING = 1000;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const OBJECT_TYPES = new Set<unknown>(['rule', 'group', 'variable', 'environment']);

/** The stream sent what the service never sends: dropped, and followed again from the copy's revision. */
class ProtocolError extends Error {}

type Changed = RuntimeChange['changed'][number];

/** The object a change event names: a rule, a group, a variable or an environment (by name). */
function changeOf(event: StreamEvent): Changed {
  let item: unknown;
  try {
    item = JSON.parse(event.data);
  } catch {
    throw new ProtocolError('the change stream sent an event that is not JSON');
  }
  const { objectType, id } = (item ?? {}) as Record<string, unknown>;
  if (
    !OBJECT_TYPES.has(objectType) ||
    typeof id !== 'string' ||
    !(objectType === 'environment' ? ENVIRONMENT_NAME_PATTERN : ID).test(id)
  )
    throw new ProtocolError('the change stream sent a change without an object type and id');
  return { objectType, id } as Changed;
}

function revisionOf(event: StreamEvent): number {
  if (!/^[0-9]{1,15}$/.test(event.id ?? '')) throw new ProtocolError('the change stream sent a bad id');
  return Number(event.id);
}

/** List order, as the engine and the API's lists have it. */
function byListOrder(a: RuntimeRule, b: RuntimeRule): number {
  if (a.creationDate !== b.creationDate) return a.creationDate - b.creationDate;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The first copy's default wait: a server on the same network answers its lists well within it. */
export const READY_TIMEOUT_MS = 10_000;

/** The last request a fetch made (method and path), and its answer's status once it had one. */
interface Tried {
  what: string;
  status?: number;
  /** Why it got no answer at all (the connection refused, reset, ...). */
  failed?: string;
}

/** `inner`, noting in `tried` each request it makes: what a runtime that never got ready tells. */
function noting(inner: typeof fetch, tried: { last?: Tried }): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request?.url ?? String(input));
    const attempt: Tried = { what: `${request?.method ?? init?.method ?? 'GET'} ${url.pathname}` };
    tried.last = attempt;
    try {
      const response = await inner(input, init);
      attempt.status = response.status;
      return response;
    } catch (error) {
      // Node's fetch says "fetch failed" and keeps the reason (ECONNREFUSED) in its cause.
      const cause = (error as { cause?: { code?: unknown } }).cause?.code;
      attempt.failed = `${(error as Error).message}${typeof cause === 'string' ? ` (${cause})` : ''}`;
      throw error;
    }
  };
}

export function followWorkspace(options: FollowOptions): WorkspaceCopy {
  const stopping = new AbortController();
  const { signal } = stopping;
  const tried: { last?: Tried } = {};
  const client = createClient({
    baseUrl: options.server,
    ...(options.session ? { session: options.session } : { key: options.key as string }),
    fetch: boundedFetch(noting(options.fetch ?? fetch, tried), options.maxAnswerBytes ?? MAX_ANSWER_BYTES),
  });
  const reads: ServerReads = serverReads(client, signal);
  const backoff: Backoff = { minMs: options.minRetryMs ?? 250, maxMs: options.maxRetryMs ?? 30_000 };
  const maxEventChars = options.maxEventChars ?? MAX_EVENT_CHARS;
  const keepCopy = options.keepCopy ?? true;

  const rules = new Map<string, RuntimeRule>();
  const groups = new Map<string, RuntimeGroup>();
  // Values are read with a key only: a person's session is refused them (the console never holds a secret).
  const withValues = keepCopy && options.key !== undefined;
  /** The environment to read values of: the one asked for, else the key's (asked once); undefined: none. */
  let environment = options.environment;
  let environmentKnown = environment !== undefined;
  let values: ReadonlyMap<string, string> = new Map();
  let ordered: RuntimeRule[] | undefined = [];
  let revision = -1;
  let state: RuntimeState = 'connecting';
  let problem: string | undefined;
  let failure: Error | undefined;
  const listeners: { [E in keyof RuntimeEvents]: Set<RuntimeEvents[E]> } = {
    change: new Set(),
    status: new Set(),
    error: new Set(),
  };
  const waiters = new Set<{ revision: number; resolve(): void; reject(error: Error): void }>();

  /**
   * A listener that throws stops neither the runtime nor the other listeners; its error is thrown
   * again on its own (uncaught, where the host reports it) instead of being lost.
   */
  function emit<E extends keyof RuntimeEvents>(event: E, ...args: Parameters<RuntimeEvents[E]>): void {
    for (const listener of [...listeners[event]]) {
      try {
        (listener as (...a: Parameters<RuntimeEvents[E]>) => void)(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  const status = (): RuntimeStatus => ({
    state,
    revision,
    rules: rules.size,
    groups: groups.size,
    ...(environment === undefined ? {} : { environment }),
    ...(problem === undefined ? {} : { problem }),
  });

  function setState(next: RuntimeState, why?: Error): void {
    const changed = next !== state || why !== undefined;
    state = next;
    problem = why?.message;
    if (changed) emit('status', status());
  }

  function reach(next: number, change: Omit<RuntimeChange, 'revision'>): void {
    revision = Math.max(revision, next);
    ordered = undefined;
    for (const waiter of waiters) {
      if (waiter.revision > revision) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
    emit('change', { revision, ...change });
  }

  /**
   * The lists read whole. After `reset` the copy takes the lists' revision even when it is lower (a
   * server restored from an older backup): resuming after a revision the server never reached would
   * only bring another reset.
   */
  async function reload(reset: boolean, at: number): Promise<void> {
    if (!keepCopy) {
      if (reset) revision = at;
      return reach(at, { reloaded: true, changed: [] });
    }
    const lists = await reads.lists();
    // After the lists: a variable changed between the two reads is replayed by the stream, read again.
    const read = await readValues();
    rules.clear();
    groups.clear();
    for (const rule of lists.rules) rules.set(rule.id, rule);
    for (const group of lists.groups) groups.set(group.id, group);
    if (read) values = read;
    if (reset) revision = lists.revision;
    reach(lists.revision, { reloaded: true, changed: [] });
  }

  /**
   * The values of the environment's variables as they are now; undefined without a key or from a
   * server without environments (its whoami names none).
   */
  async function readValues(): Promise<ReadonlyMap<string, string> | undefined> {
    if (!withValues) return undefined;
    if (!environmentKnown) {
      environment = await reads.keyEnvironment();
      environmentKnown = true;
    }
    return environment === undefined ? undefined : (await reads.values(environment)).values;
  }

  /** The current content of each changed object, fetched before any is applied (all or nothing). */
  async function apply(changed: Changed[], to: number): Promise<void> {
    if (!keepCopy) return reach(to, { reloaded: false, changed });
    const objects = changed.filter(({ objectType }) => objectType === 'rule' || objectType === 'group');
    const valuesChanged = objects.length < changed.length;
    const [found, read] = await Promise.all([
      Promise.all(
        objects.map(({ objectType, id }) => (objectType === 'rule' ? reads.rule(id) : reads.group(id))),
      ),
      valuesChanged ? readValues() : undefined,
    ]);
    if (read) values = read;
    objects.forEach(({ objectType, id }, i) => {
      const object = found[i];
      const map = (objectType === 'rule' ? rules : groups) as Map<string, typeof object>;
      if (object) map.set(id, object);
      else map.delete(id);
    });
    reach(to, { reloaded: false, changed });
  }

  /** Follows one stream until it ends; each chunk of events that arrived together is applied once. */
  async function follow(body: ReadableStream<Uint8Array>): Promise<void> {
    let pending: Changed[] = [];
    for await (const events of eventChunks(body, maxEventChars)) {
      let reloadAll: 'reset' | 'bulk' | undefined;
      const ready = new Map<string, Changed>();
      let last: number | undefined;
      for (const event of events) {
        if (event.event === 'reset' || event.event === 'bulk') {
          // Everything is read again: what was pending is in the lists.
          reloadAll = reloadAll === 'reset' ? 'reset' : event.event;
          last = revisionOf(event);
          pending = [];
          continue;
        }
        // The opening position: where a follower without a copy starts.
        if (event.event === 'message' && event.id !== undefined && revision < 0 && !keepCopy)
          reach(revisionOf(event), { reloaded: true, changed: [] });
        if (event.event !== 'change') continue; // or an event of a later version
        pending.push(changeOf(event));
        if (pending.length > MAX_PENDING)
          throw new ProtocolError('the change stream sent a revision without end');
        // `id:` marks a revision's last event: its changes are applied together.
        if (event.id === undefined) continue;
        last = revisionOf(event);
        for (const change of pending) ready.set(`${change.objectType}/${change.id}`, change);
        pending = [];
      }
      if (reloadAll) await reload(reloadAll === 'reset', last ?? revision);
      else if (last === undefined || last <= revision)
        continue; // a replay of what the copy holds
      else if (ready.size > RELOAD_AFTER_CHANGES) await reload(false, last);
      else await apply([...ready.values()], last);
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    let untrusted = false;
    while (!signal.aborted) {
      try {
        if (revision < 0 && keepCopy) await reload(true, -1);
        const body = await reads.stream(revision);
        // The wait starts short again, unless the last stream sent nonsense: a server that does that
        // on every stream is retried ever more slowly.
        if (!untrusted) failures = 0;
        untrusted = false;
        setState('live');
        markReady?.resolve();
        markReady = undefined;
        await follow(body);
        if (signal.aborted) return;
        setState('reconnecting', new Error('the change stream ended'));
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof KeyRefusedError || error instanceof EnvironmentNotFoundError) return stop(error);
        untrusted = error instanceof ProtocolError || error instanceof EventTooLargeError;
        setState(revision < 0 ? 'connecting' : 'reconnecting', error as Error);
      }
      await pause(backoffDelay(backoff, failures++), signal);
    }
  }

  function stop(error?: KeyRefusedError | EnvironmentNotFoundError): void {
    if (state === 'stopped') return;
    failure = error ?? new Error('the runtime was closed');
    stopping.abort();
    setState('stopped', error);
    for (const waiter of waiters) waiter.reject(failure);
    waiters.clear();
    markReady?.reject(failure);
    if (error) emit('error', error);
  }

  let markReady: { resolve(): void; reject(error: Error): void } | undefined;
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      markReady = undefined;
      reject(notReady(readyTimeoutMs));
    }, readyTimeoutMs);
    const settled = () => clearTimeout(timer);
    markReady = {
      resolve: () => {
        settled();
        resolve();
      },
      reject: (error) => {
        settled();
        reject(error);
      },
    };
  });

  /** Why the first copy did not come in time: where, what was tried, and how the last attempt ended. */
  function notReady(ms: number): Error {
    const last = tried.last;
    const attempt =
      last === undefined
        ? 'no request was made'
        : last.failed !== undefined
          ? `${last.what} failed: ${last.failed}`
          : last.status === undefined
            ? `${last.what} was sent and has had no answer`
            : `${last.what} answered ${last.status}`;
    const failed =
      problem === undefined || last?.failed !== undefined ? '' : `; the last failure: ${problem}`;
    return new Error(
      `rulekeeper/runtime: no copy of the workspace from ${options.server} within ${ms} ms (readyTimeoutMs): ${attempt}${failed}`,
    );
  }
  // Whoever never awaits `ready` is not told of a refused key by an unhandled rejection.
  ready.catch(() => {});
  void run();

  return {
    ready,
    status,
    rules: () => {
      ordered ??= [...rules.values()].sort(byListOrder);
      return ordered;
    },
    groups: () => [...groups.values()],
    values: () => values,
    reached(wanted) {
      if (wanted <= revision) return Promise.resolve();
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => waiters.add({ revision: wanted, resolve, reject }));
    },
    on(event, listener) {
      const set = listeners[event] as Set<typeof listener>;
      set.add(listener);
      return () => set.delete(listener);
    },
    close: () => stop(),
  };
}
