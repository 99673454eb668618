// The proxy scenario (`npm run bench -- --proxy`): requests per second and latency, in one run, of the
// same upstream asked directly, through the ceilings of a Node proxy (bench/bare-proxy.mjs: HTTP
// forwarded, HTTPS tunnelled, and HTTPS intercepted by a bare TLS-terminating proxy), through mitmdump
// when installed, and through `rulekeeper proxy` with 0, 100 and 1,000 active rules (none of which acts
// on the measured request, as most rules of a real workspace do not), over HTTP and HTTPS. The client
// keeps `connections` requests in flight for `duration` seconds. An answer other than the upstream's
// 200 is an error: each is printed, and any fails the run (see run.ts).

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCACertificate } from 'mockttp';
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import { mixedRule } from './engine-scenario.js';
import { cpuSeconds, freePort, startProcess, startProgram, startService, waitForHttp } from './processes.js';
import { type Target, targetList } from './report.js';
import { issueKey, pool, post } from './seed-api.js';

const BARE_PROXY = fileURLToPath(new URL('../bare-proxy.mjs', import.meta.url));
export const MITMDUMP = process.env.BENCH_MITMDUMP ?? '/usr/bin/mitmdump';

/** What the client went through: `bare` forwards HTTP and tunnels HTTPS, `bare-tls` intercepts HTTPS. */
export type Via = 'direct' | 'bare' | 'bare-tls' | 'mitmdump' | 'proxy';

export interface ProxyFacts {
  scheme: 'http' | 'https';
  via: Via;
  rules: number;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  /** CPU time (user + system) of the proxy process per answer under load; none for direct. */
  cpu_us_per_request?: number;
  /** One request at a time: the latency a request sees, without queueing behind the others. */
  alone_p50_ms: number;
  /** Answers other than the upstream's 200, and requests that failed (connection errors). */
  errors: number;
  /** Each kind of error seen ("500: <first line of its body>", or the failure's message) and its count. */
  error_kinds: Record<string, number>;
}

async function listen(server: Server): Promise<number> {
  // IPv4 only, as most development servers listen.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/**
 * `connections` loops of requests for `seconds`, after `warmup` seconds of the same whose figures are
 * dropped (connections opened, TLS certificates made); each answer must be the upstream's 200.
 */
async function load(
  url: string,
  dispatcher: Dispatcher,
  connections: number,
  seconds: number,
  warmup = 0,
  pid?: number,
) {
  const warm = warmup > 0 ? await load(url, dispatcher, connections, warmup) : undefined;
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const latencies: number[] = [];
  const kinds: Record<string, number> = { ...warm?.error_kinds };
  const count = (kind: string) => {
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  };
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const began = performance.now();
        try {
          const response = await request(url, { dispatcher });
          const text = await response.body.text();
          if (response.headers['x-rulekeeper-rules']) throw new Error('a rule acted on the measured request');
          if (response.statusCode === 200) latencies.push(performance.now() - began);
          else count(`${response.statusCode}: ${text.split('\n')[0]?.slice(0, 160)}`);
        } catch (error) {
          if ((error as Error).message.startsWith('a rule acted')) throw error;
          count(`failed: ${(error as Error).message}`);
        }
      }
    }),
  );
  const cpu = pid ? cpuSeconds(pid) - cpuBefore : undefined;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 100) / 100;
  return {
    requests_per_s: Math.round(latencies.length / seconds),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    cpu_us_per_request:
      cpu !== undefined && latencies.length > 0 ? Math.round((cpu * 1e6) / latencies.length) : undefined,
    errors: Object.values(kinds).reduce((a, b) => a + b, 0),
    error_kinds: kinds,
  };
}

/** The loaded run, then a run of one connection for the latency a lone request sees. */
async function measure(
  url: string,
  dispatcher: Dispatcher,
  connections: number,
  seconds: number,
  warmup: number,
  aloneSeconds: number,
  pid?: number,
) {
  const loaded = await load(url, dispatcher, connections, seconds, warmup, pid);
  const alone = await load(url, dispatcher, 1, aloneSeconds);
  const kinds = { ...loaded.error_kinds };
  for (const [kind, n] of Object.entries(alone.error_kinds)) kinds[kind] = (kinds[kind] ?? 0) + n;
  return { ...loaded, alone_p50_ms: alone.p50_ms, errors: loaded.errors + alone.errors, error_kinds: kinds };
}

