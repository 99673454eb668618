import { createKeyWithCli } from '../../test/helpers/cli.js';
import { givePassword, PASSWORD } from '../../test/helpers/people.js';
import { expect, ok, signIn, test } from './fixtures.js';

test('a person signs in with a password, switches workspace, and signs out everywhere it mattered', async ({
  page,
  service,
}) => {
  const url = service.database.url;
  const suffix = test.info().testId;
  // Dana writes in one workspace and only reads in another (a read key made her a viewer there).
  await createKeyWithCli(url, `team-${suffix}`, `dana-${suffix}`);
  await createKeyWithCli(url, `team-${suffix}`, `dana-${suffix}`);
  await createKeyWithCli(url, `audit-${suffix}`, `owner-${suffix}`);
  await createKeyWithCli(url, `audit-${suffix}`, `dana-${suffix}`, ['--scope', 'read']);
  const email = `dana.${suffix}@example.com`;
  await givePassword(url, `dana-${suffix}`, email);

  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not her password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('That email and password do not match an account here.')).toBeVisible();

  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await expect(page.getByText(`dana-${suffix} · owner`)).toBeVisible();
  // Nothing of the session is readable by the page: the cookie is HttpOnly, the storage holds no key.
  expect(await page.evaluate(() => document.cookie)).toBe('');
  expect(await page.evaluate(() => sessionStorage.getItem('rulekeeper.apiKey'))).toBeNull();

  await page.getByLabel('Workspace').selectOption({ label: `audit-${suffix}` });
  await expect(page.getByText(`dana-${suffix} · viewer`)).toBeVisible();
  await page.reload();
  await expect(page.getByText(`dana-${suffix} · viewer`)).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Email')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Email')).toBeVisible();
});

test('a newcomer signs in with the key printed on first start, and signs out', async ({ page, service }) => {
  await page.goto('/');
  await page.screenshot({ path: test.info().outputPath('sign-in.png') });
  await page.getByLabel('API key', { exact: true }).fill('rk_notakey');
  await page.getByRole('button', { name: 'Use key' }).click();
  await expect(page.getByText('The service does not accept this key')).toBeVisible();

  await page.getByLabel('API key', { exact: true }).fill(service.firstKey);
  await page.getByRole('button', { name: 'Use key' }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  // Kept for the tab's session only, and nowhere in the address.
  expect(await page.evaluate(() => sessionStorage.getItem('rulekeeper.apiKey'))).toBe(service.firstKey);
  expect(await page.evaluate(() => localStorage.length)).toBe(0);
  expect(page.url()).not.toContain(service.firstKey);

  await page.reload();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API key', { exact: true })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});

test('a key revoked while the console is open signs out with a clear message', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await workspace.revoke();
  // Nothing clicked: the change stream ends with the key, and following it again is refused.
  await expect(page.getByText('no longer accepts this API key')).toBeVisible();
  await expect(page.getByLabel('API key', { exact: true })).toBeVisible();
});

test('the hint for a missing key shows the commands as code, not backticks', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Use key' }).click();
  const key = page.getByLabel('API key', { exact: true });
  await expect(key).toHaveAccessibleDescription(
    /^Paste the API key that npm start or rulekeeper keys create printed\./,
  );
  await expect(page.locator('#api-key-error code')).toHaveText(['npm start', 'rulekeeper keys create']);
  await expect(page.locator('#api-key-error')).not.toContainText('`');
});

test('an address opened the moment the console has signed in is the page shown', async ({
  page,
  workspace,
}) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'opened at once',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
      },
    }),
  ).data;
  await page.goto('/');
  // The address changes as soon as the signed-in console has first drawn its page, before its
  // effects have run: as when a test, or a quick person, opens a rule right after signing in.
  await page.evaluate((hash) => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('h1')?.textContent !== 'Rules') return;
      observer.disconnect();
      location.hash = hash;
    }).observe(document.body, { childList: true, subtree: true });
  }, `#/rules/${created.id}`);
  await page.getByLabel('API key', { exact: true }).fill(workspace.key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await expect(page.getByRole('region', { name: 'What this rule does' })).toBeVisible();
});
