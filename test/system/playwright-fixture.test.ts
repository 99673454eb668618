// rulekeeper/playwright in Debian's Chromium: each rule type acting on real page loads and fetches
// against a loopback upstream that echoes what it received, and a change through the API acting on
// the next request.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from '@playwright/test';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AppliedRules, applyRules } from '../../src/playwright/index.js';
import { CHROMIUM } from '../helpers/chromium.js';
import { type ServedApp, servedData } from '../helpers/served-app.js';

const data = servedData();
let server: ServedApp;
let key: string;
let upstream: Server;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let applied: AppliedRules;
/** The paths the upstream was asked for, in the current test. */
const hits: string[] = [];

/** Echoes the request as JSON; `/page.html` is a page, `/landed` and `/new-path` say where they are. */
function answer(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', origin);
    hits.push(url.pathname);
    if (url.pathname.endsWith('.html')) {
      // A page under a policy that allows no script at all, as a hardened site would send.
      const policy = url.pathname.endsWith('csp.html')
        ? { 'content-security-policy': "script-src 'none'" }
        : {};
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-upstream': 'yes', ...policy });
      res.end(
        `<!doctype html><html><head><title>upstream ${url.pathname}</title></head><body><p>page</p></body></html>`,
      );
      return;
    }
    // Under /cors/, readable by a page of any origin (a cross-origin redirect's destination).
    const cors = url.pathname.startsWith('/cors/') ? { 'access-control-allow-origin': '*' } : {};
    res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes', ...cors });
    res.end(
      JSON.stringify({
        path: url.pathname,
        query: url.search,
        method: req.method,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      }),
    );
  });
}

beforeAll(async () => {
  server = await data.serve();
  ({ key } = await server.keysService.issue('fixture', 'qa', { scope: 'read', expiresAt: null, name: 'ci' }));
  upstream = createServer(answer);
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  upstream?.close();
  await server?.stop();
  data.remove();
});

/** A write key of the same workspace, for the test's own changes (the fixture has a read key). */
let writer: string;
beforeAll(async () => {
  ({ key: writer } = await server.keysService.issue('fixture', 'qa'));
});