/** mitmdump on a free port, its CA made in `confdir`; undefined (and why) when it is not installed. */
async function startMitmdump(confdir: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const mitm = await startProgram(
    'mitmdump',
    MITMDUMP,
    [
      '--quiet',
      '--listen-host',
      '127.0.0.1',
      '--listen-port',
      String(port),
      '--set',
      `confdir=${confdir}`,
      // The bench's upstream is self-signed on loopback: mitmdump would refuse it otherwise.
      '--ssl-insecure',
    ],
    () => waitForHttp(url).then(() => url),
  );
  return { ...mitm, port, ca: readFileSync(join(confdir, 'mitmproxy-ca-cert.pem'), 'utf8') };
}

export async function measureProxy(
  dir: string,
  options: {
    connections: number;
    duration: number;
    warmup: number;
    /** Seconds of one request at a time after each loaded run. */
    alone: number;
    ruleCounts: number[];
  },
  log: (line: string) => void,
): Promise<ProxyFacts[]> {
  const tmp = mkdtempSync(join(dir, 'proxy-'));
  const cert = await generateCACertificate({ subject: { commonName: 'localhost' } });
  const body = JSON.stringify({
    items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })),
  });
  const handler = (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  const upstreams = {
    http: `http://127.0.0.1:${await listen(createHttpServer(handler))}`,
    https: `https://localhost:${await listen(createHttpsServer({ key: cert.key, cert: cert.cert }, handler))}`,
  };
  const url = (scheme: 'http' | 'https') => `${upstreams[scheme]}/api/items?page=2`;
  const facts: ProxyFacts[] = [];
  const record = (fact: ProxyFacts) => {
    facts.push(fact);
    log(
      `proxy ${fact.scheme} ${fact.via}${fact.via === 'proxy' ? ` (${fact.rules} rules)` : ''}: ${fact.requests_per_s} req/s, p50 ${fact.p50_ms} ms, p99 ${fact.p99_ms} ms${fact.cpu_us_per_request ? `, ${fact.cpu_us_per_request} µs CPU/request` : ''}; alone p50 ${fact.alone_p50_ms} ms; ${fact.errors} errors`,
    );
    for (const [kind, n] of Object.entries(fact.error_kinds)) log(`  ! ${n} × ${kind}`);
  };
  /** Each scheme through one proxy (`proxyUrl`), or directly; `tlsCa` is what the client trusts. */
  const both = async (
    via: Via,
    rules: number,
    proxyUrl: string | undefined,
    tlsCa: string,
    pid?: number,
    schemes: readonly ('http' | 'https')[] = ['http', 'https'],
  ) => {
    for (const scheme of schemes) {
      const dispatcher = proxyUrl
        ? new ProxyAgent({
            uri: proxyUrl,
            requestTls: { ca: tlsCa },
            // Plain HTTP in absolute form, as browsers and curl send it to a proxy; HTTPS in a tunnel.
            proxyTunnel: scheme === 'https',
          })
        : new Agent({ connect: { ca: tlsCa } });
      try {
        record({
          scheme,
          via,
          rules,
          ...(await measure(
            url(scheme),
            dispatcher,
            options.connections,
            options.duration,
            options.warmup,
            options.alone,
            pid,
          )),
        });
      } finally {
        await dispatcher.close();
      }
    }
  };

  await both('direct', 0, undefined, cert.cert);
  const keyFile = join(tmp, 'upstream.key');
  const upstreamCa = join(tmp, 'upstream.pem');
  writeFileSync(keyFile, cert.key, { mode: 0o600 });
  writeFileSync(upstreamCa, cert.cert);
  const bare = await startProgram(
    'bare proxy',
    process.execPath,
    [BARE_PROXY, keyFile, upstreamCa],
    async (output) => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        const match = /listening on (http:\/\/[\d.]+:\d+) terminating (\d+)/.exec(output());
        if (match?.[1]) return `${match[1]}/${match[2]}`;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error('bare proxy printed no port');
    },
  );
  try {
    const [forward, terminating] = bare.url.split(/\/(?=\d+$)/) as [string, string];
    // The bare proxy ends TLS with the upstream's own certificate, which the client trusts.
    await both('bare', 0, forward, cert.cert, bare.pid);
    await both('bare-tls', 0, `http://127.0.0.1:${terminating}`, cert.cert, bare.pid, ['https']);
  } finally {
    await bare.stop();
  }
  if (existsSync(MITMDUMP)) {
    const mitm = await startMitmdump(join(tmp, 'mitmproxy'));
    try {
      await both('mitmdump', 0, mitm.url, mitm.ca, mitm.pid);
    } finally {
      await mitm.stop();
    }
  } else log(`mitmdump skipped: ${MITMDUMP} is not installed (Debian: apt-get install mitmproxy)`);

  const databaseUrl = `sqlite:${join(tmp, 'proxy.db')}`;
  const { key } = await issueKey(databaseUrl, 'bench-proxy', 'bench-proxy-admin');
  const service = await startService('service (proxy rules)', databaseUrl);
  try {
    const caDir = join(tmp, 'ca');
    // As the README says to: never on the command line.
    const proxyKeyFile = join(tmp, 'proxy.key');
    writeFileSync(proxyKeyFile, key, { mode: 0o600 });
    let created = 0;
    for (const rules of options.ruleCounts) {
      await pool(rules - created, 8, (i) =>
        post(`${service.url}/v1/rules`, key, { ...mixedRule(created + i), status: 'Active' }),
      );
      created = rules;
      const proxy = await startProcess(
        `proxy (${rules} rules)`,
        [
          'proxy',
          '--server',
          service.url,
          '--key-file',
          proxyKeyFile,
          '--port',
          '0',
          '--ca-dir',
          caDir,
          '--upstream-ca',
          upstreamCa,
        ],
        (output) =>
          new RegExp(`following .*: ${rules} rules[\\s\\S]*listening on port (\\d+)`).exec(output)?.[1],
      );
      try {
        await both(
          'proxy',
          rules,
          `http://127.0.0.1:${proxy.port}`,
          readFileSync(join(caDir, 'ca.pem'), 'utf8'),
          proxy.pid,
        );
      } catch (error) {
        // What the proxy said is what explains a failed answer.
        throw new Error(`${(error as Error).message}\nthe proxy printed:\n${proxy.output().slice(-2000)}`);
      } finally {
        await proxy.stop();
      }
    }
  } finally {
    await service.stop();
  }
  return facts;
}

