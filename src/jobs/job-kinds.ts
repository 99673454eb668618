// The one table of job kinds: what runs on worker threads, each kind with its worker's module, its
// pool's size and limits from the config, and what a refusal says. A kind's code (its job, its
// worker) stays in its module; the pools are built from this table by one function (pools.ts).
import type { Config } from '../config.js';

export interface JobKind {
  /** The worker's module under src/, without its ending (found as .ts or .js: workerEntry). */
  worker: string;
  /** What a job is, in refusals: "the trace"; and many of them: "traces". */
  what: string;
  jobs: string;
  /** What to do when a job ran past its time limit. */
  tooLongHint: string;
  /** Its pool's size (0: no pool, the service runs the jobs on its own thread), time limit and heap. */
  limits(config: Config): { workers: number; timeLimitMs: number; memoryMb: number };
  /** Jobs one key may have running, waiting, and jobs waiting in all (see worker-pool.ts). */
  perKey(workers: number): number;
  perKeyWaiting: number;
  maxWaiting: number;
}

/** One key never holds every worker: a workspace with 100,000 rules leaves the others a worker. */
const allButOne = (workers: number) => Math.max(1, workers - 1);

/** Room for an import's worker told to stop (its client gone, its time limit past) to roll back. */
const IMPORT_STOP_GRACE_MS = 30_000;

export const JOB_KINDS = {
  // POST /v1/trace never runs on the event loop.
  trace: {
    worker: 'modules/trace/trace-worker',
    what: 'the trace',
    jobs: 'traces',
    tooLongHint: 'trace fewer rules, or a shorter URL or body',
    limits: (config) => ({
      workers: config.traceWorkers,
      timeLimitMs: config.traceTimeLimitMs,
      memoryMb: config.traceWorkerMemoryMb,
    }),
    perKey: allButOne,
    perKeyWaiting: 4,
    maxWaiting: 256,
  },
  // A workspace of 100,000 rules takes seconds to lint, and no other request waits for it.
  lint: {
    worker: 'modules/lint/lint-worker',
    what: 'the lint',
    jobs: 'lints',
    tooLongHint: 'the workspace has too many rules to lint in time; raise LINT_TIME_LIMIT_MS',
    limits: (config) => ({
      workers: config.lintWorkers,
      timeLimitMs: config.lintTimeLimitMs,
      memoryMb: config.lintWorkerMemoryMb,
    }),
    perKey: allButOne,
    perKeyWaiting: 4,
    maxWaiting: 256,
  },
  // GET /v1/browser-rules. Its own pool, not the lint's: every write waits for its lint findings, and
  // compiles on the lint workers made other workspaces' writes wait for them (two 50,000-rule compiles
  // at once: a small workspace's writes took up to 4.4 s, against 0.25 s with this pool). Its workers
  // start on first use, so the pool costs nothing until then.
  browserRules: {
    worker: 'modules/browser-rules/browser-rules-worker',
    what: 'the browser rules compile',
    jobs: 'browser rules compiles',
    tooLongHint: 'the workspace has too many rules to compile in time; raise BROWSER_RULES_TIME_LIMIT_MS',
    limits: (config) => ({
      workers: config.browserRulesWorkers,
      timeLimitMs: config.browserRulesTimeLimitMs,
      memoryMb: config.browserRulesWorkerMemoryMb,
    }),
    perKey: allButOne,
    perKeyWaiting: 4,
    maxWaiting: 256,
  },
  // A change request's evidence (its rules before and after linted, compiled and traced through the
  // stored suites): sized and limited as the lint, in a pool of its own so that it never holds up the
  // lint every write waits for.
  evidence: {
    worker: 'modules/change-requests/evidence-worker',
    what: 'the evidence',
    jobs: 'evidence computations',
    tooLongHint: 'the change or the stored suites are too large to try in time; raise LINT_TIME_LIMIT_MS',
    limits: (config) => ({
      workers: config.lintWorkers,
      timeLimitMs: config.lintTimeLimitMs,
      memoryMb: config.lintWorkerMemoryMb,
    }),
    perKey: allButOne,
    perKeyWaiting: 4,
    maxWaiting: 256,
  },
  // POST /v1/import, one at a time on a worker with a database connection of its own (an in-memory
  // database has no other: there, imports run on the service's thread). Up to 2 imports per key and
  // 32 in all may be under way (import-runner.ts counts them from the request on).
  import: {
    worker: 'modules/transfer/import-worker',
    what: 'the import',
    jobs: 'imports',
    tooLongHint: 'import fewer records at once, or raise IMPORT_TIME_LIMIT_MS',
    limits: (config) => ({
      workers: config.databaseUrl === 'sqlite::memory:' ? 0 : 1,
      // The route's own limit stops the import first (503 Time limit exceeded, rolled back); this
      // one ends a worker that did not stop when told.
      timeLimitMs: config.importTimeLimitMs + IMPORT_STOP_GRACE_MS,
      memoryMb: config.importWorkerMemoryMb,
    }),
    perKey: () => 1,
    perKeyWaiting: 2,
    maxWaiting: 32,
  },
} satisfies Record<string, JobKind>;

export type JobKindName = keyof typeof JOB_KINDS;
