// runRuleTests from rulekeeper/playwright in Debian's Chromium: one case file, with passing and failing
// cases for Redirect, Cancel, Headers, Response and QueryParam, page loads and (POST, PUT, xmlhttprequest)
// fetches from a page, run in real pages and by the compiled `rulekeeper test` against the same server;
// each case must be judged and worded alike, and what a page cannot show (a Delay's time, an image's
// answer) must be said to be not checked.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRuleTests } from '../../src/playwright/index.js';
import { CHROMIUM } from '../helpers/chromium.js';
import { runCli } from '../helpers/cli.js';
import { type ServedApp, servedData } from '../helpers/served-app.js';

const data = servedData();
let server: ServedApp;
let key: string;
let writer: string;
let browser: Browser;
let dir: string;
let file: string;
const ids: Record<string, string> = {};
/** The report runRuleTests printed for the file. */
let inPages: string[] = [];

const source = (key: string, operator: string, value: string) => ({ key, operator, value });

beforeAll(async () => {
  server = await data.serve();
  ({ key } = await server.keysService.issue('fixture', 'qa', { scope: 'read', expiresAt: null, name: 'ci' }));
  ({ key: writer } = await server.keysService.issue('fixture', 'qa'));
  const rule = async (name: string, ruleType: string, pairs: unknown[]) => {
    const reply = await server.api(writer, 'POST', '/rules', { name, ruleType, status: 'Active', pairs });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.data.id as string;
  };
  ids.redirect = await rule('checkout to staging', 'Redirect', [
    {
      source: source('Url', 'Wildcard_Matches', '*://shop.example.com/*'),
      destinationType: 'url',
      destination: 'https://staging.example.com/$2',
    },
  ]);
  ids.debug = await rule('debug header', 'Headers', [
    {
      source: source('host', 'Contains', 'example.com'),
      modifications: { Request: [{ header: 'X-Debug', type: 'Add', value: '1' }] },
    },
  ]);
  ids.ads = await rule('block ads', 'Cancel', [{ source: source('host', 'Equals', 'ads.example.net') }]);
  ids.mock = await rule('mock the API', 'Response', [
    {
      source: source('Url', 'Contains', '/api/mocked'),
      type: 'static',
      value: '{"mock":1}',
      statusCode: 404,
    },
  ]);
  ids.query = await rule('debug search', 'QueryParam', [
    {
      source: source('Url', 'Contains', '/search'),
      modifications: [{ type: 'Add', param: 'debug', value: '1' }],
    },
  ]);
  ids.slow = await rule('slow API', 'Delay', [{ source: source('Url', 'Contains', '/slow'), delay: 50 }]);
  ids.posted = await rule('mark posts to staging', 'Headers', [
    {
      source: { ...source('host', 'Equals', 'staging.example.com'), filters: [{ requestMethod: ['POST'] }] },
      modifications: { Request: [{ header: 'X-Posted', type: 'Add', value: 'yes' }] },
    },
  ]);
  ids.blog = await rule('mark visits from the blog', 'Headers', [
    {
      source: {
        ...source('host', 'Equals', 'www.example.org'),
        filters: [{ pageDomains: ['blog.example.org'] }],
      },
      modifications: { Request: [{ header: 'X-From-Blog', type: 'Add', value: 'yes' }] },
    },
  ]);
  ids.idle = await rule('block trackers', 'Cancel', [
    { source: source('host', 'Equals', 'tracker.example.net') },
  ]);

  dir = mkdtempSync(join(tmpdir(), 'rulekeeper-browser-cases-'));
  file = join(dir, 'rules.test.yaml');
  writeFileSync(
    file,
    [
      '- name: checkout goes to staging',
      '  request: { url: "https://shop.example.com/checkout", resourceType: main_frame }',
      '  expect:',
      '    url: https://staging.example.com/checkout',
      '    redirected: true',
      '    requestHeaders: { X-DEBUG: "1" }',
      `    acted: [${ids.redirect}, ${ids.debug}]`,
      '- name: checkout goes to production',
      '  request: { url: "https://shop.example.com/checkout" }',
      '  expect: { url: "https://www.example.com/checkout" }',
      '- name: ads are blocked',
      '  request: { url: "https://ads.example.net/banner" }',
      `  expect: { cancelled: true, acted: [${ids.ads}] }`,
      '- name: search carries debug',
      '  request: { url: "https://www.example.org/search?q=shoes" }',
      '  expect: { url: "https://www.example.org/search?q=shoes&debug=1", redirected: true }',
      '- name: the API is mocked',
      '  request: { url: "https://api.example.org/api/mocked" }',
      '  expect: { response: { type: static, statusCode: 404, value: "{\\"mock\\":1}" } }',
      '- name: the mock answers 200',
      '  request: { url: "https://api.example.org/api/mocked" }',
      '  expect: { response: { statusCode: 200 } }',
      '- name: other sites get the debug header',
      '  request: { url: "https://other.org/", headers: { Accept-Language: fr } }',
      '  expect: { cancelled: false, requestHeaders: { x-debug: "1", accept-language: fr } }',
      '- name: the slow API keeps its URL',
      '  request: { url: "https://www.example.org/slow" }',
      '  expect: { url: "https://www.example.org/slow", delayMs: 50 }',
      '- name: a form post is left alone',
      '  request: { url: "https://www.example.org/form", method: POST, body: "a=1" }',
      '  expect: { redirected: false }',
      '- name: a posted cart goes to staging with the debug header',
      '  request: { url: "https://shop.example.com/cart", method: POST, body: "item=1" }',
      '  expect:',
      '    url: https://staging.example.com/cart',
      '    redirected: true',
      '    requestHeaders: { x-debug: "1", x-posted: "yes" }',
      `    acted: [${ids.redirect}, ${ids.debug}, ${ids.posted}]`,
      '- name: a visit from the blog is marked',
      '  request: { url: "https://www.example.org/article", pageUrl: "https://blog.example.org/post" }',
      '  expect: { requestHeaders: { x-from-blog: "yes" } }',
      '- name: the mocked API answers a fetch',
      '  request: { url: "https://api.example.org/api/mocked", resourceType: xmlhttprequest }',
      `  expect: { response: { statusCode: 404, value: "{\\"mock\\":1}" }, acted: [${ids.mock}] }`,
      '- name: a fetch of the API answers 200',
      '  request: { url: "https://api.example.org/api/mocked", resourceType: xmlhttprequest, method: PUT, body: "{}" }',
      '  expect: { response: { statusCode: 200 } }',
      '- name: a beacon to the ad server is blocked',
      '  request: { url: "https://ads.example.net/collect", method: POST, body: "x", pageUrl: "https://www.example.org/" }',
      '  expect: { cancelled: true }',
      '- name: the banner image is blocked',
      '  request: { url: "https://ads.example.net/banner.png", resourceType: image }',
      '  expect: { cancelled: true }',
    ].join('\n'),
  );
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  data.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The cases of `rulekeeper test`'s output: status and the lines under each, by name. */
function casesOf(stdout: string): Map<string, { status: string; lines: string[] }> {
  const found = new Map<string, { status: string; lines: string[] }>();
  let current: { status: string; lines: string[] } | undefined;
  for (const line of stdout.split('\n')) {
    const head = /^(ok|FAIL|skip) +(.+)$/.exec(line);
    if (head) {
      current = { status: head[1] as string, lines: [] };
      found.set(head[2] as string, current);
    } else if (line.startsWith('        ')) current?.lines.push(line.trim());
    else current = undefined;
  }
  return found;
}

/** A page of the context goes to the network again: neither the rules nor the helper's upstream answer. */
async function expectNoRoutes(context: BrowserContext): Promise<void> {
  const closed = createServer().listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
  const page = await context.newPage();
  await expect(page.goto(`http://127.0.0.1:${port}/`)).rejects.toThrow(/ERR_CONNECTION_REFUSED/);
}

describe.skipIf(!CHROMIUM)('runRuleTests(context): rulekeeper test cases in a real page', () => {
  it('judges the file as rulekeeper test does, in its words, and says what a page cannot check', async () => {
    const context = await browser.newContext();
    const printed: string[] = [];
    const report = await runRuleTests(context, {
      server: server.url,
      key,
      file,
      out: (line) => printed.push(line),
    });
    inPages = printed;
    await context.close();
    const cli = await runCli(['test', file, '--server', server.url, '--key', key], {});
    expect(cli.stderr).toBe('');
    const engine = casesOf(cli.stdout);
    const browserCases = casesOf(printed.join('\n'));

    // The engine's judgement, case by case, as the CLI prints it.
    expect(Object.fromEntries([...engine].map(([name, c]) => [name, c.status]))).toEqual({
      'checkout goes to staging': 'ok',
      'checkout goes to production': 'FAIL',
      'ads are blocked': 'ok',
      'search carries debug': 'ok',
      'the API is mocked': 'ok',
      'the mock answers 200': 'FAIL',
      'other sites get the debug header': 'FAIL',
      'the slow API keeps its URL': 'ok',
      'a form post is left alone': 'ok',
      'a posted cart goes to staging with the debug header': 'ok',
      'a visit from the blog is marked': 'ok',
      'the mocked API answers a fetch': 'ok',
      'a fetch of the API answers 200': 'FAIL',
      'a beacon to the ad server is blocked': 'ok',
      'the banner image is blocked': 'ok',
    });
    // The browser's: the same (POST and fetch cases made by a page's fetch()), but for the case of a
    // request whose answer a page cannot read.
    for (const [name, { status, lines }] of engine) {
      const seen = browserCases.get(name);
      const checked = seen?.lines.filter((line) => !line.startsWith('not checked in a browser'));
      if (name === 'the banner image is blocked') {
        expect(seen).toEqual({
          status: 'skip',
          lines: [
            "not checked in a browser: the whole case (an image's load shows the page only whether it decoded, not its status or body)",
          ],
        });
      } else expect({ name, status: seen?.status, lines: checked }).toEqual({ name, status, lines });
    }
    expect(engine.get('a fetch of the API answers 200')?.lines).toEqual([
      'outcome.response.statusCode: expected 200, got 404',
    ]);
    expect(engine.get('checkout goes to production')?.lines).toEqual([
      'outcome.url: expected "https://www.example.com/checkout", got "https://staging.example.com/checkout"',
    ]);
    expect(engine.get('the mock answers 200')?.lines).toEqual([
      'outcome.response.statusCode: expected 200, got 404',
    ]);
    expect(engine.get('other sites get the debug header')?.lines).toEqual([
      'outcome.requestHeaders.x-debug: expected "1", got nothing',
    ]);
    // What a page cannot show is said, under the case, never passed silently.
    expect(browserCases.get('the slow API keeps its URL')?.lines).toEqual([
      "not checked in a browser: outcome.delayMs (a Delay's exact time is not measured in a page)",
    ]);
    expect(browserCases.get('the API is mocked')?.lines).toEqual([
      'not checked in a browser: outcome.response.type (the page sees the status and the body)',
    ]);

    // The idle rules and the totals, as the CLI words them.
    const tail = (lines: string[]) => lines.slice(lines.indexOf('Active rules no case exercised (1):'));
    expect(tail(printed)).toEqual([
      'Active rules no case exercised (1):',
      `  ${ids.idle}  block trackers`,
      '',
      '10 passed, 4 failed, 1 not checked',
    ]);
    expect(tail(cli.stdout.trimEnd().split('\n'))).toEqual([
      'Active rules no case exercised (1):',
      `  ${ids.idle}  block trackers`,
      '',
      '11 passed, 4 failed',
    ]);
    expect(report).toMatchObject({ passed: 10, failed: 4, skipped: 1, unexercised: [{ ruleId: ids.idle }] });
  });

  it('takes the cases themselves, and leaves the context as it found it', async () => {
    const context = await browser.newContext();
    const report = await runRuleTests(context, {
      server: server.url,
      key,
      cases: [
        { name: 'blocked', request: { url: 'https://ads.example.net/x' }, expect: { cancelled: true } },
      ],
    });
    expect(report.cases).toEqual([{ name: 'blocked', status: 'ok', problems: [], unchecked: [] }]);
    await expectNoRoutes(context);
    await context.close();
  });

  it('fails a case whose rules redirect in a loop, after as many hops as Chromium allows', async () => {
    // Two rules sending each other's URL back: each load is redirected, as a browser would be forever.
    const loop = (from: string, to: string) =>
      server.api(writer, 'POST', '/rules', {
        name: `loop ${from}`,
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: source('Url', 'Equals', `https://loop.example.org/${from}`),
            destinationType: 'url',
            destination: `https://loop.example.org/${to}`,
          },
        ],
      });
    const loops = [await loop('a', 'b'), await loop('b', 'a')];
    for (const reply of loops) expect(reply.status).toBe(201);
    const context = await browser.newContext();
    try {
      const report = await runRuleTests(context, {
        server: server.url,
        key,
        cases: [
          { name: 'loops', request: { url: 'https://loop.example.org/a' }, expect: { redirected: true } },
        ],
      });
      expect(report.cases).toEqual([
        {
          name: 'loops',
          status: 'FAIL',
          problems: ['the page load failed: more than 20 redirects'],
          unchecked: [],
        },
      ]);
    } finally {
      await context.close();
      for (const reply of loops) await server.api(writer, 'DELETE', `/rules/${reply.body.data.id}`);
    }
  });

  it('refuses a key the server does not accept, and leaves no route behind', async () => {
    const context = await browser.newContext();
    await expect(runRuleTests(context, { server: server.url, key: 'rk_unknown', cases: [] })).rejects.toThrow(
      /refused the key \(401\)/,
    );
    await expectNoRoutes(context);
    await context.close();
  });

  it('rulekeeper test --browser prints that same report, and exits 1 for the failed cases', async () => {
    expect(inPages.length).toBeGreaterThan(0);
    const cli = await runCli(
      ['test', file, '--server', server.url, '--key', key, '--browser', '--chromium', CHROMIUM as string],
      {},
    );
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toBe(`${inPages.join('\n')}\n`);
    expect(cli.code).toBe(1);
  });
});

