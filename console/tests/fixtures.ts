// What every console test stands on: the real service (one per worker, `rulekeeper serve` on a
// temporary SQLite file), a workspace of the test's own with its key (so tests never see each
// other's rules), the typed client to arrange and check through the API, and signing in.
import { test as base, expect, type Page } from '@playwright/test';
import { createClient, type RulekeeperClient } from '../../src/client/index.js';
import { CHROMIUM } from '../../test/helpers/chromium.js';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../../test/helpers/cli.js';
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

export const test = base.extend<{ workspace: Workspace; chromium: undefined }, { service: Service }>({
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
      // Keys are not cached, so a revoked key is refused at once.
      const process = await startService({ DATABASE_URL: database.url, KEY_CACHE_TTL_MS: '0' });
      const firstKey = /\n\s+(rk_\S+)/.exec(process.output())?.[1];
      if (!firstKey) throw new Error(`no key printed on first start:\n${process.output()}`);
      await use({ process, database, firstKey });
      await process.stop();
      await database.drop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ service }, use) => use(service.process.url),
  workspace: async ({ service }, use, testInfo) => {
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
    await use({ key, api: createClient({ baseUrl: service.process.url, key }), revoke });
  },
});

export { expect };

/** Opens the console and signs in with `key`, as a person does. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
}

/** The data of a successful call, failing the test with the error body otherwise. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (!answer.response.ok || answer.data === undefined) {
    throw new Error(`API answered ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}
