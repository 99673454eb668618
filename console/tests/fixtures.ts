// What every console test stands on: the real service (one per worker, `rulekeeper serve` on a
// temporary SQLite file), a workspace of the test's own with its key (so tests never see each
// other's rules), the typed client to arrange and check through the API, and signing in. Every
// answer of the API, to the page or to the client, is checked against the OpenAPI document.
import { test as base, expect, type Page } from '@playwright/test';
import { createClient, type RulekeeperClient } from '../../src/client/index.js';
import { CHROMIUM } from '../../test/helpers/chromium.js';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../../test/helpers/cli.js';
import { type Answer, Contract } from '../../test/helpers/contract.js';
import { type ServiceProcess, startService } from '../../test/helpers/service-process.js';

export interface Service {
  process: ServiceProcess;
  database: ScratchDatabase;
  /** The key `rulekeeper serve` printed on its first start, as `npm start` shows a newcomer. */
  firstKey: string;
}

export interface Workspace {
  key: string;
  api: RulekeeperClient;
  /** Revokes the key with the CLI, as an operator does. */
  revoke(): Promise<void>;
}

/** The answers a test received, checked against the document when it ends. */
class ContractLog {
  private readonly pending: Promise<void>[] = [];
  readonly problems: string[] = [];

  constructor(private readonly contract: Contract) {}

  record(method: string, url: string, answer: Promise<Answer | null>): void {
    this.pending.push(
      answer.then((received) => {
        if (!received) return;
        try {
          const { pathname, search } = new URL(url);
          this.contract.check(method, pathname + search, received);
        } catch (error) {
          this.problems.push(error instanceof Error ? error.message : String(error));
        }
      }),
    );
  }

  async settled(): Promise<string[]> {
    await Promise.all(this.pending);
    return this.problems;
  }
}

/** Only the API's answers; the change stream never ends, so its body cannot be read whole. */
const checked = (url: string) => {
  const { pathname } = new URL(url);
  return pathname.startsWith('/v1/') && pathname !== '/v1/changes/stream';
};

export const test = base.extend<
  { workspace: Workspace; chromium: undefined; contractLog: ContractLog },
  { service: Service; contract: Contract }
>({
  chromium: [
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
      // Keys are not cached, so a revoked key is refused at once. Webhooks may reach the tests'
      // receivers on loopback.
      const process = await startService({
        DATABASE_URL: database.url,
        KEY_CACHE_TTL_MS: '0',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      const firstKey = /\n\s+(rk_\S+)/.exec(process.output())?.[1];
      if (!firstKey) throw new Error(`no key printed on first start:\n${process.output()}`);
      await use({ process, database, firstKey });
      await process.stop();
      await database.drop();
    },
    { scope: 'worker' },
  ],
  contract: [
    async ({ service }, use) => {
      const document = await (await fetch(`${service.process.url}/v1/openapi.json`)).json();
      await use(new Contract(document));
    },
    { scope: 'worker' },
  ],
  contractLog: async ({ contract }, use) => {
    const log = new ContractLog(contract);
    await use(log);
    expect(await log.settled(), 'answers the OpenAPI document does not allow').toEqual([]);
  },
  page: async ({ page, contractLog }, use) => {
    page.on('response', (response) => {
      if (!checked(response.url())) return;
      const answer = Promise.all([
        response.text(),
        response.allHeaders(),
        response.request().allHeaders(),
      ]).then(
        ([body, headers, sent]) =>
          // The browser revalidated its cached copy (If-None-Match): the service answered 304 with
          // no body, and the page was given the cached 200. The 304 is what the service said.
          sent['if-none-match'] && !headers['content-type']
            ? { statusCode: 304, headers, body: '' }
            : // Chromium keeps no body of a download (Content-Disposition: attachment): unchecked.
              body === '' && headers['content-length'] !== '0'
              ? null
              : { statusCode: response.status(), headers, body },
        () => null, // the page went on before its body was read
      );
      contractLog.record(response.request().method(), response.url(), answer);
    });
    await use(page);
  },
  baseURL: async ({ service }, use) => use(service.process.url),
  workspace: async ({ service, contractLog }, use, testInfo) => {
    const name = `ws-${testInfo.testId}-${testInfo.repeatEachIndex}-${testInfo.retry}`;
    const { key } = await createKeyWithCli(service.database.url, name, 'tester');
    const env = { DATABASE_URL: service.database.url };
    const revoke = async () => {
      const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as {
        id: string;
        workspace: string;
      }[];
      const row = rows.find((candidate) => candidate.workspace === name);
      if (!row || (await runCli(['keys', 'revoke', row.id], env)).code !== 0)
        throw new Error(`could not revoke the key of ${name}`);
    };
    const checkedFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const request = input instanceof Request ? input : new Request(input, init);
      if (checked(request.url)) {
        const copy = response.clone();
        const answer = copy.text().then((body) => ({
          statusCode: copy.status,
          headers: Object.fromEntries(copy.headers.entries()),
          body,
        }));
        contractLog.record(request.method, request.url, answer);
      }
      return response;
    };
    const api = createClient({ baseUrl: service.process.url, key, fetch: checkedFetch });
    await use({ key, api, revoke });
  },
});

export { expect };

/** Opens the console and signs in with `key`, as a person does. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
}

/** Opens Import & export and chooses a file holding `text`, as a person picks one from disk. */
export async function chooseImportFile(page: Page, name: string, text: string): Promise<void> {
  await page.getByRole('link', { name: 'Import & export' }).click();
  await page.locator('input[type=file]').setInputFiles({
    name,
    mimeType: 'application/json',
    buffer: Buffer.from(text),
  });
}

/** The data of a successful call, failing the test with the error body otherwise. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (!answer.response.ok || answer.data === undefined) {
    throw new Error(`API answered ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}
