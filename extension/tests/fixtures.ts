// What every extension test stands on: the real service (one per worker, `rulekeeper serve` on a
// temporary SQLite file); a workspace of the test's own, changed through the API with a write key (as
// the console changes it) and followed by the extension with a read key; a loopback upstream that
// records what reached it; and Debian's Chromium with the built extension loaded unpacked, in a fresh
// profile, in the new headless mode.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BrowserContext,
  test as base,
  chromium,
  expect,
  type Page,
  type Worker,
} from '@playwright/test';
import { createClient, type RulekeeperClient } from '../../src/client/index.js';
import { CHROMIUM } from '../../test/helpers/chromium.js';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../../test/helpers/cli.js';
import { type ServiceProcess, startService } from '../../test/helpers/service-process.js';

const EXTENSION = fileURLToPath(new URL('../../dist/extension', import.meta.url));

/**
 * The built extension as it runs when packed (from a store or an admin console): Chrome defines
 * onRuleMatchedDebug for unpacked extensions only, so the copy's worker starts without it. Only a
 * packed install could show this otherwise, and Chrome installs packed extensions from a store only.
 */
function packedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-packed-'));
  cpSync(EXTENSION, dir, { recursive: true });
  const worker = join(dir, 'background.js');
  const withoutDebug =
    "Object.defineProperty(chrome.declarativeNetRequest, 'onRuleMatchedDebug', { value: undefined });\n";
  writeFileSync(worker, withoutDebug + readFileSync(worker, 'utf8'));
  return dir;
}

export interface Service {
  process: ServiceProcess;
  database: ScratchDatabase;
}

export interface Workspace {
  /** A write key's client: how the test changes rules, as the console does. */
  api: RulekeeperClient;
  /** The read key the extension signs in with. */
  readKey: string;
  /** Revokes the read key with the CLI, as an operator does. */
  revokeReadKey(): Promise<void>;
}

/** A request that reached the upstream. */
export interface Arrived {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export interface Upstream {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** Every request that reached it, oldest first. */
  arrived: Arrived[];
}

export interface Extension {
  context: BrowserContext;
  /** The extension's service worker, to ask Chrome what the extension set (its badge, its rules). */
  worker: Worker;
  id: string;
  /** A page at chrome-extension://ID/`path`. */
  open(path: string): Promise<Page>;
  /** The id of the tab showing `page`, as the extension sees it. */
  tabIdOf(page: Page): Promise<number>;
}

/**
 * The upstream: `/echo…` answers what it received as JSON (its URL and headers), `/api/…` answers
 * `{"from":"upstream"}`, every other path a small HTML page whose heading is the path.
 */
function serveUpstream(arrived: Arrived[]): Server {
  return createServer((request, response) => {
    const url = request.url ?? '/';
    arrived.push({ method: request.method ?? 'GET', url, headers: request.headers });
    // Nothing kept by the browser's cache: each load reaches the rules (and this server) again.
    response.setHeader('cache-control', 'no-store');
    if (url.startsWith('/echo')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ url, headers: request.headers }));
    } else if (url.startsWith('/api/')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"from":"upstream"}');
    } else {
      // Under /strict, a page whose policy allows no script at all, as a hardened site would send.
      const policy = url.startsWith('/strict') ? { 'content-security-policy': "script-src 'none'" } : {};
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...policy });
      const path = url.replace(/[<>&]/g, '');
      response.end(
        `<!doctype html><html><head><title>${path}</title></head><body><h1>${path}</h1></body></html>`,
      );
    }
  });
}

export const test = base.extend<
  {
    workspace: Workspace;
    upstream: Upstream;
    extension: Extension;
    chromiumPresent: undefined;
    /** How the extension is installed: as a developer loads it, or as a store or an admin installs it. */
    installed: 'unpacked' | 'packed';
  },
  { service: Service }
>({
  installed: ['unpacked', { option: true }],
  chromiumPresent: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixtures take their dependencies as a pattern.
    async ({}, use, testInfo) => {
      testInfo.skip(!CHROMIUM, 'no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
      await use(undefined);
    },
    { auto: true },
  ],
  service: [
    // biome-ignore lint/correctness/noEmptyPattern: as above.
    async ({}, use) => {
      const database = await scratchDatabase('sqlite');
      // Keys are not cached, so a revoked key is refused (and its stream ended) at once.
      const process = await startService({ DATABASE_URL: database.url, KEY_CACHE_TTL_MS: '0' });
      await use({ process, database });
      await process.stop();
      await database.drop();
    },
    { scope: 'worker' },
  ],
  workspace: async ({ service }, use, testInfo) => {
    const name = `ws-${testInfo.testId}-${testInfo.repeatEachIndex}-${testInfo.retry}`;
    const databaseUrl = service.database.url;
    const writer = await createKeyWithCli(databaseUrl, name, 'console');
    const reader = await createKeyWithCli(databaseUrl, name, 'browser', [
      '--scope',
      'read',
      '--name',
      'browser',
    ]);
    const api = createClient({ baseUrl: service.process.url, key: writer.key });
    const revokeReadKey = async () => {
      const result = await runCli(['keys', 'revoke', reader.keyId], { DATABASE_URL: databaseUrl });
      if (result.code !== 0) throw new Error(`could not revoke the read key: ${result.stderr}`);
    };
    await use({ api, readKey: reader.key, revokeReadKey });
  },
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  upstream: async ({}, use) => {
    const arrived: Arrived[] = [];
    const server = serveUpstream(arrived);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await use({ origin: `http://127.0.0.1:${port}`, arrived });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
  extension: async ({ installed }, use) => {
    const path = installed === 'packed' ? packedCopy() : EXTENSION;
    const context = await chromium.launchPersistentContext('', {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless=new',
        '--no-sandbox',
        `--disable-extensions-except=${path}`,
        `--load-extension=${path}`,
      ],
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    const id = new URL(worker.url()).host;
    const open = async (path: string) => {
      const page = await context.newPage();
      await page.goto(`chrome-extension://${id}/${path}`);
      return page;
    };
    const tabIdOf = async (page: Page) => {
      const url = page.url();
      const tabId = await worker.evaluate(
        async (wanted) => (await chrome.tabs.query({})).find((tab) => tab.url === wanted)?.id,
        url,
      );
      if (tabId === undefined) throw new Error(`no tab shows ${url}`);
      return tabId;
    };
    await use({ context, worker, id, open, tabIdOf });
    await context.close();
    if (path !== EXTENSION) rmSync(path, { recursive: true, force: true });
  },
});

export { expect };

/** Signs the extension in through its options page, as a person does, and waits until it follows. */
export async function signIn(extension: Extension, server: string, key: string): Promise<Page> {
  const options = await extension.open('options.html');
  await options.getByLabel('Server URL').fill(server);
  await options.getByLabel('API key').fill(key);
  await options.getByRole('button', { name: 'Sign in' }).click();
  await expect(
    options.getByText(/^Signed in to ws-.* as browser with a read key \(browser\)\.$/),
  ).toBeVisible();
  await expect(options.getByRole('status')).toHaveText(/^Following workspace/);
  return options;
}

/** The toolbar badge's text on `page`'s tab. */
export async function badgeOf(extension: Extension, page: Page): Promise<string> {
  const tabId = await extension.tabIdOf(page);
  return extension.worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId);
}

/** The data of a successful call, failing the test with the error body otherwise. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (!answer.response.ok || answer.data === undefined) {
    throw new Error(`API answered ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}
