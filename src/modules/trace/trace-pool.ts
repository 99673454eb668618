// Traces run on a small pool of worker threads, never on the event loop: one trace may compile a
// thousand patterns and match each against a 16 KiB URL, which took seconds of CPU, and every other
// request of every workspace waited meanwhile. Each trace has a time limit (its worker is ended, the
// caller told), a worker has a memory limit, and one key may use only part of the pool, so that a
// key sending many traces at once cannot keep the others' traces waiting.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { AppError, type ErrorDetail } from '../../errors.js';
import type { TraceJob, TraceOutcome } from './trace-job.js';

export interface TracePoolOptions {
  workers: number;
  timeLimitMs: number;
  /** Heap of each worker, in MiB. */
  memoryMb: number;
  /** Traces one key may have running at once: the rest of the pool stays free for other keys. */
  perKey: number;
  /** Traces one key may have waiting; past that, 429. */
  perKeyWaiting: number;
  /** Traces waiting in all; past that, 503. */
  maxWaiting: number;
}

export interface TraceRunner {
  run(key: string, job: TraceJob): Promise<TraceOutcome>;
  close(): Promise<void>;
}

interface Task {
  key: string;
  job: TraceJob;
  resolve(outcome: TraceOutcome): void;
  reject(error: unknown): void;
}

interface Slot {
  worker?: Worker;
  /** The worker has loaded its code: a task's clock starts only then. */
  ready: boolean;
  task?: Task;
  timer?: NodeJS.Timeout;
}

// Built, the worker is JavaScript beside this file; from the sources (tests), TypeScript loaded by tsx,
// whose loader is registered in the worker's thread first (an --import flag does not reach workers).
const TYPESCRIPT = import.meta.url.endsWith('.ts');
const ENTRY = new URL(`./trace-worker.${TYPESCRIPT ? 'ts' : 'js'}`, import.meta.url);

function startWorker(options: WorkerOptions): Worker {
  if (!TYPESCRIPT) return new Worker(ENTRY, options);
  // tsx's ESM build of its API (require resolves its CommonJS one, which cannot register from here).
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const tsx = pathToFileURL(api).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

const refused = (code: 'TIME_LIMIT_EXCEEDED' | 'UNAVAILABLE' | 'RATE_LIMITED', message: string) => {
  const details: ErrorDetail[] = [{ path: '', message }];
  return new AppError(code, details);
};

export function createTracePool(options: TracePoolOptions): TraceRunner {
  const slots: Slot[] = Array.from({ length: options.workers }, () => ({ ready: false }));
  const waiting: Task[] = [];
  const running = new Map<string, number>();
  let nextId = 0;
  let closed = false;

  const count = (key: string, by: number) => {
    const n = (running.get(key) ?? 0) + by;
    if (n === 0) running.delete(key);
    else running.set(key, n);
  };

  /** Ends the slot's worker (a new one starts for the next task). */
  function drop(slot: Slot): void {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    if (worker) void worker.terminate();
  }

  function settle(slot: Slot, settleTask: (task: Task) => void): void {
    clearTimeout(slot.timer);
    const task = slot.task;
    slot.task = undefined;
    if (!task) return;
    count(task.key, -1);
    settleTask(task);
    dispatch();
  }

  function start(slot: Slot): void {
    const { task, worker } = slot;
    if (!task || !worker) return;
    worker.postMessage({ id: ++nextId, job: task.job });
    slot.timer = setTimeout(() => {
      drop(slot);
      const seconds = options.timeLimitMs / 1000;
      settle(slot, (t) =>
        t.reject(
          refused(
            'TIME_LIMIT_EXCEEDED',
            `the trace ran past its ${seconds} s limit and was stopped: trace fewer rules, or a shorter URL or body`,
          ),
        ),
      );
    }, options.timeLimitMs);
  }

  function spawn(slot: Slot): void {
    const worker = startWorker({
      resourceLimits: {
        maxOldGenerationSizeMb: options.memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.floor(options.memoryMb / 8)),
      },
    });
    worker.unref(); // an idle pool never keeps the process alive
    slot.worker = worker;
    slot.ready = false;
    worker.on('message', (message: { ready?: true; outcome?: TraceOutcome; failed?: true }) => {
      if (slot.worker !== worker) return;
      if (message.ready) {
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
            ? refused('UNAVAILABLE', `the trace used more than its ${options.memoryMb} MiB and was stopped`)
            : new AppError('INTERNAL'),
        ),
      );
    };
    worker.on('error', lost);
    worker.on('exit', () => lost());
  }

  /** Idle workers take the oldest waiting task whose key is under its share. */
  function dispatch(): void {
    for (const slot of slots) {
      if (slot.task) continue;
      const index = waiting.findIndex((task) => (running.get(task.key) ?? 0) < options.perKey);
      if (index < 0) return;
      const task = waiting.splice(index, 1)[0] as Task;
      slot.task = task;
      count(task.key, 1);
      if (!slot.worker) spawn(slot);
      else if (slot.ready) start(slot);
    }
  }

  return {
    run(key, job) {
      if (closed) return Promise.reject(refused('UNAVAILABLE', 'the service is shutting down'));
      const queued = waiting.filter((task) => task.key === key).length;
      if (queued >= options.perKeyWaiting)
        return Promise.reject(refused('RATE_LIMITED', 'this key has as many traces under way as it may'));
      if (waiting.length >= options.maxWaiting)
        return Promise.reject(refused('UNAVAILABLE', 'too many traces are waiting'));
      return new Promise<TraceOutcome>((resolve, reject) => {
        waiting.push({ key, job, resolve, reject });
        dispatch();
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
export function inProcessRunner(run: (job: TraceJob) => TraceOutcome): TraceRunner {
  return {
    run: async (_key, job) => run(job),
    close: async () => {},
  };
}
