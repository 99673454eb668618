// What a runtime tells the service of the rules that acted (decision 21): rule ids and counts only,
// never a URL, header or body. Counts gather in memory and go as one report at most every 10 s
// (`POST /v1/hits`), and once more on close. A report that fails is logged once and its counts kept
// for the next batch, up to a bound; the runtime never waits on it nor stops for it. When nothing
// acted for an hour an empty report still goes, so that the service knows the runtime is running
// (the lint's `never_acted` needs to know someone was watching). Fetch only: it runs in Node and in the
// extension's service worker alike.
import { createClient, type RulekeeperClient } from '../client/index.js';

export type HitSource = 'proxy' | 'extension' | 'playwright' | 'runtime';

export interface HitReporterOptions {
  /** The service, e.g. `http://127.0.0.1:8080`. */
  server: string;
  /** An API key of the workspace; a `read` key is enough. */
  key: string;
  source: HitSource;
  /** How often a batch may go, in ms (default and most 10 s; tests take less). */
  intervalMs?: number;
  fetch?: typeof fetch;
  /** Told once when reports start failing, and once when they go again. */
  log?: (message: string) => void;
  now?: () => number;
}

export interface HitReporter {
  /** `ruleIds` acted once each (a request's rules), at `at` (now by default). */
  acted(ruleIds: readonly string[], at?: number): void;
  /** Sends what was counted now (the timer does this every interval); settles once answered or failed. */
  flush(): Promise<void>;
  /** Sends what is left and stops the timer. */
  close(): Promise<void>;
}

/** The most often a batch goes (decision 21). */
export const HIT_INTERVAL_MS = 10_000;
/** Entries per report (the service takes 1,000). */
const PER_REPORT = 1000;
/** Rules counted while reports fail; counts of others are dropped past it. */
const MAX_KEPT_RULES = 10_000;
/** Failed batches in a row after which what was counted is dropped (about a minute at 10 s). */
const MAX_FAILED_BATCHES = 6;
/** How long one report may take before it counts as failed. */
const REPORT_TIMEOUT_MS = 5000;
/** An empty report after this long without one: the runtime says it is running. */
const HEARTBEAT_MS = 60 * 60 * 1000;

interface Count {
  count: number;
  firstAt: number;
  lastAt: number;
}

/** Answers that no retry will change: the batch is dropped (and reporting stops on a refused key). */
const refusedKey = (status: number) => status === 401 || status === 403;

export function createHitReporter(options: HitReporterOptions): HitReporter {
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const intervalMs = Math.min(HIT_INTERVAL_MS, Math.max(1, options.intervalMs ?? HIT_INTERVAL_MS));
  const client: RulekeeperClient = createClient({
    baseUrl: options.server,
    key: options.key,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  let counts = new Map<string, Count>();
  let failures = 0;
  let stopped = false;
  let lastSent = Number.NEGATIVE_INFINITY;
  let sending: Promise<void> | undefined;

  function add(into: Map<string, Count>, ruleId: string, c: Count): void {
    const had = into.get(ruleId);
    if (had) {
      had.count += c.count;
      had.firstAt = Math.min(had.firstAt, c.firstAt);
      had.lastAt = Math.max(had.lastAt, c.lastAt);
    } else if (into.size < MAX_KEPT_RULES) into.set(ruleId, { ...c });
  }

  async function send(batch: Map<string, Count>): Promise<void> {
    const entries = [...batch].map(([ruleId, c]) => ({ ruleId, ...c }));
    // An empty report says the runtime runs; a batch of more than 1,000 rules goes in several.
    const reports: (typeof entries)[] = entries.length === 0 ? [[]] : [];
    for (let i = 0; i < entries.length; i += PER_REPORT) reports.push(entries.slice(i, i + PER_REPORT));
    let index = 0;
    try {
      for (; index < reports.length; index++) {
        const { response } = await client.POST('/v1/hits', {
          body: { source: options.source, counts: reports[index] ?? [] },
          // A server that never answers holds neither the batches after it nor a close.
          signal: AbortSignal.timeout(REPORT_TIMEOUT_MS),
        });
        if (refusedKey(response.status)) {
          log(`hit reports refused (${response.status}): no longer reporting which rules acted`);
          stopped = true;
          return;
        }
        // 400 would be refused again; 429 and 5xx are worth another try with the next batch.
        if (!response.ok && response.status !== 400) throw new Error(`answered ${response.status}`);
      }
      if (failures > 0) log('hit reports go through again');
      failures = 0;
      lastSent = now();
    } catch (error) {
      failures++;
      if (failures === 1)
        log(`could not report which rules acted (${(error as Error).message}); retrying with the next batch`);
      if (failures >= MAX_FAILED_BATCHES) {
        if (failures === MAX_FAILED_BATCHES) log('hit counts dropped after repeated failures');
        return;
      }
      // What was not sent joins what was counted meanwhile.
      for (const entry of reports.slice(index).flat())
        add(counts, entry.ruleId, { count: entry.count, firstAt: entry.firstAt, lastAt: entry.lastAt });
    }
  }

  function flush(): Promise<void> {
    if (stopped) return Promise.resolve();
    // One report at a time: a flush while one goes waits for it, then sends what came since.
    if (sending) return sending.then(flush);
    if (counts.size === 0 && now() - lastSent < HEARTBEAT_MS) return Promise.resolve();
    const batch = counts;
    counts = new Map();
    sending = send(batch).finally(() => {
      sending = undefined;
    });
    return sending;
  }

  const timer = setInterval(() => void flush(), intervalMs);
  // Node: the timer alone does not keep a process alive (a service worker has no such notion).
  (timer as { unref?: () => void }).unref?.();

  return {
    acted(ruleIds, at = now()) {
      if (stopped) return;
      for (const ruleId of ruleIds) add(counts, ruleId, { count: 1, firstAt: at, lastAt: at });
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
      stopped = true;
    },
  };
}
