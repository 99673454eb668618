// Heavy jobs (the kinds of job-kinds.ts) run on small pools of worker threads, never on the event loop:
// one trace may compile a thousand patterns and match each against a 16 KiB URL, a workspace of 100,000
// rules takes seconds to lint, and every other request of every workspace waited meanwhile. Each job
// has a time limit (its worker is ended, the caller told), a worker has a memory limit, and one key may
// use only part of the pool, so that a key sending many jobs at once cannot keep the others' waiting.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { type TransferListItem, Worker, type WorkerOptions } from 'node:worker_threads';
import { AppError, type ErrorDetail } from '../errors.js';

export interface WorkerPoolOptions {
  /** The worker's module (workerEntry: trace-worker.js as built, or .ts run from the sources). */
  entry: URL;
  /** What a job is, in refusals: "the trace"; and many of them: "traces". */
  what: string;
  jobs: string;
  /** What to do when a job ran past its time limit: "trace fewer rules, or a shorter URL or body". */
  tooLongHint: string;
  workers: number;
  timeLimitMs: number;
  /** Heap of each worker, in MiB. */
  memoryMb: number;
  /** Jobs one key may have running at once: the rest of the pool stays free for other keys. */
  perKey: number;
  /** Jobs one key may have waiting; past that, 429. */
  perKeyWaiting: number;
  /** Jobs waiting in all; past that, 503. */
  maxWaiting: number;
}

export interface RunOptions {
  /** Moved to the worker, not copied (large encoded inputs). */
  transfer?: TransferListItem[];
  /** Jobs with the same affinity go to the worker that ran the last of them when it is free (its caches). */
  affinity?: string;
  /**
   * Once aborted, a waiting job is dropped and a running one told (it ends as it should, rolled
   * back): the job's promise is rejected with the signal's reason either way.
   */
  signal?: AbortSignal;
  /** Told what the job says stands even if it fails later (see pool-worker.ts's `partial`). */
  onPartial?: (partial: unknown) => void;
}

export interface JobRunner<Job, Outcome> {
  run(key: string, job: Job, options?: RunOptions): Promise<Outcome>;
  close(): Promise<void>;
}

