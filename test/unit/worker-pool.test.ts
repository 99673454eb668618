// The worker pool's order: an idle worker takes the oldest waiting job, or the next job of the
// workspace it ran last (what it keeps saves sending it again), but never twice in a row ahead of an
// older job, so that nobody waits long behind a busy workspace.
import { afterEach, expect, it } from 'vitest';
import { createWorkerPool, type JobRunner } from '../../src/jobs/worker-pool.js';

let pool: JobRunner<{ name: string }, string> | undefined;
afterEach(() => pool?.close());

it('runs a workspace’s next job ahead of an older one once, then the older one', async () => {
  pool = createWorkerPool<{ name: string }, string>({
    entry: new URL('../helpers/echo-worker.ts', import.meta.url),
    what: 'the job',
    jobs: 'jobs',
    tooLongHint: 'none',
    workers: 1,
    timeLimitMs: 60_000,
    memoryMb: 64,
    perKey: 1,
    perKeyWaiting: 4,
    maxWaiting: 16,
  });
  const done: string[] = [];
  const run = (name: string, affinity: string) =>
    (pool as JobRunner<{ name: string }, string>)
      .run(`key ${name}`, { name }, { affinity })
      .then((answer) => done.push(answer));
  // All queued before the one worker has started: it takes a1 first, the others wait in this order.
  await Promise.all([run('a1', 'a'), run('b1', 'b'), run('a2', 'a'), run('a3', 'a')]);
  expect(done).toEqual(['a1', 'a2', 'b1', 'a3']);
});
