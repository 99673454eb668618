// The processes under load (the service, the bare-node ceiling, json-server), each a child process, and
// what /proc tells about them: peak resident memory and CPU time.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CEILING = fileURLToPath(new URL('../ceiling-server.mjs', import.meta.url));
const CREATE_CEILING = fileURLToPath(new URL('../ceiling-create-server.mjs', import.meta.url));

export interface Child {
  name: string;
  child: ChildProcess;
  pid: number;
  url: string;
  /** Milliseconds from spawn until it accepted connections. */
  startupMs: number;
  /** What it printed (the last 64 kB). */
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<Child>();

/** bin/rulekeeper.js of the build under test (see snapshotBuild). */
let BIN = fileURLToPath(new URL('../../bin/rulekeeper.js', import.meta.url));

export function useServiceBinary(path: string): void {
  BIN = path;
}

/** Ends every child still running; for exits on errors and signals. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
}

function track(name: string, child: ChildProcess, url: string, startupMs: number, text: () => string): Child {
  const exited = child.exitCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined);
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping)
      process.stderr.write(`! ${name} (pid ${child.pid}) ended unexpectedly: ${signal ?? `code ${code}`}\n`);
  });
  const handle: Child = {
    name,
    child,
    pid: child.pid ?? 0,
    url,
    startupMs,
    output: text,
    async stop() {
      stopping = true;
      running.delete(handle);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  running.add(handle);
  return handle;
}

/** Waits for a child to be ready; resolves with its URL. `output` is what it printed so far. */
type ReadyCheck = (output: () => string) => Promise<string>;

/** Waits until the output shows `listening on http://…`, as the service and the ceiling print. */
const printsListening: ReadyCheck = async (output) => {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output());
    if (match?.[1]) return match[1];
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no "listening on" line');
};

/** Spawns node with `args` and resolves once `ready` says it serves; rejects if it exits first. */
async function start(
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: ReadyCheck,
  cwd = ROOT,
  command = process.execPath,
): Promise<Child> {
  const began = performance.now();
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const onData = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-65_536);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${text}`)),
    );
    timer = setTimeout(() => reject(new Error(`${name} not ready after 120 s:\n${text}`)), 120_000);
  });
  try {
    const url = await Promise.race([ready(() => text), failed]);
    return track(name, child, url, performance.now() - began, () => text);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
    failed.catch(() => {});
  }
}

function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
}

/** `rulekeeper serve` on a free port: warnings only, no rate limit, fanout's 1,000 streams on one key allowed. */
export function startService(name: string, databaseUrl: string, extra: Record<string, string> = {}) {
  const env = {
    ...baseEnv(),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_STREAMS_PER_KEY: '5000',
    ...extra,
  };
  return start(name, [BIN, 'serve'], env, printsListening);
}

/** `rulekeeper ...args` (the proxy), ready once `portOf` finds its port in what it printed. */
export async function startProcess(
  name: string,
  args: string[],
  portOf: (output: string) => string | undefined,
): Promise<Child & { port: number }> {
  const ready: ReadyCheck = async (output) => {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
      const port = portOf(output());
      if (port) return `http://127.0.0.1:${port}`;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`${name} printed no port`);
  };
  // BENCH_PROXY_NODE_OPTIONS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the proxy under load.
  const profile = process.env.BENCH_PROXY_NODE_OPTIONS;
  const child = await start(
    name,
    [BIN, ...args],
    { ...baseEnv(), ...(profile ? { NODE_OPTIONS: profile } : {}) },
    ready,
  );
  return Object.assign(child, { port: Number(new URL(child.url).port) });
}

/**
 * Another program under load (bench/bare-proxy.mjs under node, mitmdump), ready once `ready` resolves
 * with its URL; `ready` is handed what it printed so far.
 */
export function startProgram(
  name: string,
  command: string,
  args: string[],
  ready: (output: () => string) => Promise<string>,
): Promise<Child> {
  return start(name, args, baseEnv(), ready, ROOT, command);
}

/** `rulekeeper ...args` against `databaseUrl`; its stdout, or an error with everything it printed. */
export function runCli(args: string[], databaseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...baseEnv(), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`rulekeeper ${args.join(' ')} failed (${code}):\n${stderr}${stdout}`)),
    );
  });
}

/** What the ceiling server answers: the recorded status, headers and body of one service response. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The bare node:http server; `list` for paths with a query string, `get` for the others. */
export function startCeiling(file: string, responses: { get: RecordedResponse; list: RecordedResponse }) {
  writeFileSync(file, JSON.stringify(responses));
  return start('ceiling', [CEILING, file], baseEnv(), printsListening);
}

/** The bare node:http durable-write ceiling on `database` (`sqlite:FILE` or a PostgreSQL URL). */
export function startCreateCeiling(name: string, database: string) {
  return start(name, [CREATE_CEILING, database], baseEnv(), printsListening);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** json-server 0.17 on `dbFile` (in its own folder), without request logging. */
export async function startJsonServer(binary: string, dbFile: string, cwd: string): Promise<Child> {
  const url = `http://127.0.0.1:${await freePort()}`;
  const args = [binary, '--quiet', '--host', '127.0.0.1', '--port', new URL(url).port, dbFile];
  return start('json-server', args, baseEnv(), () => waitForHttp(url).then(() => url), cwd);
}

/** Waits until `url` answers an HTTP request (any status). */
export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms: ${error}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function status(pid: number): string {
  return readFileSync(`/proc/${pid}/status`, 'utf8');
}

function kilobytes(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match?.[1] ? Number(match[1]) : 0;
}

/**
 * Peak resident memory of a process over an interval: the kernel's high-water mark (VmHWM), reset at
 * the start through /proc/PID/clear_refs, and, where that reset is not allowed, the largest VmRSS
 * sampled every 50 ms.
 */
export class PeakMemory {
  private sampled = 0;
  private timer: NodeJS.Timeout | undefined;
  private resettable = true;

  constructor(private readonly pid: number) {}

  begin(): void {
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
    } catch {
      this.resettable = false;
    }
    this.sampled = kilobytes(status(this.pid), 'VmRSS');
    this.timer = setInterval(() => {
      try {
        this.sampled = Math.max(this.sampled, kilobytes(status(this.pid), 'VmRSS'));
      } catch {
        clearInterval(this.timer);
      }
    }, 50);
  }

  /** Peak in MB since begin(). */
  end(): number {
    clearInterval(this.timer);
    const text = status(this.pid);
    const rss = Math.max(this.sampled, kilobytes(text, 'VmRSS'));
    const peak = this.resettable ? Math.max(rss, kilobytes(text, 'VmHWM')) : rss;
    return peak / 1024;
  }
}

/** Peak resident memory since the process started (or since the last reset), in MB. */
export function highWaterMb(pid: number): number {
  return kilobytes(status(pid), 'VmHWM') / 1024;
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** USER_HZ; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/**
 * Waits until the process uses under 5 % of a CPU over a quarter second, at most `limitMs`: a server
 * that still works off requests queued before the load stopped would slow whatever runs next.
 * Resolves with the milliseconds waited.
 */
export async function waitIdle(pid: number, limitMs = 180_000): Promise<number> {
  const began = performance.now();
  for (;;) {
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const busy = (cpuSeconds(pid) - before) / 0.25;
    const waited = performance.now() - began;
    if (busy < 0.05 || waited > limitMs) return waited;
  }
}
