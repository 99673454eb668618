// A trace pool's worker thread: runs trace jobs one at a time, keeping workspaces' rules compiled.
import { parentPort } from 'node:worker_threads';
import { createTraceJobs, type TraceJob } from './trace-job.js';

/** Workspaces whose compiled rules each worker keeps. */
const MAX_KEPT_WORKSPACES = 64;

const run = createTraceJobs(MAX_KEPT_WORKSPACES);
const port = parentPort;
if (port) {
  port.on('message', ({ id, job }: { id: number; job: TraceJob }) => {
    try {
      port.postMessage({ id, outcome: run(job) });
    } catch {
      // Nothing of the failure crosses back (messages may name internals): the pool answers INTERNAL.
      port.postMessage({ id, failed: true });
    }
  });
  // Loaded: the pool starts a job's clock only now (loading is not the job's time).
  port.postMessage({ ready: true });
}
