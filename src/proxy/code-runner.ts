// A rule's `code` run for the proxy (with --allow-code) in a worker thread that has hard time and
// memory limits, so that no code can hang or exhaust the proxy: one that overruns is terminated (V8
// stops it whatever it is doing: a loop, a getter, a chain of microtasks) and a fresh worker replaces it.
//
// The call is synchronous for its caller: the main thread waits on a shared flag (Atomics.wait) for at
// most the time limit, then reads the worker's answer from a message port without its event loop. The
// proxy is therefore held for at most the time limit per call, as a `vm` timeout would, but unlike
// one, the limit also holds for microtasks and for what the code's answer does when it is read.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

export class CodeError extends Error {}

/** How long a fresh worker may take to start before a call is given up (a loaded machine is slow). */
const STARTUP_MS = 10_000;

// States of the shared flag: the main thread posts a job (POSTED), the worker takes it (STARTED),
// then answers on the port (DONE). READY (index 1) says the worker has started.
const POSTED = 0;
const STARTED = 1;
const DONE = 2;

// Plain JavaScript, evaluated as the worker's script, so that it runs the same from src/ and dist/.
// The answer is turned into text inside the timed evaluation: a getter that throws or loops is the
// code's failure, within its limit. `afterEvaluate` runs the code's microtasks within the limit too.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { runInNewContext } = require('node:vm');
const { flags, port } = workerData;
Atomics.store(flags, 1, 1);
Atomics.notify(flags, 1);
parentPort.on('message', ({ source, args, timeoutMs }) => {
  Atomics.store(flags, 0, ${STARTED});
  Atomics.notify(flags, 0);
  let answer;
  try {
    const text = runInNewContext(
      '(() => { const result = (' + source + ')(args);' +
        " if (result !== null && typeof result === 'object' && typeof result.then === 'function') return { async: true };" +
        " return { text: typeof result === 'string' ? result : String(JSON.stringify(result === undefined ? null : result)) }; })()",
      { args },
      { timeout: timeoutMs, microtaskMode: 'afterEvaluate' },
    );
    answer = text.async ? { error: 'asynchronous code is not supported' } : { text: String(text.text) };
  } catch (error) {
    let message = 'it threw';
    try { message = String(error && error.message !== undefined ? error.message : error); } catch {}
    answer = { error: message.slice(0, 500) };
  }
  port.postMessage(answer);
  Atomics.store(flags, 0, ${DONE});
  Atomics.notify(flags, 0);
});
`;

export interface CodeRunnerOptions {
  timeoutMs: number;
  /** The worker's heap limit (old generation). */
  memoryMb: number;
}

export interface CodeRunner {
  /** The code's answer as text (objects as JSON); a CodeError says why there is none. */
  run(source: string, args: Record<string, unknown>): string;
  stop(): Promise<void>;
}

interface Running {
  worker: Worker;
  flags: Int32Array;
  port: MessagePort;
}

export function createCodeRunner(options: CodeRunnerOptions): CodeRunner {
  let current: Running | undefined;

  function spawn(): Running {
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { flags, port: port2 },
      transferList: [port2],
      resourceLimits: {
        maxOldGenerationSizeMb: options.memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.ceil(options.memoryMb / 4)),
        codeRangeSizeMb: 16,
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
    });
    // A worker that ran out of memory or was terminated is replaced on the next call.
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (current?.worker === worker) current = undefined;
      port1.close();
    });
    worker.unref();
    return { worker, flags, port: port1 };
  }

  function end(running: Running): void {
    if (current === running) current = undefined;
    void running.worker.terminate();
    // Start the next one now, so that it is ready by the next call.
    current = spawn();
  }

  // Started at once: a worker's start-up is not counted against a call's time limit.
  current = spawn();

  return {
    run(source, args) {
      const running = current ?? spawn();
      current = running;
      const { flags } = running;
      if (Atomics.load(flags, 1) !== 1 && Atomics.wait(flags, 1, 0, STARTUP_MS) === 'timed-out') {
        end(running);
        throw new CodeError('the code worker did not start in time');
      }
      Atomics.store(flags, 0, POSTED);
      running.worker.postMessage({ source, args: structuredClone(args), timeoutMs: options.timeoutMs });
      // The worker takes the job within its start-up allowance, then has the time limit to answer.
      if (Atomics.wait(flags, 0, POSTED, STARTUP_MS) === 'timed-out') {
        end(running);
        throw new CodeError('the code worker did not take the call in time');
      }
      if (Atomics.load(flags, 0) !== DONE) Atomics.wait(flags, 0, STARTED, options.timeoutMs + 50);
      const message = Atomics.load(flags, 0) === DONE ? receiveMessageOnPort(running.port) : undefined;
      if (!message) {
        end(running);
        throw new CodeError(
          `the rule's code was stopped: it ran longer than ${options.timeoutMs} ms or used more than ${options.memoryMb} MB`,
        );
      }
      const answer = message.message as { text?: string; error?: string };
      if (answer.error !== undefined) throw new CodeError(`the rule's code failed: ${answer.error}`);
      return answer.text ?? '';
    },
    async stop() {
      const running = current;
      current = undefined;
      if (running) await running.worker.terminate();
    },
  };
}