interface Task<Job, Outcome> {
  key: string;
  job: Job;
  options: RunOptions;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

interface Slot<Job, Outcome> {
  worker?: Worker;
  /** The worker has loaded its code: a task's clock starts only then. */
  ready: boolean;
  task?: Task<Job, Outcome>;
  /** The affinity of the last task it ran, and whether it was taken ahead of an older task. */
  affinity?: string;
  jumped?: boolean;
  timer?: NodeJS.Timeout;
}

// Built, a worker is JavaScript beside its caller; from the sources (tests), TypeScript loaded by tsx,
// whose loader is registered in the worker's thread first (an --import flag does not reach workers).
const TYPESCRIPT = import.meta.url.endsWith('.ts');

/**
 * A worker's module by its path under src/ without an ending ('modules/trace/trace-worker'): the
 * built tree (dist/) has the sources' layout, so the same path finds the .js there and the .ts here.
 */
export function workerEntry(path: string): URL {
  return new URL(`../${path}.${TYPESCRIPT ? 'ts' : 'js'}`, import.meta.url);
}

function startWorker(entry: URL, options: WorkerOptions): Worker {
  if (!TYPESCRIPT) return new Worker(entry, options);
  // tsx's ESM build of its API (require resolves its CommonJS one, which cannot register from here).
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const tsx = pathToFileURL(api).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

const refused = (code: 'TIME_LIMIT_EXCEEDED' | 'UNAVAILABLE' | 'RATE_LIMITED', message: string) => {
  const details: ErrorDetail[] = [{ path: '', message }];
  return new AppError(code, details);
};

export function createWorkerPool<Job, Outcome>(options: WorkerPoolOptions): JobRunner<Job, Outcome> {
  type T = Task<Job, Outcome>;
  type S = Slot<Job, Outcome>;
  const slots: S[] = Array.from({ length: options.workers }, () => ({ ready: false }));
  const waiting: T[] = [];
  const running = new Map<string, number>();
  let nextId = 0;
  let closed = false;

  const count = (key: string, by: number) => {
    const n = (running.get(key) ?? 0) + by;
    if (n === 0) running.delete(key);
    else running.set(key, n);
  };

  /** Ends the slot's worker (a new one starts for the next task). */
  function drop(slot: S): void {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    if (worker) void worker.terminate();
  }

  function settle(slot: S, settleTask: (task: T) => void): void {
    clearTimeout(slot.timer);
    const task = slot.task;
    slot.task = undefined;
    if (!task) return;
    count(task.key, -1);
    settleTask(task);
    dispatch();
  }

  function start(slot: S): void {
    const { task, worker } = slot;
    if (!task || !worker) return;
    const id = ++nextId;
    worker.postMessage({ id, job: task.job }, task.options.transfer ?? []);
    task.options.signal?.addEventListener('abort', () => worker.postMessage({ id, abort: true }), {
      once: true,
    });
    slot.timer = setTimeout(() => {
      drop(slot);
      const seconds = options.timeLimitMs / 1000;
      settle(slot, (t) =>
        t.reject(
          refused(
            'TIME_LIMIT_EXCEEDED',
            `${options.what} ran past its ${seconds} s limit and was stopped: ${options.tooLongHint}`,
          ),
        ),
      );
    }, options.timeLimitMs);
  }

  function spawn(slot: S): void {
    const worker = startWorker(options.entry, {
      resourceLimits: {
        maxOldGenerationSizeMb: options.memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.floor(options.memoryMb / 8)),
      },
    });
    worker.unref(); // an idle pool never keeps the process alive
    slot.worker = worker;
    slot.ready = false;
    worker.on('message', (message: { ready?: true; outcome?: Outcome; partial?: unknown; failed?: true }) => {
      if (slot.worker !== worker) return;
      if (message.partial !== undefined) {
        slot.task?.options.onPartial?.(message.partial);
      } else if (message.ready) {
        slot.ready = true;
        start(slot);
      } else if (message.outcome) {
        const outcome = message.outcome;
        settle(slot, (task) => task.resolve(outcome));
      } else {
        settle(slot, (task) => task.reject(new AppError('INTERNAL')));
      }
    });
    const lost = (error?: Error) => {
      if (slot.worker !== worker) return;
      drop(slot);
      const memory = (error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(slot, (task) =>
        task.reject(
          memory
            ? refused(
                'UNAVAILABLE',
                `${options.what} used more than its ${options.memoryMb} MiB and was stopped`,
              )
            : new AppError('INTERNAL'),
        ),
      );
    };
    worker.on('error', lost);
    worker.on('exit', () => lost());
  }

  /**
   * Idle workers take the oldest waiting task whose key is under its share, or one with the affinity
   * of the last task they ran (what they keep from it saves sending it again), but never twice in a
   * row ahead of an older task: nobody waits long behind a busy workspace.
   */
  function dispatch(): void {
    for (const slot of slots) {
      if (slot.task) continue;
      const eligible = (task: T) => (running.get(task.key) ?? 0) < options.perKey;
      const oldest = waiting.findIndex(eligible);
      if (oldest < 0) return;
      const own =
        slot.affinity === undefined || slot.jumped
          ? -1
          : waiting.findIndex((task) => eligible(task) && task.options.affinity === slot.affinity);
      slot.jumped = own > oldest;
      const task = waiting.splice(slot.jumped ? own : oldest, 1)[0] as T;
      slot.task = task;
      slot.affinity = task.options.affinity;
      count(task.key, 1);
      if (!slot.worker) spawn(slot);
      else if (slot.ready) start(slot);
    }
  }

  return {
    run(key, job, runOptions = {}) {
      if (closed) return Promise.reject(refused('UNAVAILABLE', 'the service is shutting down'));
      const queued = waiting.filter((task) => task.key === key).length;
      if (queued >= options.perKeyWaiting)
        return Promise.reject(
          refused('RATE_LIMITED', `this key has as many ${options.jobs} under way as it may`),
        );
      if (waiting.length >= options.maxWaiting)
        return Promise.reject(refused('UNAVAILABLE', `too many ${options.jobs} are waiting`));
      const signal = runOptions.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<Outcome>((resolve, reject) => {
        const task: T = { key, job, options: runOptions, resolve, reject };
        waiting.push(task);
        signal?.addEventListener(
          'abort',
          () => {
            const at = waiting.indexOf(task);
            if (at < 0) return; // running: the worker was told
            waiting.splice(at, 1);
            reject(signal.reason);
          },
          { once: true },
        );
        dispatch();
      }).catch((error: unknown) => {
        throw signal?.aborted ? signal.reason : error;
      });
    },
    async close() {
      closed = true;
      for (const task of waiting.splice(0))
        task.reject(refused('UNAVAILABLE', 'the service is shutting down'));
      await Promise.all(
        slots.map(async (slot) => {
          clearTimeout(slot.timer);
          const worker = slot.worker;
          slot.worker = undefined;
          slot.task?.reject(refused('UNAVAILABLE', 'the service is shutting down'));
          slot.task = undefined;
          if (worker) await worker.terminate();
        }),
      );
    },
  };
}

/** Runs jobs here, on this thread: for the CLI, which serves no one else. */
export function inProcessRunner<Job, Outcome>(run: (job: Job) => Outcome): JobRunner<Job, Outcome> {
  return {
    run: async (_key, job) => run(job),
    close: async () => {},
  };
}
