// How long /healthz waits while one workspace's browser rules compile (GET /v1/browser-rules over
// 100,000 rules, the first time: nothing kept). Runs the service from the sources as a child process on
// a temporary SQLite file, imports the rules, samples /healthz one request at a time while nothing
// runs (quiet), then while the compile runs; then times the answer kept for the revision and a compile
// after one change; prints the figures and the service's peak memory. Nothing is asserted.
//
//   npx tsx bench/browser-rules-healthz.ts [rules] [KEY=VALUE settings of the service...]
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from './lib/noisy-neighbour.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MAIN = join(ROOT, 'src/cli/main.ts');
const RULES = Number(process.argv[2] ?? 100_000);
const SETTINGS = Object.fromEntries(
  process.argv.slice(3).map((arg) => arg.split('=', 2) as [string, string]),
);
const IMPORT_BATCH = 20_000;
const QUIET_MS = 3000;

/** Rule `n`, every one different (nothing shared between rules' translations): most compile to Chrome's rules. */
function rule(n: number): Record<string, unknown> {
  const base = { objectType: 'rule', name: `rule ${n}`, status: 'Active' };
  const source = { key: 'Url', operator: 'Contains', value: `host-${n}.example/page` };
  switch (n % 5) {
    case 0:
      return {
        ...base,
        ruleType: 'Redirect',
        pairs: [{ source, destinationType: 'url', destination: `https://to-${n}.example/` }],
      };
    case 1:
      return { ...base, ruleType: 'Cancel', pairs: [{ source }] };
    case 2:
      return { ...base, ruleType: 'Replace', pairs: [{ source, from: 'page', to: `other-${n}` }] };
    case 3:
      return {
        ...base,
        ruleType: 'Cancel',
        pairs: [
          { source: { key: 'Url', operator: 'Matches', value: `/^https://h${n}\\.example/(a|b)+\\d{2}/` } },
        ],
      };
    default:
      return {
        ...base,
        ruleType: 'Headers',
        pairs: [
          {
            source,
            modifications: [{ Request: [{ type: 'Add', header: `x-rule-${n}`, value: `${n}` }] }],
          },
        ],
      };
  }
}

const node = (args: string[], env: Record<string, string>) =>
  spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = node(['serve'], env);
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`service exited (${code}):\n${text}`)));
  });
  return { child, url };
}

/** Latencies of `ask()`, one request at a time, until `done()`. */
async function sample(ask: () => Promise<Response>, done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!done()) {
    const began = performance.now();
    await (await ask()).text();
    latencies.push(performance.now() - began);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return latencies;
}

/** The process's peak resident memory, in MiB (Linux). */
const peakMb = (pid: number) =>
  Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);

const figures = (latencies: number[]) => ({
  samples: latencies.length,
  p50_ms: Math.round(percentile(latencies, 0.5) * 10) / 10,
  p99_ms: Math.round(percentile(latencies, 0.99) * 10) / 10,
  max_ms: Math.round(percentile(latencies, 1) * 10) / 10,
});

const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-dnr-bench-'));
const env = {
  DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
  LOG_LEVEL: 'warn',
  PORT: '0',
  HOST: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '0',
  MAX_IMPORT_BYTES: '104857600',
  IMPORT_TIME_LIMIT_MS: '1200000',
  REQUEST_TIMEOUT_MS: '600000',
  ...SETTINGS,
};
let service: ChildProcess | undefined;
try {
  execFileSync(process.execPath, ['--import', 'tsx', MAIN, 'migrate'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  const { key } = JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', MAIN, 'keys', 'create', '--workspace', 'big', '--user', 'a', '--json'],
      { cwd: ROOT, env: { ...process.env, ...env } },
    ).toString(),
  ) as { key: string };
  const started = await serve(env);
  service = started.child;
  const { url } = started;
  for (let from = 0; from < RULES; from += IMPORT_BATCH) {
    const records = Array.from({ length: Math.min(IMPORT_BATCH, RULES - from) }, (_, i) => rule(from + i));
    const reply = await fetch(`${url}/v1/import`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(records),
    });
    if (reply.status !== 200) throw new Error(`import answered ${reply.status}: ${await reply.text()}`);
    await reply.text();
  }
  // The imports' lints, if any still run, are over before the quiet phase.
  await fetch(`${url}/v1/lint`, { headers: { 'x-api-key': key } }).then((r) => r.text());

  const healthz = () => fetch(`${url}/healthz`);
  const quietUntil = performance.now() + QUIET_MS;
  const quiet = await sample(healthz, () => performance.now() > quietUntil);

  let compiled = false;
  const began = performance.now();
  const compile = fetch(`${url}/v1/browser-rules`, { headers: { 'x-api-key': key } }).then(async (reply) => {
    const text = await reply.text();
    compiled = true;
    return { status: reply.status, bytes: text.length, seconds: (performance.now() - began) / 1000 };
  });
  const during = await sample(healthz, () => compiled);
  const answer = await compile;

  /** Milliseconds GET /v1/browser-rules takes now. */
  const timed = async () => {
    const began = performance.now();
    await (await fetch(`${url}/v1/browser-rules`, { headers: { 'x-api-key': key } })).text();
    return Math.round(performance.now() - began);
  };
  const keptMs = await timed();
  // One rule more moves the revision: compiled again, with the other rules' translations kept.
  const added = await fetch(`${url}/v1/rules`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ ...rule(RULES), objectType: undefined }),
  });
  if (added.status !== 201) throw new Error(`the write answered ${added.status}: ${await added.text()}`);
  const recompiledMs = await timed();

  console.log(
    JSON.stringify(
      {
        rules: RULES,
        settings: SETTINGS,
        compile: {
          status: answer.status,
          bytes: answer.bytes,
          seconds: Math.round(answer.seconds * 10) / 10,
        },
        kept_answer_ms: keptMs,
        recompile_after_one_change_ms: recompiledMs,
        healthz_quiet: figures(quiet),
        healthz_during_compile: figures(during),
        service_peak_rss_mb: service?.pid ? peakMb(service.pid) : undefined,
      },
      null,
      2,
    ),
  );
} finally {
  service?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
