// The proxy's copy of a workspace's rules: read from a Rulekeeper server, kept current by following its
// change stream, compiled by the one engine. While the server is away the last rules stay in force.
import { eventChunks } from '../client/events.js';
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
  const api = `${options.server.replace(/\/+$/, '')}/v1`;
  const headers = { 'x-api-key': options.key };
  const stopping = new AbortController();
  let rules = new Map<string, StoredRule>();
  let groups = new Map<string, StoredGroup>();
  let ruleSet = compileRuleSet([]);
  let revision = -1;
  let connected = false;
  const waiters: { revision: number; resolve: () => void }[] = [];

  async function get(path: string): Promise<Response> {
    const response = await fetch(`${api}${path}`, { headers, signal: stopping.signal });
    if (response.status === 401 || response.status === 403)
      throw new Error(`the server refused the key (${response.status})`);
    return response;
  }

  async function all<T>(resource: 'rules' | 'groups'): Promise<{ items: T[]; revision: number }> {
    const items: T[] = [];
    let first: number | undefined;
    for (let offset: number | null = 0; offset !== null; ) {
      const response = await get(`/${resource}?pageSize=1000&offset=${offset}`);
      if (!response.ok) throw new Error(`GET /v1/${resource} answered ${response.status}`);
      // The revision is read before the list is built: following from it may replay, never miss.
      first ??= Number(response.headers.get('rulekeeper-revision'));
      const page = (await response.json()) as { data: T[]; nextOffset: number | null };
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
      const collection = objectType === 'rule' ? rules : groups;
      const response = await get(`/${objectType === 'rule' ? 'rules' : 'groups'}/${encodeURIComponent(id)}`);
      if (response.status === 404) collection.delete(id);
      else if (response.ok) {
        const { data } = (await response.json()) as { data: StoredRule & StoredGroup };
        collection.set(id, data);
      } else throw new Error(`GET /v1/${objectType}s/${id} answered ${response.status}`);
    }
    compile();
  }

  /** Follows the stream from `after` until it ends; answers whether the server asked for a full reload. */
  async function follow(after: number): Promise<'reset' | 'ended'> {
    const response = await fetch(`${api}/changes/stream`, {
      headers: { ...headers, 'last-event-id': String(after), accept: 'text/event-stream' },
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
