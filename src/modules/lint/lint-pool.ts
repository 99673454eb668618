// The pool the rule lint runs on (see shared/worker-pool.ts): a workspace of 100,000 rules takes
// seconds to lint, and no other request waits for it.

import { createWorkerPool, workerEntry } from '../shared/worker-pool.js';
import type { PoolLimits } from '../trace/trace-pool.js';
import type { LintJob, LintOutcome } from './lint-job.js';
import type { LintRunner } from './lint-service.js';

export function createLintPool({ workers, timeLimitMs, memoryMb }: PoolLimits): LintRunner {
  return createWorkerPool<LintJob, LintOutcome>({
    entry: workerEntry('lint-worker', import.meta.url),
    what: 'the lint',
    jobs: 'lints',
    tooLongHint: 'the workspace has too many rules to lint in time; raise LINT_TIME_LIMIT_MS',
    workers,
    timeLimitMs,
    memoryMb,
    // One key never holds every worker: a workspace linting 100,000 rules leaves the others a worker.
    perKey: Math.max(1, workers - 1),
    perKeyWaiting: 4,
    maxWaiting: 256,
  });
}
