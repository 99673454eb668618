// startService: the real `rulekeeper serve` as a child process (compiled by the global setup), for
// tests that need real processes: crashes, signals, several instances on one database.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/rulekeeper.js', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `rulekeeper serve` on a free port with `env` and waits until it listens. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    // Passwords at scrypt's least cost, as in the api suite (test-app.ts).
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      PORT: '0',
      HOST: '127.0.0.1',
      PASSWORD_SCRYPT_N: '1024',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal })) as ServiceProcess['exited'];
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then(({ code, signal }) =>
      reject(new Error(`service exited (${code ?? signal}) before listening:\n${text}`)),
    );
  });
  return {
    child,
    url,
    output: () => text,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
