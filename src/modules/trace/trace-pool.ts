// The pool traces run on (see shared/worker-pool.ts): POST /v1/trace never runs on the event loop.
import { createWorkerPool, type JobRunner, workerEntry } from '../shared/worker-pool.js';
import type { TraceJob, TraceOutcome } from './trace-job.js';

export type TraceRunner = JobRunner<TraceJob, TraceOutcome>;

export interface PoolLimits {
  workers: number;
  timeLimitMs: number;
  memoryMb: number;
}

export function createTracePool({ workers, timeLimitMs, memoryMb }: PoolLimits): TraceRunner {
  return createWorkerPool<TraceJob, TraceOutcome>({
    entry: workerEntry('trace-worker', import.meta.url),
    what: 'the trace',
    jobs: 'traces',
    tooLongHint: 'trace fewer rules, or a shorter URL or body',
    workers,
    timeLimitMs,
    memoryMb,
    // One key never holds every worker; with one worker, it waits its turn with the others.
    perKey: Math.max(1, workers - 1),
    perKeyWaiting: 4,
    maxWaiting: 256,
  });
}
