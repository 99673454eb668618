// The proxy scenario (`npm run bench -- --proxy`): requests per second and latency through
// `rulekeeper proxy` with 0, 100 and 1,000 active rules (none of which acts on the measured request,
// as most rules of a real workspace do not), against the same upstream asked directly, over HTTP and
// HTTPS. The client keeps `connections` requests in flight for `duration` seconds.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { generateCACertificate } from 'mockttp';
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import { mixedRule } from './engine-scenario.js';
import { startProcess, startService } from './processes.js';
import { type Target, targetList } from './report.js';
import { issueKey, pool, post } from './seed-api.js';

export interface ProxyFacts {
  scheme: 'http' | 'https';
  via: string;
  rules: number;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  /** One request at a time: the latency a request sees, without queueing behind the others. */
  alone_p50_ms: number;
  /**
   * Answers other than the upstream's 200. mockttp now and then takes a loopback client for a loop
   * (its port equals the local port of one of its own connections to a loopback upstream) and
   * answers 500; with 50 connections on loopback that is a few in a run.
   */
  errors: number;
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
async function load(url: string, dispatcher: Dispatcher, connections: number, seconds: number, warmup = 0) {
  if (warmup > 0) await load(url, dispatcher, connections, warmup);
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const began = performance.now();
        const response = await request(url, { dispatcher });
        await response.body.text();
        if (response.headers['x-rulekeeper-rules']) throw new Error('a rule acted on the measured request');
        // Counted, not thrown: see "errors" in ProxyFacts.
        if (response.statusCode === 200) latencies.push(performance.now() - began);
        else errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 100) / 100;
  return {
    requests_per_s: Math.round(latencies.length / seconds),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    errors,
  };
}

/** The loaded run, then a run of one connection for the latency a lone request sees. */
async function measure(
  url: string,
  dispatcher: Dispatcher,
  connections: number,
  seconds: number,
  warmup: number,
) {
  const loaded = await load(url, dispatcher, connections, seconds, warmup);
  const alone = await load(url, dispatcher, 1, Math.min(seconds, 2));
  return { ...loaded, alone_p50_ms: alone.p50_ms, errors: loaded.errors + alone.errors };
}

export async function measureProxy(
  dir: string,
  options: { connections: number; duration: number; warmup: number; ruleCounts: number[] },
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
  const databaseUrl = `sqlite:${join(tmp, 'proxy.db')}`;
  const { key } = await issueKey(databaseUrl, 'bench-proxy', 'bench-proxy-admin');
  const service = await startService('service (proxy rules)', databaseUrl);
  const facts: ProxyFacts[] = [];
  const record = (fact: ProxyFacts) => {
    facts.push(fact);
    log(
      `proxy ${fact.scheme} ${fact.via}${fact.via === 'proxy' ? ` (${fact.rules} rules)` : ''}: ${fact.requests_per_s} req/s, p50 ${fact.p50_ms} ms, p99 ${fact.p99_ms} ms; alone p50 ${fact.alone_p50_ms} ms; ${fact.errors} errors`,
    );
  };
  try {
    const caDir = join(tmp, 'ca');
    const upstreamCa = join(tmp, 'upstream.pem');
    writeFileSync(upstreamCa, cert.cert);
    // As the README says to: never on the command line.
    const keyFile = join(tmp, 'proxy.key');
    writeFileSync(keyFile, key, { mode: 0o600 });
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
          keyFile,
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
        const proxyCa = readFileSync(join(caDir, 'ca.pem'), 'utf8');
        for (const scheme of ['http', 'https'] as const) {
          const url = `${upstreams[scheme]}/api/items?page=2`;
          if (rules === options.ruleCounts[0]) {
            const direct = new Agent({ connect: { ca: cert.cert } });
            record({
              scheme,
              via: 'direct',
              rules: 0,
              ...(await measure(url, direct, options.connections, options.duration, options.warmup)),
            });
            await direct.close();
          }
          const viaProxy = new ProxyAgent({
            uri: `http://127.0.0.1:${proxy.port}`,
            requestTls: { ca: proxyCa },
          });
          record({
            scheme,
            via: 'proxy',
            rules,
            ...(await measure(url, viaProxy, options.connections, options.duration, options.warmup)),
          });
          await viaProxy.close();
        }
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

export function proxyTargets(facts: ProxyFacts[]): Target[] {
  const [list, add] = targetList();
  for (const scheme of ['http', 'https'] as const) {
    const of = (rules: number) =>
      facts.find((f) => f.scheme === scheme && f.via === 'proxy' && f.rules === rules);
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
