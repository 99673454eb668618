// A worker thread of a pool (worker-pool.ts): runs the jobs it is sent one at a time, at a lower
// priority than the event loop's thread.
import { setPriority } from 'node:os';
import { parentPort, type TransferListItem } from 'node:worker_threads';

const WORKER_NICENESS = 10;

/** `transferOf`: what of an outcome to move back to the caller, not copy (large encoded answers). */
export function serveJobs<Job, Outcome>(
  run: (job: Job) => Outcome,
  transferOf: (outcome: Outcome) => TransferListItem[] = () => [],
): void {
  // Jobs yield the CPU to the event loop: on Linux a thread's nice value is its own, so this lowers the
  // worker alone (elsewhere it may lower nothing, or be refused; either way the job still runs).
  try {
    setPriority(WORKER_NICENESS);
  } catch {}
  const port = parentPort;
  if (!port) return;
  port.on('message', ({ id, job }: { id: number; job: Job }) => {
    try {
      const outcome = run(job);
      port.postMessage({ id, outcome }, transferOf(outcome));
    } catch {
      // Nothing of the failure crosses back (messages may name internals): the pool answers INTERNAL.
      port.postMessage({ id, failed: true });
    }
  });
  // Loaded: the pool starts a job's clock only now (loading is not the job's time).
  port.postMessage({ ready: true });
}
