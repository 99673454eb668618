// `rulekeeper proxy` with real parts on loopback: a real Rulekeeper server (child process), a local
// upstream over HTTP and over HTTPS, the proxy, and an HTTP client that trusts the proxy's CA. Every
// rule type acts on real traffic as its trace says; a change through the API acts on the next request;
// the server going away and coming back; upstream failures.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import {
  createServer as createHttpsServer,
  type Server as HttpsServer,
  request as httpsRequest,
} from 'node:https';
import { createServer as createNetServer, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { chromium } from '@playwright/test';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { generateCACertificate, generateSPKIFingerprint } from 'mockttp';
import { fetch, ProxyAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { templateById } from '../../console/src/templates/templates.js';
import { ensureCa } from '../../src/proxy/ca.js';
import { createIssuer } from '../../src/proxy/leaf-certificate.js';
import { startProxy } from '../../src/proxy/proxy-server.js';
import { createRuleFeed, type RuleFeed } from '../../src/proxy/rule-feed.js';
import { createHitReporter, type HitReporter } from '../../src/runtime/index.js';
import { CHROMIUM, loadPage } from '../helpers/chromium.js';
import { createKeyWithCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';
import { viaProxy } from '../helpers/test-proxy.js';

type Json = Record<string, any>;

const run = promisify(execFile);
const CURL = ['/usr/bin/curl', '/usr/local/bin/curl'].find((path) => existsSync(path));

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const PAGE =
  '<!doctype html><html><head><title>shop</title></head><body><p>hello</p><script src="/old.js"></script></body></html>';

/**
 * A page on `localhost` that calls the same server as `127.0.0.1` (another origin): a credentialed GET
 * (no preflight) and a GET with a header of its own (a preflight), each result written on the body.
 */
const CORS_PAGE = `<!doctype html><html><body><script>
const api = location.protocol + '//127.0.0.1:' + location.port + '/api/cors';
const tell = (name, value) => document.body.setAttribute('data-' + name, value);
fetch(api, { credentials: 'include' }).then((r) => r.json()).then(() => tell('credentialed', 'ok'), (e) => tell('credentialed', 'blocked'));
fetch(api, { headers: { 'X-Test': '1' } }).then((r) => r.json()).then(() => tell('preflighted', 'ok'), (e) => tell('preflighted', 'blocked'));
</script></body></html>`;

/** The upstream: echoes what it received as JSON; /page.html is an HTML page with a strict CSP. */
function answer(method: string, url: string, headers: Json, body: string) {
  if (url === '/cors.html')
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: CORS_PAGE };
  if (url === '/new.js')
    return {
      status: 200,
      headers: { 'content-type': 'text/javascript' },
      body: "document.body.setAttribute('data-redirected', 'yes');",
    };
  if (url.startsWith('/page.html'))
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "script-src 'self'" },
      body: PAGE,
    };
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-upstream': 'yes' },
    body: JSON.stringify({ method, url, headers, body }),
  };
}

