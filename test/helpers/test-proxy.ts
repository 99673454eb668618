// Shared parts of the proxy's attack suites: a proxy on loopback over rules compiled by the engine (the
// rule feed, which only keeps such a set current, is tested with a real server in test/system), and
// raw HTTP through it, so that a test sends exactly the bytes an attacker would.
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileRuleSet, type EngineRule } from '../../src/engine/index.js';
import { ensureCa } from '../../src/proxy/ca.js';
import { type ProxyOptions, startProxy } from '../../src/proxy/proxy-server.js';

export interface TestProxy {
  port: number;
  /** The proxy's CA certificate (PEM). */
  ca: string;
  logged: string[];
  setRules(rules: Partial<EngineRule>[]): void;
  stop(): Promise<void>;
}

let counter = 0;

/** A proxy whose rules the test sets; `options` overrides the defaults (no code, 1 MiB bodies). */
export async function testProxy(options: Partial<ProxyOptions> = {}): Promise<TestProxy> {
  const ca = await ensureCa(join(mkdtempSync(join(tmpdir(), 'rulekeeper-proxy-attacks-')), 'ca'));
  let rules = compileRuleSet([]);
  const logged: string[] = [];
  const proxy = await startProxy({
    port: 0,
    ca,
    feed: { current: () => rules },
    allowCode: false,
    codeTimeoutMs: 500,
    upstreamTimeoutMs: 60_000,
    maxBodyBytes: 1024 * 1024,
    log: (message) => logged.push(message),
    ...options,
  });
  return {
    port: proxy.port,
    ca: ca.cert,
    logged,
    setRules(list) {
      rules = compileRuleSet(
        list.map((rule) => ({
          id: `rule_${++counter}`,
          name: 'attack',
          status: 'Active',
          ruleType: 'Headers',
          pairs: [],
          ...rule,
        })),
      );
    },
    stop: proxy.stop,
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  body: Buffer;
}

/** One request through the proxy (absolute form), with any headers Node lets a client send. */
export function viaProxy(
  proxyPort: number,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; host?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: init.host ?? '127.0.0.1',
        port: proxyPort,
        path: url,
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** What a raw TCP client reads back for `text`, until the proxy closes or `until` matches. */
export function rawExchange(host: string, port: number, text: string, until: RegExp = /$^/): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => socket.write(text));
    let seen = '';
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      if (until.test(seen)) {
        socket.destroy();
        resolve(seen);
      }
    });
    socket.on('end', () => resolve(seen));
    socket.on('close', () => resolve(seen));
    socket.on('error', (error) => (seen ? resolve(seen) : reject(error)));
  });
}

/** This machine's own network address: a client connecting through it is another machine to the proxy. */
export const EXTERNAL = Object.values(networkInterfaces())
  .flat()
  .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