/** The table of a run: one row per way through, req/s and p50 per scheme, and the errors. */
export function proxyTable(facts: ProxyFacts[]): string {
  const rows = new Map<string, Partial<Record<'http' | 'https', ProxyFacts>>>();
  for (const fact of facts) {
    const name = fact.via === 'proxy' ? `rulekeeper proxy, ${fact.rules} rules` : fact.via;
    rows.set(name, { ...rows.get(name), [fact.scheme]: fact });
  }
  const cell = (f: ProxyFacts | undefined) =>
    f
      ? `${String(f.requests_per_s).padStart(7)} ${f.p50_ms.toFixed(2).padStart(7)} ${String(f.cpu_us_per_request ?? '-').padStart(6)} ${String(f.errors).padStart(6)}`
      : `${'-'.padStart(7)} ${'-'.padStart(7)} ${'-'.padStart(6)} ${'-'.padStart(6)}`;
  const width = Math.max(...[...rows.keys()].map((k) => k.length), 10);
  const columns = `${'p50 ms'.padStart(7)} ${'µs CPU'.padStart(6)} ${'errors'.padStart(6)}`;
  const head = `  ${''.padEnd(width)}  ${'HTTP req/s'.padStart(10)} ${columns}  ${'HTTPS req/s'.padStart(11)} ${columns}`;
  const lines = [...rows].map(
    ([name, r]) => `  ${name.padEnd(width)}  ${cell(r.http).padStart(32)}  ${cell(r.https).padStart(33)}`,
  );
  return [head, ...lines].join('\n');
}

