// The service's worker pools, one per job kind of the table (job-kinds.ts), built by one loop.
import type { Config } from '../config.js';
import { JOB_KINDS, type JobKindName } from './job-kinds.js';
import { createWorkerPool, type JobRunner, workerEntry } from './worker-pool.js';

export interface Pools {
  /**
   * The pool of a kind, or undefined when the config gives it no workers. Its job and outcome types
   * are named by the module that owns the kind: the table names the worker's file, not its types,
   * so that this floor imports no module.
   */
  of<Job, Outcome>(kind: JobKindName): JobRunner<Job, Outcome> | undefined;
  close(): Promise<void>;
}

export function createPools(config: Config): Pools {
  const pools = new Map<JobKindName, JobRunner<unknown, unknown>>();
  for (const [name, kind] of Object.entries(JOB_KINDS) as [JobKindName, (typeof JOB_KINDS)[JobKindName]][]) {
    const { workers, timeLimitMs, memoryMb } = kind.limits(config);
    if (workers === 0) continue;
    pools.set(
      name,
      createWorkerPool({
        entry: workerEntry(kind.worker),
        what: kind.what,
        jobs: kind.jobs,
        tooLongHint: kind.tooLongHint,
        workers,
        timeLimitMs,
        memoryMb,
        perKey: kind.perKey(workers),
        perKeyWaiting: kind.perKeyWaiting,
        maxWaiting: kind.maxWaiting,
      }),
    );
  }
  return {
    of: <Job, Outcome>(kind: JobKindName) => pools.get(kind) as JobRunner<Job, Outcome> | undefined,
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    },
  };
}