describe('rulekeeper test --browser refuses what it cannot do (exit 2)', () => {
  /** The CLI run from `cwd`, where Playwright is looked for. */
  const runIn = (cwd: string, args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [fileURLToPath(new URL('../../bin/rulekeeper.js', import.meta.url)), ...args],
        { cwd, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' }, timeout: 60_000 },
        (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
      );
    });

  it('says how to install Playwright when the project has none', async () => {
    const result = await runIn(dir, ['test', file, '--server', server.url, '--key', key, '--browser']);
    expect(result.stderr).toMatch(
      /^rulekeeper test: --browser needs Playwright in this project: npm install --save-dev @playwright\/test/,
    );
    expect(result.code).toBe(2);
  });

  it('needs a server to follow, not a local workspace', async () => {
    const result = await runIn(process.cwd(), ['test', file, '--workspace', 'qa', '--browser']);
    expect(result.stderr).toMatch(/--browser follows a server: give --server URL, not --workspace/);
    expect(result.code).toBe(2);
  });

  it.skipIf(!CHROMIUM)('says the key was refused', async () => {
    const result = await runIn(process.cwd(), [
      'test',
      file,
      '--server',
      server.url,
      '--key',
      'rk_unknown',
      '--browser',
      '--chromium',
      CHROMIUM as string,
    ]);
    expect(result.stderr).toMatch(/^rulekeeper test: the server refused the key \(401\)/);
    expect(result.code).toBe(2);
  });
});
