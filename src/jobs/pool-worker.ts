// A worker thread of a pool (worker-pool.ts): runs the jobs it is sent one at a time, at a lower
// priority than the event loop's thread.
import { setPriority } from 'node:os';
import { parentPort, type TransferListItem } from 'node:worker_threads';

const WORKER_NICENESS = 10;

/**
 * Serves the pool's jobs with `run`; `transferOf` says what of an outcome to move back to the caller,
 * not copy (large encoded answers). A job may be asynchronous (an import waits on its database): its
 * signal is aborted when the pool says the job was abandoned, and the job then ends as it should
 * (rolled back), answering as usual. `partial` says what stands if the job fails after it (the
 * pool hands it to the caller's `onPartial`).
 */
export function serveJobs<Job, Outcome>(
  run: (job: Job, signal: AbortSignal, partial: (outcome: Outcome) => void) => Outcome | Promise<Outcome>,
  transferOf: (outcome: Outcome) => TransferListItem[] = () => [],
): void {
  // Jobs yield the CPU to the event loop: on Linux a thread's nice value is its own, so this lowers the
  // worker alone (elsewhere it may lower nothing, or be refused; either way the job still runs).
  try {
    setPriority(WORKER_NICENESS);
  } catch {}
  const port = parentPort;
  if (!port) return;
  const running = new Map<number, AbortController>();
  // Nothing of a failure crosses back (messages may name internals): the pool answers INTERNAL.
  const failed = (id: number) => port.postMessage({ id, failed: true });
  port.on('message', ({ id, job, abort }: { id: number; job?: Job; abort?: true }) => {
    if (abort) return running.get(id)?.abort();
    const controller = new AbortController();
    try {
      const answer = (outcome: Outcome) => port.postMessage({ id, outcome }, transferOf(outcome));
      // What stands should the job fail from here on (an import committed, its lint still to run).
      const partial = (outcome: Outcome) => port.postMessage({ id, partial: outcome }, transferOf(outcome));
      const result = run(job as Job, controller.signal, partial);
      if (!(result instanceof Promise)) return answer(result);
      running.set(id, controller);
      result
        .then(answer)
        .catch(() => failed(id))
        .finally(() => running.delete(id));
    } catch {
      failed(id);
    }
  });
  // Loaded: the pool starts a job's clock only now (loading is not the job's time).
  port.postMessage({ ready: true });
}
