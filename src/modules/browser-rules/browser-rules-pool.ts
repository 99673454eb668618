// The pool GET /v1/browser-rules compiles on (see shared/worker-pool.ts): compiling a workspace of
// 100,000 rules takes seconds, and no other request waits for it. Its own pool, not the lint's: every
// write waits for its lint findings, and compiles on the lint workers made other workspaces' writes
// wait for them (two 50,000-rule compiles at once: a small workspace's writes took up to 4.4 s, against
// 0.25 s with this pool). Its workers start on first use, so the pool costs nothing until then.
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