describe('rulekeeper proxy', () => {
  let database: ScratchDatabase;
  let service: ServiceProcess;
  let servicePort: number;
  let key: string;
  let feed: RuleFeed;
  /** The proxy's hit reporter: its timer is the default 10 s, so tests flush it themselves. */
  let hits: HitReporter;
  let proxy: { port: number; stop(): Promise<void> };
  let proxyOptions: Parameters<typeof startProxy>[0];
  let httpUpstream: Server;
  let httpsUpstream: HttpsServer;
  let upstreamHits = 0;
  let proxyCa: string;
  let proxyCaPath: string;
  /** HTTPS upstreams reached by address, one per loopback address, with certificates naming it. */
  const ipUpstreams = new Map<string, HttpsServer>();
  let filesDir: string;
  const logged: string[] = [];

  /** The upstream's handler, over HTTP and HTTPS alike; /reset drops the connection. */
  function upstream(req: IncomingMessage, res: ServerResponse) {
    upstreamHits++;
    if (req.url === '/never') return; // accepts the request and never answers
    if (req.url === '/reset') {
      req.socket.destroy();
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { status, headers, body: text } = answer(req.method ?? '', req.url ?? '', req.headers, body);
      res.writeHead(status, headers).end(text);
    });
  }
  const created: string[] = [];

  beforeAll(async () => {
    database = await scratchDatabase('sqlite');
    key = (await createKeyWithCli(database.url, 'proxy', 'qa')).key;
    servicePort = await freePort();
    service = await startService({
      DATABASE_URL: database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      PORT: String(servicePort),
    });

    httpUpstream = createServer(upstream);
    await new Promise<void>((resolve) => httpUpstream.listen(0, '127.0.0.1', resolve));

    // A self-signed certificate for localhost, trusted by the proxy as --upstream-ca would make it.
    // The upstream listens on IPv4 only, as many development servers do.
    const upstreamCa = await generateCACertificate({ subject: { commonName: 'localhost' } });
    httpsUpstream = createHttpsServer({ key: upstreamCa.key, cert: upstreamCa.cert }, upstream);
    // Upstreams keep idle connections longer than the suite runs: mockttp 4.4 reuses idle upstream
    // connections across clients, and one the upstream closes at the moment it is reused answers 502
    // (a race of any keep-alive proxy; noted in the README). These tests are about the rules.
    for (const server of [httpUpstream, httpsUpstream]) server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => httpsUpstream.listen(0, '127.0.0.1', resolve));
    const ipCa = await generateCACertificate({ subject: { commonName: 'Upstream CA' } });
    for (const address of ['127.0.0.1', '::1']) {
      const { key, cert } = await createIssuer(ipCa).issue(address);
      const server = createHttpsServer({ key, cert }, upstream);
      server.keepAliveTimeout = 120_000;
      await new Promise<void>((resolve) => server.listen(0, address, resolve));
      ipUpstreams.set(address, server);
    }

    filesDir = mkdtempSync(join(tmpdir(), 'rulekeeper-proxy-files-'));
    writeFileSync(join(filesDir, 'mock.json'), '{"mocked":true}');
    const ca = await ensureCa(join(filesDir, 'ca'));
    proxyCa = ca.cert;
    proxyCaPath = ca.certPath;
    feed = createRuleFeed({
      server: service.url,
      key,
      log: (m) => logged.push(m),
      minRetryMs: 50,
      maxRetryMs: 200,
    });
    await feed.firstAttempt;
    hits = createHitReporter({ server: service.url, key, source: 'proxy', log: (m) => logged.push(m) });
    proxyOptions = {
      port: 0,
      ca,
      feed,
      allowCode: true,
      codeTimeoutMs: 200,
      upstreamTimeoutMs: 1000,
      maxBodyBytes: 1024 * 1024,
      allowFilesDir: filesDir,
      upstreamCas: [upstreamCa.cert, ipCa.cert],
      log: (m) => logged.push(m),
      hits,
    };
    proxy = await startProxy(proxyOptions);
  });

  afterAll(async () => {
    await hits?.close();
    feed?.stop();
    await proxy?.stop();
    httpsUpstream?.close();
    httpUpstream?.close();
    for (const server of ipUpstreams.values()) server.close();
    await service?.stop();
    await database?.drop();
    if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  });

  async function api(method: string, path: string, body?: unknown) {
    const response = await fetch(`${service.url}/v1${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const revision = Number(response.headers.get('rulekeeper-revision'));
    const json = response.status === 204 ? undefined : ((await response.json()) as Json);
    return { status: response.status, body: json, revision };
  }

  /** Saves a rule through the API and waits until the proxy has it: the next request sees it. */
  async function rule(ruleType: string, pairs: Json[], extra: Json = {}): Promise<string> {
    const reply = await api('POST', '/rules', {
      name: ruleType,
      ruleType,
      status: 'Active',
      pairs,
      ...extra,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    created.push(reply.body?.data.id);
    await feed.reached(reply.revision);
    return reply.body?.data.id;
  }

  afterEach(async () => {
    let revision = 0;
    for (const id of created.splice(0)) revision = (await api('DELETE', `/rules/${id}`)).revision;
    if (revision) await feed.reached(revision);
  });

  function through(url: string, init: Json = {}) {
    const dispatcher = new ProxyAgent({ uri: `http://127.0.0.1:${proxy.port}`, requestTls: { ca: proxyCa } });
    return fetch(url, { redirect: 'manual', ...init, dispatcher });
  }

  const source = (value: string, operator = 'Contains') => ({ key: 'Url', operator, value });

  describe.each(['http', 'https'])('over %s', (scheme) => {
    const base = () =>
      scheme === 'http'
        ? `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}`
        : `https://localhost:${(httpsUpstream.address() as { port: number }).port}`;

    it('passes a request no rule acts on through untouched, without the rules header', async () => {
      const response = await through(`${base()}/plain?a=1`, { headers: { 'x-client': 'c' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-rulekeeper-rules')).toBeNull();
      const echoed = (await response.json()) as Json;
      expect(echoed).toMatchObject({ method: 'GET', url: '/plain?a=1', headers: { 'x-client': 'c' } });
    });

    // mockttp took a loopback client whose port equalled the local port of one of its own connections to
    // a loopback upstream for a loop, and answered 500 (issue 40): under 50 connections, a few in a
    // thousand. Both ways through are loaded: the proxy's own passthrough (no rule acts) and mockttp's
    // (a rule acts); over HTTP also in absolute form, as curl and browsers send plain HTTP to a proxy.
    it.each([
      ['no rule acts', false],
      ['a rule acts', true],
    ])(
      "50 concurrent connections to a loopback upstream get the upstream's answers (%s)",
      async (_, acts) => {
        const id = acts
          ? await rule('Headers', [
              {
                source: source('/many'),
                modifications: { Request: [{ header: 'X-Many', type: 'Add', value: '1' }], Response: [] },
              },
            ])
          : undefined;
        // The default upstream timeout: the suite's 1 s could pass for a request queued on a busy machine.
        const loaded = await startProxy({ ...proxyOptions, upstreamTimeoutMs: 30_000 });
        try {
          for (const proxyTunnel of scheme === 'http' ? [true, false] : [true]) {
            const dispatcher = new ProxyAgent({
              uri: `http://127.0.0.1:${loaded.port}`,
              requestTls: { ca: proxyCa },
              proxyTunnel,
            });
            const seen: string[] = [];
            try {
              await Promise.all(
                Array.from({ length: 50 }, async (_, connection) => {
                  for (let i = 0; i < 20; i++) {
                    const response = await fetch(`${base()}/many?c=${connection}&i=${i}`, { dispatcher });
                    const text = await response.text();
                    const rules = response.headers.get('x-rulekeeper-rules');
                    const expected = response.status === 200 && response.headers.get('x-upstream') === 'yes';
                    const echoed = expected ? (JSON.parse(text) as Json) : undefined;
                    if (
                      echoed?.url !== `/many?c=${connection}&i=${i}` ||
                      echoed?.headers['x-many'] !== (acts ? '1' : undefined) ||
                      rules !== (id ?? null)
                    )
                      seen.push(`${response.status} (rules: ${rules}): ${text.slice(0, 200)}`);
                  }
                }),
              );
            } finally {
              await dispatcher.close();
            }
            expect(
              seen.slice(0, 5),
              `${seen.length} answers not the upstream's (tunnel: ${proxyTunnel})`,
            ).toEqual([]);
          }
        } finally {
          await loaded.stop();
        }
      },
    );

    it('a rule that matches but changes nothing does not act: the request streams, the rule is not listed', async () => {
      await rule('Replace', [{ source: source('/unchanged'), from: 'absent-text', to: 'x' }]);
      await rule('Headers', [
        {
          source: source('/unchanged'),
          modifications: [{ Request: [{ header: 'X-None', type: 'Remove' }] }],
        },
      ]);
      const response = await through(`${base()}/unchanged?a=1`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-rulekeeper-rules')).toBeNull();
      expect(((await response.json()) as Json).url).toBe('/unchanged?a=1');
      const trace = await api('POST', '/trace', { request: { url: `${base()}/unchanged?a=1` } });
      expect(trace.body).toMatchObject({
        data: { rules: [{ reason: 'no_change' }, { reason: 'no_change' }] },
      });
    });

    it('Redirect answers 307 with the destination, its captures substituted, as the trace says', async () => {
      const id = await rule('Redirect', [
        {
          source: source('/old/(.*)', 'Matches'),
          destinationType: 'url',
          destination: 'https://new.example.com/$1',
        },
      ]);
      const response = await through(`${base()}/old/x?y=1`);
      expect(response.status).toBe(307);
      expect(response.headers.get('location')).toBe('https://new.example.com/x?y=1');
      expect(response.headers.get('x-rulekeeper-rules')).toBe(id);
      const trace = await api('POST', '/trace', { request: { url: `${base()}/old/x?y=1` } });
      expect(trace.body?.data.outcome.url).toBe(response.headers.get('location'));
    });

    it('Replace and QueryParam answer 307 with the URL they leave', async () => {
      const replace = await rule('Replace', [
        { source: source('/replace-me'), from: 'replace-me', to: 'replaced' },
      ]);
      const response = await through(`${base()}/replace-me`);
      expect(response.status).toBe(307);
      expect(response.headers.get('location')).toBe(`${base()}/replaced`);
      expect(response.headers.get('x-rulekeeper-rules')).toBe(replace);
      const query = await rule('QueryParam', [
        { source: source('/query'), modifications: [{ type: 'Add', param: 'debug', value: '1' }] },
      ]);
      const second = await through(`${base()}/query?a=2`);
      expect(second.headers.get('location')).toBe(`${base()}/query?a=2&debug=1`);
      expect(second.headers.get('x-rulekeeper-rules')).toBe(query);
    });

    it('Cancel closes the connection without an answer', async () => {
      await rule('Cancel', [{ source: source('/ads') }]);
      const hits = upstreamHits;
      await expect(through(`${base()}/ads.js`)).rejects.toThrow();
      expect(upstreamHits).toBe(hits);
    });

    it('Headers change the request and the answer; UserAgent sets the request header', async () => {
      const headers = await rule('Headers', [
        {
          source: source('/headers'),
          modifications: {
            Request: [{ header: 'X-Debug', type: 'Add', value: '1' }],
            Response: [
              { header: 'X-Upstream', type: 'Remove' },
              { header: 'X-Added', type: 'Add', value: 'yes' },
            ],
          },
        },
      ]);
      const agent = await rule('UserAgent', [{ source: source('/headers'), userAgent: 'RulekeeperBot/1.0' }]);
      const response = await through(`${base()}/headers`, { headers: { 'user-agent': 'curl/8' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-upstream')).toBeNull();
      expect(response.headers.get('x-added')).toBe('yes');
      expect(response.headers.get('x-rulekeeper-rules')).toBe(`${headers}, ${agent}`);
      const echoed = (await response.json()) as Json;
      expect(echoed.headers).toMatchObject({ 'x-debug': '1', 'user-agent': 'RulekeeperBot/1.0' });
      // A GET without a body is sent on without one: no length the client did not send.
      expect(echoed.headers).not.toHaveProperty('content-length');
      expect(echoed.headers).not.toHaveProperty('transfer-encoding');
    });

    it('Delay holds the request at least the time asked', async () => {
      const id = await rule('Delay', [{ source: source('/delayed'), delay: 300 }]);
      const began = performance.now();
      const response = await through(`${base()}/delayed`);
      expect(response.status).toBe(200);
      expect(performance.now() - began).toBeGreaterThanOrEqual(290);
      expect(response.headers.get('x-rulekeeper-rules')).toBe(id);
    });

    it('Request static replaces the body sent upstream', async () => {
      await rule('Request', [{ source: source('/submit'), type: 'static', value: '{"replaced":true}' }]);
      const response = await through(`${base()}/submit`, { method: 'POST', body: '{"original":true}' });
      expect(((await response.json()) as Json).body).toBe('{"replaced":true}');
    });

    it('Response static replaces the answer, or answers alone with serveWithoutRequest', async () => {
      await rule('Response', [
        {
          source: source('/mocked'),
          type: 'static',
          value: '{"mock":1}',
          statusCode: 404,
          resourceType: 'restApi',
        },
      ]);
      const response = await through(`${base()}/mocked`);
      expect(response.status).toBe(404);
      // The reason phrase of the rule's status, not the upstream's 200 OK.
      expect(response.statusText).toBe('Not Found');
      expect(await response.text()).toBe('{"mock":1}');
      await rule('Response', [
        {
          source: source('/offline'),
          type: 'static',
          value: 'served by the proxy',
          statusCode: 200,
          serveWithoutRequest: true,
        },
      ]);
      const hits = upstreamHits;
      const alone = await through(`${base()}/offline`);
      expect(alone.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await alone.text()).toBe('served by the proxy');
      expect(upstreamHits).toBe(hits);
      await rule('Response', [
        {
          source: source('/created'),
          type: 'static',
          value: '{"id":7}',
          statusCode: 201,
          serveWithoutRequest: true,
        },
      ]);
      const created = await through(`${base()}/created`);
      expect([created.status, created.statusText]).toEqual([201, 'Created']);
      expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await created.json()).toEqual({ id: 7 });
      expect(upstreamHits).toBe(hits);
    });

    it('Response code runs with --allow-code', async () => {
      await rule('Response', [
        {
          source: source('/coded'),
          type: 'code',
          value: 'function modifyResponse(args) { return JSON.parse(args.response).url.toUpperCase(); }',
          resourceType: 'restApi',
        },
      ]);
      expect(await (await through(`${base()}/coded`)).text()).toBe('/CODED');
    });

    it('Script is injected into HTML, and a CSP that would block it is dropped, saying so', async () => {
      const id = await rule('Script', [
        {
          source: source('/page.html'),
          scripts: [
            { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'window.injected = 1;' },
            {
              type: 'url',
              codeType: 'js',
              loadTime: 'beforePageLoad',
              value: 'https://cdn.example.com/a.js',
            },
          ],
        },
      ]);
      const response = await through(`${base()}/page.html`);
      const html = await response.text();
      expect(html).toContain('<head><script src="https://cdn.example.com/a.js"');
      expect(html).toMatch(
        /<\/script><script data-rulekeeper-rule="[^"]+">window.injected = 1;<\/script><\/body>/,
      );
      expect(response.headers.get('content-security-policy')).toBeNull();
      expect(response.headers.get('x-rulekeeper-csp')).toMatch(/removed/);
      expect(response.headers.get('x-rulekeeper-rules')).toBe(id);
    });

    it("Script with removeCSPHeader false is injected and leaves the page's policy, saying nothing", async () => {
      await rule(
        'Script',
        [
          {
            source: source('/page.html'),
            scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'window.kept = 1;' }],
          },
        ],
        { removeCSPHeader: false },
      );
      const response = await through(`${base()}/page.html`);
      expect(await response.text()).toContain('window.kept = 1;');
      expect(response.headers.get('content-security-policy')).toBe("script-src 'self'");
      expect(response.headers.get('x-rulekeeper-csp')).toBeNull();
    });
  });

  it('serves a Redirect to a local file from --allow-files, and nothing outside it', async () => {
    await rule('Redirect', [
      { source: source('/local-mock'), destinationType: 'map_local', destination: 'mock.json' },
    ]);
    const response = await through(
      `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}/local-mock`,
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"mocked":true}');
    await rule('Redirect', [
      { source: source('/escape'), destinationType: 'map_local', destination: '../../etc/passwd' },
    ]);
    const climbing = await through(
      `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}/escape`,
    );
    // The destination is a file: URL, whose dot segments never climb above its root: it names a
    // file inside the directory, which does not exist.
    expect(climbing.status).toBe(404);
    expect(await climbing.text()).toBe("the rule's local file is not in the --allow-files folder\n");
  });

  it('acts on the next request after a change through the API, and stops when the rule is switched off', async () => {
    const url = `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}/live`;
    expect((await through(url)).status).toBe(200);
    const id = await rule('Redirect', [
      { source: source('/live'), destinationType: 'url', destination: 'https://x.example/' },
    ]);
    expect((await through(url)).status).toBe(307);
    const off = await api('PUT', `/rules/${id}`, { status: 'Inactive' });
    expect(off.status).toBe(200);
    await feed.reached(off.revision);
    expect((await through(url)).status).toBe(200);
  });

  it('reports the rules that acted, counts only, within one flush: in the hook and from the head', async () => {
    const origin = `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}`;
    const redirect = await rule('Redirect', [
      { source: source('/hits-redirect'), destinationType: 'url', destination: 'https://x.example/' },
    ]);
    const headers = await rule('Headers', [
      {
        source: source('/hits-headers'),
        modifications: { Request: [{ header: 'x-hit', type: 'Add', value: '1' }], Response: [] },
      },
    ]);
    const idle = await rule('Cancel', [{ source: source('/hits-never') }]);
    for (let i = 0; i < 3; i++) expect((await through(`${origin}/hits-redirect`)).status).toBe(307);
    expect((await through(`${origin}/hits-headers`)).status).toBe(200);
    await hits.flush();
    const of = async (id: string) => (await api('GET', `/rules/${id}/hits`)).body?.data;
    expect(await of(redirect)).toMatchObject({
      total7Days: 3,
      sources: [{ source: 'proxy', total7Days: 3 }],
    });
    expect(await of(headers)).toMatchObject({ total7Days: 1, sources: [{ source: 'proxy' }] });
    expect(await of(idle)).toMatchObject({ total7Days: 0, lastHitAt: null });
    // A flush with nothing new sends nothing more.
    await hits.flush();
    expect((await of(redirect)).total7Days).toBe(3);
  });

  it('keeps its rules while the server is away, and follows it again when it is back', async () => {
    const url = `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}/away`;
    await rule('Redirect', [
      { source: source('/away'), destinationType: 'url', destination: 'https://kept.example/' },
    ]);
    await service.stop();
    expect((await through(url)).headers.get('location')).toBe('https://kept.example/');
    service = await startService({
      DATABASE_URL: database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      PORT: String(servicePort),
    });
    // A change made after the restart reaches the proxy once it has reconnected.
    await rule('Redirect', [
      { source: source('/back'), destinationType: 'url', destination: 'https://back.example/' },
    ]);
    const back = url.replace('/away', '/back');
    expect((await through(back)).headers.get('location')).toBe('https://back.example/');
    expect(logged.some((line) => /cannot reach .*keeping the \d+ rules it had/.test(line))).toBe(true);
    expect(logged.some((line) => /connected to .* again/.test(line))).toBe(true);
  });

  // HTTPS to an address (https://127.0.0.1:…/, https://[::1]:…/): a client sends no server name and
  // checks the address against the certificate's iPAddress names. Every client here trusts the
  // proxy's CA alone; the upstream's certificate names its address too, and the proxy checks it.
  describe.each([
    ['127.0.0.1', 'IP Address:127.0.0.1'],
    ['::1', 'IP Address:0:0:0:0:0:0:0:1'],
  ])('HTTPS to the address %s', (address, san) => {
    const origin = () => {
      const { port } = (ipUpstreams.get(address) as HttpsServer).address() as { port: number };
      return `https://${address.includes(':') ? `[${address}]` : address}:${port}`;
    };

    it("Node's https, verifying the certificate: it names the address, and the rules act", async () => {
      const id = await rule('Headers', [
        {
          source: source('/by-address'),
          modifications: {
            Request: [{ header: 'X-Debug', type: 'Add', value: '1' }],
            Response: [{ header: 'X-Added', type: 'Add', value: 'yes' }],
          },
        },
      ]);
      const answer = await httpsThroughTunnel(`${origin()}/by-address`, 'POST', 'a body');
      expect(answer.authorized).toBe(true);
      expect(answer.subjectAltName).toBe(san);
      expect(answer.issuer).toBe('Rulekeeper proxy CA (this machine only)');
      expect(answer.status).toBe(200);
      expect(answer.headers['x-added']).toBe('yes');
      expect(answer.headers['x-rulekeeper-rules']).toBe(id);
      const echoed = JSON.parse(answer.body) as Json;
      expect(echoed).toMatchObject({ method: 'POST', url: '/by-address', body: 'a body' });
      expect(echoed.headers).toMatchObject({ 'x-debug': '1', host: new URL(origin()).host });
    });

    it('undici through the proxy, with no rule acting: the answer streams through untouched', async () => {
      const response = await through(`${origin()}/plain`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-rulekeeper-rules')).toBeNull();
      expect(((await response.json()) as Json).url).toBe('/plain');
    });

    it.skipIf(!CURL)('curl --cacert with the proxy CA', async () => {
      const { stdout } = await run(CURL as string, [
        '--silent',
        '--show-error',
        '--globoff', // [::1] is an address, not a pattern
        '--proxy',
        `http://127.0.0.1:${proxy.port}`,
        '--cacert',
        proxyCaPath,
        `${origin()}/by-curl`,
      ]);
      expect((JSON.parse(stdout) as Json).url).toBe('/by-curl');
    });

    // Chromium takes the CA by its key's hash, as the README shows; that flag would also let a
    // certificate for another name through, so what is checked is the certificate Chromium was given
    // (its names, as DevTools reports them) and that the page loaded through it.
    it.skipIf(!CHROMIUM)(
      'Chromium, trusting the CA by its hash: the certificate it gets names the address',
      async () => {
        const browser = await chromium.launch({
          executablePath: CHROMIUM as string,
          args: [
            '--no-sandbox',
            `--proxy-server=http://127.0.0.1:${proxy.port}`,
            '--proxy-bypass-list=<-loopback>',
            `--ignore-certificate-errors-spki-list=${await generateSPKIFingerprint(proxyCa)}`,
          ],
        });
        try {
          const page = await browser.newPage();
          const devtools = await page.context().newCDPSession(page);
          await devtools.send('Network.enable');
          const names = new Map<string, unknown>();
          devtools.on('Network.responseReceived', (event) => {
            names.set(event.response.url, event.response.securityDetails);
          });
          const url = `${origin()}/in-chromium`;
          const response = await page.goto(url);
          expect(response?.status()).toBe(200);
          expect(names.get(url)).toMatchObject({
            sanList: [address],
            issuer: 'Rulekeeper proxy CA (this machine only)',
          });
        } finally {
          await browser.close();
        }
      },
    );
  });

  /**
   * A request through a CONNECT tunnel, with TLS over it made by Node as `https` makes it for the
   * address (no server name; the certificate checked against the address), trusting the CA alone.
   */
  async function httpsThroughTunnel(url: string, method: string, body: string) {
    const { hostname, host } = new URL(url);
    const address = hostname.replace(/^\[|\]$/g, '');
    const connecting = httpRequest({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: host });
    connecting.end();
    const [, socket] = (await once(connecting, 'connect')) as [IncomingMessage, Socket];
    const secure = tlsConnect({ socket, host: address, ca: proxyCa, rejectUnauthorized: true });
    await once(secure, 'secureConnect');
    const certificate = secure.getPeerCertificate();
    const sent = httpsRequest(url, { method, createConnection: () => secure, ca: proxyCa });
    sent.end(body);
    const [response] = (await once(sent, 'response')) as [IncomingMessage];
    let text = '';
    for await (const chunk of response) text += chunk;
    return {
      authorized: secure.authorized,
      subjectAltName: certificate.subjectaltname,
      issuer: certificate.issuer.CN,
      status: response.statusCode,
      headers: response.headers,
      body: text,
    };
  }

  // A real browser (Chromium from Debian's packages), pointed at the proxy and trusting its CA, loads
  // an HTTPS page: the Script rule's code runs in it (despite the page's CSP) and the page's script
  // request is redirected to another script, which runs too.
  it.skipIf(!CHROMIUM)(
    'a browser through the proxy runs the injected script and follows the redirect',
    async () => {
      await rule('Script', [
        {
          source: source('/page.html'),
          scripts: [
            {
              type: 'code',
              codeType: 'js',
              loadTime: 'afterPageLoad',
              value: "document.body.setAttribute('data-injected', 'yes');",
            },
          ],
        },
      ]);
      await rule('Redirect', [{ source: source('/old.js'), destinationType: 'url', destination: '/new.js' }]);
      const page = `https://localhost:${(httpsUpstream.address() as { port: number }).port}/page.html`;
      const { dom } = await loadPage(page, [
        `--proxy-server=http://127.0.0.1:${proxy.port}`,
        // Chromium does not send loopback traffic to a proxy unless told to.
        '--proxy-bypass-list=<-loopback>',
        `--ignore-certificate-errors-spki-list=${await generateSPKIFingerprint(proxyCa)}`,
      ]);
      expect(dom).toMatch(/<body[^>]*data-redirected="yes"/);
      expect(dom).toMatch(/<body[^>]*data-injected="yes"/);
    },
  );

  // Requestly's "Bypass CORS" rule, in the shape Requestly exports it: its header values call
  // rq_request_initiator_origin(), which must be the page's origin for a credentialed request.
  it.skipIf(!CHROMIUM)(
    "Requestly's Bypass CORS rule makes a browser's cross-origin fetch succeed, with credentials and after a preflight",
    async () => {
      const page = `http://localhost:${(httpUpstream.address() as { port: number }).port}/cors.html`;
      const flags = [`--proxy-server=http://127.0.0.1:${proxy.port}`, '--proxy-bypass-list=<-loopback>'];
      const without = await loadPage(page, flags);
      expect(without.dom).toMatch(/data-credentialed="blocked"/);
      expect(without.dom).toMatch(/data-preflighted="blocked"/);
      await rule('Headers', [
        {
          id: 'cors1',
          source: { filters: [{}], key: 'Url', operator: 'Contains', value: '/api/cors' },
          modifications: {
            Request: [],
            Response: [
              { header: 'Access-Control-Allow-Origin', type: 'Add', value: 'rq_request_initiator_origin()' },
              { header: 'Access-Control-Allow-Methods', type: 'Add', value: '*' },
              { header: 'Access-Control-Allow-Headers', type: 'Add', value: '*' },
              { header: 'Access-Control-Allow-Credentials', type: 'Add', value: 'true' },
            ],
          },
        },
      ]);
      const { dom } = await loadPage(page, flags);
      expect(dom).toMatch(/data-credentialed="ok"/);
      expect(dom).toMatch(/data-preflighted="ok"/);
    },
  );

  // The console's "Allow cross-origin calls to a local API" template, saved as the console fills it in.
  it.skipIf(!CHROMIUM)(
    "the console's CORS template lets a page on localhost call an API on another local origin, with credentials and after a preflight",
    async () => {
      const page = `http://localhost:${(httpUpstream.address() as { port: number }).port}/cors.html`;
      const flags = [`--proxy-server=http://127.0.0.1:${proxy.port}`, '--proxy-bypass-list=<-loopback>'];
      const without = await loadPage(page, flags);
      expect(without.dom).toMatch(/data-credentialed="blocked"/);
      const { ruleType, pairs, ...extra } = templateById('cors-local')?.rule ?? {};
      await rule(ruleType as string, pairs as Json[], extra);
      const { dom } = await loadPage(page, flags);
      expect(dom).toMatch(/data-credentialed="ok"/);
      expect(dom).toMatch(/data-preflighted="ok"/);
    },
  );

  // A client reaching the proxy through this machine's network address is another machine to it.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
  it.skipIf(!external)('refuses clients of other machines unless --allow-remote', async () => {
    const url = `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}/plain`;
    // A plain request in absolute form; CONNECT and WebSocket upgrades are refused the same way
    // (test/api/proxy-attacks.test.ts).
    const answer = await viaProxy(proxy.port, url, { host: external as string });
    expect(answer.status).toBe(403);
    expect(answer.body.toString()).toMatch(/--allow-remote/);
  });

  it('passes a WebSocket through, both ways', async () => {
    const upstreamWs = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    upstreamWs.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo: ${data}`)));
    await once(upstreamWs, 'listening');
    try {
      const { port } = upstreamWs.address() as { port: number };
      const client = new WebSocket(`ws://127.0.0.1:${port}/socket`, {
        agent: new HttpsProxyAgent(`http://127.0.0.1:${proxy.port}`),
      });
      await once(client, 'open');
      client.send('hello');
      const [reply] = await once(client, 'message');
      expect(String(reply)).toBe('echo: hello');
      client.close();
    } finally {
      upstreamWs.close();
    }
  });

  it('a request without a body, on a kept connection the upstream drops as it is reused, is sent again on a fresh one', async () => {
    // Answers the first request of each connection and drops the connection at the second.
    const served = new WeakSet<object>();
    const dropping = createServer((req, res) => {
      if (served.has(req.socket)) return req.socket.destroy();
      served.add(req.socket);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('fresh');
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    try {
      for (let i = 0; i < 3; i++) {
        const response = await through(
          `http://127.0.0.1:${(dropping.address() as { port: number }).port}/drop`,
        );
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('fresh');
      }
    } finally {
      dropping.close();
    }
  });

  it('a request to the proxy itself ends with a 500 saying it is a loop, not in a loop', async () => {
    const looped = await through(`http://127.0.0.1:${proxy.port}/loop`);
    expect(looped.status).toBe(500);
    expect(await looped.text()).toMatch(/loop detected/i);
  });

  it('answers 502 with a text body when the upstream refuses or resets the connection', async () => {
    const refused = await through(`http://127.0.0.1:${await freePort()}/`);
    expect(refused.status).toBe(502);
    expect(await refused.text()).toMatch(/ECONNREFUSED/);
    const reset = await through(
      `http://127.0.0.1:${(httpUpstream.address() as { port: number }).port}/reset`,
    );
    expect(reset.status).toBe(502);
  });

  it.each(['http', 'https'])('answers 504 when the upstream does not answer in time (%s)', async (scheme) => {
    const port = ((scheme === 'http' ? httpUpstream : httpsUpstream).address() as { port: number }).port;
    const origin = `${scheme}://${scheme === 'http' ? '127.0.0.1' : 'localhost'}:${port}`;
    const late = await through(`${origin}/never`);
    expect(late.status).toBe(504);
    expect(await late.text()).toMatch(/did not answer within 1000 ms/);
    // The proxy still serves the next request.
    expect((await through(`${origin}/after`)).status).toBe(200);
  });
});