const created: string[] = [];
async function rule(
  ruleType: string,
  pairs: unknown[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const reply = await server.api(writer, 'POST', '/rules', {
    name: ruleType,
    ruleType,
    status: 'Active',
    pairs,
    ...extra,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  created.push(reply.body.data.id);
  await applied.runtime.reached(reply.revision);
  return reply.body.data.id;
}

beforeEach(async () => {
  if (!CHROMIUM) return;
  hits.splice(0);
  context = await browser.newContext();
  applied = await applyRules(context, { server: server.url, key });
  page = await context.newPage();
  await page.goto(`${origin}/start.html`);
});
afterEach(async () => {
  await applied?.close();
  await context?.close();
  // Each test's runtime is new: the next one starts from the lists, without these rules.
  for (const id of created.splice(0)) await server.api(writer, 'DELETE', `/rules/${id}`);
});

const source = (value: string, operator = 'Contains') => ({ key: 'Url', operator, value });
/** A fetch from the page, answered as the page sees it (or the error it fails with). */
const fetchFromPage = (
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
) =>
  page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        return {
          status: response.status,
          headers: Object.fromEntries(response.headers),
          text: await response.text(),
        };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url: `${origin}${path}`, init },
  );

describe.skipIf(!CHROMIUM)('applyRules(context): the rules in a real browser', () => {
  it('Redirect sends the page to the destination, its captures substituted', async () => {
    await rule('Redirect', [
      {
        source: source('/old/(.*)\\.html', 'Matches'),
        destinationType: 'url',
        destination: `${origin}/landed/$1.html`,
      },
    ]);
    const response = await page.goto(`${origin}/old/shop.html`);
    expect(page.url()).toBe(`${origin}/landed/shop.html`);
    expect(await page.title()).toBe('upstream /landed/shop.html');
    expect(response?.request().redirectedFrom()?.url()).toBe(`${origin}/old/shop.html`);
    expect(hits).not.toContain('/old/shop.html');
  });

  it("Redirect's destination goes through the rules too: Headers act on it, in the page and in a fetch", async () => {
    await rule('Redirect', [
      { source: source('/go/'), destinationType: 'url', destination: `${origin}/arrived/echo` },
    ]);
    await rule('Headers', [
      {
        source: source('/arrived/'),
        modifications: {
          Request: [{ header: 'X-Debug', type: 'Add', value: 'destination' }],
          Response: [{ header: 'X-Added', type: 'Add', value: 'at the destination' }],
        },
      },
    ]);
    const response = await page.goto(`${origin}/go/echo`);
    expect(page.url()).toBe(`${origin}/arrived/echo`);
    expect(response?.request().redirectedFrom()?.url()).toBe(`${origin}/go/echo`);
    const echoed = JSON.parse((await page.textContent('body')) ?? '{}');
    expect(echoed).toMatchObject({ path: '/arrived/echo', headers: { 'x-debug': 'destination' } });
    expect((await response?.allHeaders())?.['x-added']).toBe('at the destination');
    // A fetch follows it too, and sees where it landed.
    const fetched = await page.evaluate(async (url) => {
      const answer = await fetch(url);
      return { url: answer.url, redirected: answer.redirected, added: answer.headers.get('x-added') };
    }, `${origin}/go/fetched`);
    expect(fetched).toEqual({ url: `${origin}/arrived/echo`, redirected: true, added: 'at the destination' });
    expect(hits).not.toContain('/go/echo');
  });

  it("Redirect's destination answered by a Response rule, after a QueryParam rule's hop: the page shows the chain's end", async () => {
    await rule('Redirect', [
      { source: source('/moved.html'), destinationType: 'url', destination: `${origin}/mocked-page.html` },
    ]);
    await rule('QueryParam', [
      { source: source('/mocked-page.html'), modifications: [{ type: 'Add', param: 'hop', value: '2' }] },
    ]);
    await rule('Response', [
      {
        source: source('/mocked-page.html?hop=2'),
        type: 'static',
        value: '<!doctype html><title>mocked destination</title>',
        statusCode: 200,
        serveWithoutRequest: true,
      },
    ]);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const response = await page.goto(`${origin}/moved.html`);
    expect(page.url()).toBe(`${origin}/mocked-page.html?hop=2`);
    expect(await page.title()).toBe('mocked destination');
    expect(response?.status()).toBe(200);
    expect(requested).toEqual([
      `${origin}/moved.html`,
      `${origin}/mocked-page.html`,
      `${origin}/mocked-page.html?hop=2`,
    ]);
    expect(hits).toEqual(['/start.html']);
  });

  it("a fetch's POST redirected to another origin keeps its method, body and headers, and the destination's rules act", async () => {
    const other = origin.replace('127.0.0.1', 'localhost');
    await rule('Redirect', [
      { source: source('/post-here'), destinationType: 'url', destination: `${other}/cors/landed` },
    ]);
    await rule('Headers', [
      {
        source: source('/cors/landed'),
        modifications: { Request: [{ header: 'X-Debug', type: 'Add', value: 'destination' }] },
      },
    ]);
    // A header no simple request has: the browser asks the other origin first (a preflight).
    const result = await fetchFromPage('/post-here', {
      method: 'POST',
      body: 'order=1',
      headers: { 'X-Custom': 'kept' },
    });
    expect(result).toMatchObject({ status: 200 });
    expect(JSON.parse(result.text ?? '{}')).toMatchObject({
      path: '/cors/landed',
      method: 'POST',
      body: 'order=1',
      headers: { 'x-custom': 'kept', 'x-debug': 'destination' },
    });
    expect(hits).not.toContain('/post-here');
  });

  it('a redirect loop of rules fails the load after a bounded number of hops, never reaching the upstream', async () => {
    await rule('Redirect', [
      { source: source('/loop-a', 'Contains'), destinationType: 'url', destination: `${origin}/loop-b` },
    ]);
    await rule('Redirect', [
      { source: source('/loop-b', 'Contains'), destinationType: 'url', destination: `${origin}/loop-a` },
    ]);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await expect(page.goto(`${origin}/loop-a`)).rejects.toThrow(/net::ERR_TOO_MANY_REDIRECTS/);
    expect(requested.length).toBeGreaterThan(2);
    expect(requested.length).toBeLessThanOrEqual(21);
    expect(hits.filter((path) => path.startsWith('/loop'))).toEqual([]);
  });

  it('Cancel fails the request without it reaching the upstream', async () => {
    await rule('Cancel', [{ source: source('/ads/') }]);
    const result = await fetchFromPage('/ads/banner.json');
    expect(result).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
    expect(hits).not.toContain('/ads/banner.json');
  });

  it('Replace and QueryParam change the URL the page loads', async () => {
    await rule('Replace', [{ source: source('/replace-me'), from: 'replace-me', to: 'replaced' }]);
    await page.goto(`${origin}/replace-me.html`);
    expect(page.url()).toBe(`${origin}/replaced.html`);
    await rule('QueryParam', [
      { source: source('/query'), modifications: [{ type: 'Add', param: 'debug', value: '1' }] },
    ]);
    const result = await fetchFromPage('/query?a=2');
    expect(JSON.parse(result.text ?? '{}')).toMatchObject({ path: '/query', query: '?a=2&debug=1' });
  });

  it('Headers change the request and the response; UserAgent sets the request header', async () => {
    await rule('Headers', [
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
    await rule('UserAgent', [{ source: source('/headers'), userAgent: 'RulekeeperBot/1.0' }]);
    const response = await page.goto(`${origin}/headers`);
    const echoed = JSON.parse((await response?.text()) ?? '{}');
    expect(echoed.headers).toMatchObject({ 'x-debug': '1', 'user-agent': 'RulekeeperBot/1.0' });
    const headers = await response?.allHeaders();
    expect(headers?.['x-added']).toBe('yes');
    expect(headers?.['x-upstream']).toBeUndefined();
  });

  it('Delay holds the request at least the time asked', async () => {
    await rule('Delay', [{ source: source('/delayed'), delay: 300 }]);
    const took = await page.evaluate(async (url) => {
      const began = performance.now();
      await (await fetch(url)).text();
      return performance.now() - began;
    }, `${origin}/delayed`);
    expect(took).toBeGreaterThanOrEqual(300);
  });

  it('Request static replaces the body sent upstream', async () => {
    await rule('Request', [{ source: source('/submit'), type: 'static', value: '{"replaced":true}' }]);
    const result = await fetchFromPage('/submit', { method: 'POST', body: '{"original":true}' });
    expect(JSON.parse(result.text ?? '{}')).toMatchObject({ method: 'POST', body: '{"replaced":true}' });
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
    const mocked = await fetchFromPage('/mocked');
    expect(mocked).toMatchObject({ status: 404, text: '{"mock":1}' });
    expect(hits).toContain('/mocked');
    await rule('Response', [
      {
        source: source('/offline'),
        type: 'static',
        value: 'served alone',
        statusCode: 200,
        serveWithoutRequest: true,
      },
    ]);
    const alone = await fetchFromPage('/offline');
    expect(alone).toMatchObject({ status: 200, text: 'served alone' });
    expect(hits).not.toContain('/offline');
  });

  it('Script is injected into HTML pages and runs', async () => {
    await rule('Script', [
      {
        source: source('/scripted.html'),
        scripts: [
          {
            type: 'code',
            codeType: 'js',
            loadTime: 'beforePageLoad',
            value: 'window.before = document.readyState;',
          },
          { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'document.title = "injected";' },
        ],
      },
    ]);
    await page.goto(`${origin}/scripted.html`);
    expect(await page.title()).toBe('injected');
    expect(await page.evaluate(() => (globalThis as unknown as { before: string }).before)).toBe('loading');
  });

  it('Script runs under a page policy that would block it: the policy is dropped, and the answer says so', async () => {
    await rule('Script', [
      {
        source: source('/csp.html'),
        scripts: [
          { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'document.title = "ran";' },
        ],
      },
    ]);
    const response = await page.goto(`${origin}/csp.html`);
    expect(await page.title()).toBe('ran');
    const headers = await response?.allHeaders();
    expect(headers?.['content-security-policy']).toBeUndefined();
    expect(headers?.['x-rulekeeper-csp']).toMatch(/^removed/);
  });

  it("Script with removeCSPHeader false leaves the page's policy, which then stops it, as it would the page's own", async () => {
    await rule(
      'Script',
      [
        {
          source: source('/csp.html'),
          scripts: [
            { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'document.title = "ran";' },
          ],
        },
      ],
      { removeCSPHeader: false },
    );
    const response = await page.goto(`${origin}/csp.html`);
    expect(await page.title()).toBe('upstream /csp.html');
    const headers = await response?.allHeaders();
    expect(headers?.['content-security-policy']).toBe("script-src 'none'");
    expect(headers?.['x-rulekeeper-csp']).toBeUndefined();
  });

  it('follows changes: a rule switched off stops acting on the next request, and close() stops it all', async () => {
    const id = await rule('Cancel', [{ source: source('/switch') }]);
    expect(await fetchFromPage('/switch')).toHaveProperty('error');
    const off = await server.api(writer, 'PUT', `/rules/${id}`, { status: 'Inactive' });
    await applied.runtime.reached(off.revision);
    expect(await fetchFromPage('/switch')).toMatchObject({ status: 200 });
    const on = await server.api(writer, 'PUT', `/rules/${id}`, { status: 'Active' });
    await applied.runtime.reached(on.revision);
    expect(await fetchFromPage('/switch')).toHaveProperty('error');
    await applied.close();
    expect(await fetchFromPage('/switch')).toMatchObject({ status: 200 });
    expect(applied.runtime.status().state).toBe('stopped');
  });

  it('reports the rules that acted, as playwright, when it closes; reportHits: false sends nothing', async () => {
    const acted = await rule('Cancel', [{ source: source('/hits-fixture') }]);
    expect(await fetchFromPage('/hits-fixture')).toHaveProperty('error');
    expect(await fetchFromPage('/hits-fixture')).toHaveProperty('error');
    await applied.close();
    const hitsOf = async () => (await server.api(writer, 'GET', `/rules/${acted}/hits`)).body.data;
    expect(await hitsOf()).toMatchObject({
      total7Days: 2,
      sources: [{ source: 'playwright', total7Days: 2 }],
    });

    const quiet = await browser.newContext();
    const silent = await applyRules(quiet, { server: server.url, key, reportHits: false });
    const quietPage = await quiet.newPage();
    await quietPage.goto(`${origin}/start.html`);
    expect(
      await quietPage.evaluate(
        (url) =>
          fetch(url).then(
            () => 'ok',
            () => 'failed',
          ),
        `${origin}/hits-fixture`,
      ),
    ).toBe('failed');
    await silent.close();
    await quiet.close();
    expect((await hitsOf()).total7Days).toBe(2);
  });

  it("acts in the environment it is given: {{API}} as dev and staging have it, and a variable's change at once", async () => {
    const made = async (method: string, path: string, body: unknown) => {
      const reply = await server.api(writer, method, path, body);
      expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
      return reply;
    };
    await made('POST', '/environments', { name: 'dev' });
    await made('POST', '/environments', { name: 'staging' });
    const values = { dev: `${origin}/dev`, staging: `${origin}/staging` };
    await made('POST', '/variables', { name: 'API', description: '', secret: false, values });
    await rule('Redirect', [
      { source: source('/env/page.html'), destinationType: 'url', destination: '{{API}}/landed.html' },
    ]);
    const contexts = [await browser.newContext(), await browser.newContext()];
    const [dev, staging] = await Promise.all(
      (['dev', 'staging'] as const).map((environment, i) =>
        applyRules(contexts[i] as BrowserContext, {
          server: server.url,
          key,
          environment,
          reportHits: false,
        }),
      ),
    );
    try {
      const landing = async (context: BrowserContext) => {
        const tab = await context.newPage();
        await tab.goto(`${origin}/env/page.html`);
        const url = tab.url();
        await tab.close();
        return url;
      };
      expect(await landing(contexts[0] as BrowserContext)).toBe(`${origin}/dev/landed.html`);
      expect(await landing(contexts[1] as BrowserContext)).toBe(`${origin}/staging/landed.html`);
      const changed = await made('PUT', '/variables/API', {
        description: '',
        secret: false,
        values: { ...values, staging: `${origin}/staging-2` },
      });
      await staging?.runtime.reached(changed.revision);
      expect(await landing(contexts[1] as BrowserContext)).toBe(`${origin}/staging-2/landed.html`);
      expect(hits).not.toContain('/env/page.html');
    } finally {
      await dev?.close();
      await staging?.close();
      for (const context of contexts) await context.close();
    }
  });

  it('refuses to start with a key the server does not accept', async () => {
    const other = await browser.newContext();
    await expect(applyRules(other, { server: server.url, key: 'rk_unknown' })).rejects.toThrow(
      /refused the key \(401\)/,
    );
    await other.close();
  });

  it('rejects within readyTimeoutMs, naming the address and what was tried, when the server never answers', async () => {
    // A real TCP server on loopback that accepts connections and never answers a byte.
    const held: Socket[] = [];
    const silent = createNetServer((socket) => held.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const address = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const other = await browser.newContext();
    try {
      const started = performance.now();
      const failed = await applyRules(other, { server: address, key, readyTimeoutMs: 300 }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failed?.message).toContain(`no copy of the workspace from ${address} within 300 ms`);
      expect(failed?.message).toMatch(/GET \/v1\/(groups|rules) was sent and has had no answer/);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await other.close();
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});

describe('the package', () => {
  // Named at run time: the declarations come with `npm run build`, the code with the suite's setup.
  const load = (name: string) => import(name) as Promise<Record<string, unknown>>;

  it('exports the fixture and its case runner as rulekeeper/playwright, beside rulekeeper/runtime', async () => {
    expect(Object.keys(await load('rulekeeper/playwright')).sort()).toEqual(['applyRules', 'runRuleTests']);
    expect(Object.keys(await load('rulekeeper/runtime')).sort()).toEqual([
      'EnvironmentNotFoundError',
      'KeyRefusedError',
      'createHitReporter',
      'createRuntime',
      'followWorkspace',
    ]);
  });
});
