// The pool GET /v1/browser-rules compiles on (see shared/worker-pool.ts): compiling a workspace of
// 100,000 rules takes seconds, and no other request waits for it. Its own pool, not the lint's: a key's
// compile would otherwise take the key's share of the lint workers, and its writes, which wait for
// their lint findings, would wait for the compile too.
import { createWorkerPool, type JobRunner, workerEntry } from '../shared/worker-pool.js';
import type { PoolLimits } from '../trace/trace-pool.js';
import type { BrowserRulesJob, BrowserRulesOutcome } from './browser-rules-job.js';

export type BrowserRulesRunner = JobRunner<BrowserRulesJob, BrowserRulesOutcome>;

export function createBrowserRulesPool({ workers, timeLimitMs, memoryMb }: PoolLimits): BrowserRulesRunner {
  return createWorkerPool<BrowserRulesJob, BrowserRulesOutcome>({
    entry: workerEntry('browser-rules-worker', import.meta.url),
    what: 'the browser rules compile',
    jobs: 'browser rules compiles',
    tooLongHint: 'the workspace has too many rules to compile in time; raise BROWSER_RULES_TIME_LIMIT_MS',
    workers,
    timeLimitMs,
    memoryMb,
    // One key never holds every worker: a workspace of 100,000 rules leaves the others a worker.
    perKey: Math.max(1, workers - 1),
    perKeyWaiting: 4,
    maxWaiting: 256,
  });
}
