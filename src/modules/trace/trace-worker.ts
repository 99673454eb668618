// A trace pool's worker thread: runs trace jobs one at a time, keeping workspaces' rules compiled.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { createTraceJobs, type TraceJob } from './trace-job.js';

/** Workspaces whose compiled rules each worker keeps. */
const MAX_KEPT_WORKSPACES = 64;
const TRACE_NICENESS = 10;

// Traces yield the CPU to the event loop: on Linux a thread's nice value is its own, so this lowers the
// worker alone (elsewhere it may lower nothing, or be refused; either way the trace still runs).
try {
  setPriority(TRACE_NICENESS);
} catch {}

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