/** Every error any way through answered: the run's check of itself fails on any. */
export function proxyErrors(facts: ProxyFacts[]): string[] {
  return facts
    .filter((f) => f.errors > 0)
    .map(
      (f) =>
        `${f.scheme} via ${f.via}${f.via === 'proxy' ? ` (${f.rules} rules)` : ''}: ${Object.entries(
          f.error_kinds,
        )
          .map(([kind, n]) => `${n} × ${kind}`)
          .join('; ')}`,
    );
}

export function proxyTargets(facts: ProxyFacts[]): Target[] {
  const [list, add] = targetList();
  const rate = (scheme: string, via: Via, rules = 0) =>
    facts.find((f) => f.scheme === scheme && f.via === via && f.rules === rules)?.requests_per_s;
  const ratio = (a: number | undefined, b: number | undefined) => (a && b ? a / b : undefined);
  add(
    'proxy https, no rules / mitmdump (x)',
    ratio(rate('https', 'proxy'), rate('https', 'mitmdump')),
    2,
    '>=',
  );
  add(
    'proxy http, no rules / bare Node proxy',
    ratio(rate('http', 'proxy'), rate('http', 'bare')),
    0.7,
    '>=',
  );
  for (const scheme of ['http', 'https'] as const) {
    const of = (rules: number) =>
      facts.find((f) => f.scheme === scheme && f.via === 'proxy' && f.rules === rules);
    add(
      `errors answered, ${scheme}, every way through`,
      facts.filter((f) => f.scheme === scheme).reduce((n, f) => n + f.errors, 0),
      0,
      '<=',
    );
    const none = of(0);
    const most = of(1000);
    if (!none || !most) continue;
    add(
      `proxy ${scheme}: rate with 1,000 rules / rate with none`,
      most.requests_per_s / none.requests_per_s,
      0.7,
      '>=',
    );
    const added = Math.round((most.alone_p50_ms - none.alone_p50_ms) * 1000) / 1000;
    add(`proxy ${scheme}: p50 added by 1,000 rules, one request at a time (ms)`, added, 1, '<=');
  }
  return list;
}

/** Ratios printed for information: how far each way through is from the others. */
export function proxyRatios(facts: ProxyFacts[]): string {
  const rate = (scheme: string, via: Via, rules = 0) =>
    facts.find((f) => f.scheme === scheme && f.via === via && f.rules === rules)?.requests_per_s;
  const lines: string[] = [];
  const line = (label: string, a: number | undefined, b: number | undefined) => {
    if (a && b) lines.push(`  ${label.padEnd(58)} ${(a / b).toFixed(2)}`);
  };
  for (const rules of [...new Set(facts.filter((f) => f.via === 'proxy').map((f) => f.rules))]) {
    line(
      `http,  proxy (${rules} rules) / bare Node forwarding proxy`,
      rate('http', 'proxy', rules),
      rate('http', 'bare'),
    );
    line(`http,  proxy (${rules} rules) / mitmdump`, rate('http', 'proxy', rules), rate('http', 'mitmdump'));
    line(
      `https, proxy (${rules} rules) / bare Node TLS-terminating proxy`,
      rate('https', 'proxy', rules),
      rate('https', 'bare-tls'),
    );
    line(
      `https, proxy (${rules} rules) / mitmdump`,
      rate('https', 'proxy', rules),
      rate('https', 'mitmdump'),
    );
    line(`https, proxy (${rules} rules) / direct`, rate('https', 'proxy', rules), rate('https', 'direct'));
  }
  line('https, bare TLS-terminating / bare tunnel', rate('https', 'bare-tls'), rate('https', 'bare'));
  line('https, mitmdump / bare TLS-terminating', rate('https', 'mitmdump'), rate('https', 'bare-tls'));
  return lines.join('\n');
}
