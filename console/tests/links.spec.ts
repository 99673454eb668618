// Single-use links in the console: an invite accepted (a new account, signed in with the invite's
// role), a password reset, and "forgot password". Each link works once; its token leaves the address.
import { createClient } from '../../src/client/index.js';
import { createKeyWithCli } from '../../test/helpers/cli.js';
import { givePassword, PASSWORD } from '../../test/helpers/people.js';
import { expect, ok, test } from './fixtures.js';

/** An admin's client of a new workspace of the test's own, and the workspace's name. */
async function adminOf(url: string, base: string, suffix: string) {
  const workspace = `links-${suffix}`;
  const { key } = await createKeyWithCli(url, workspace, `owner-${suffix}`, ['--scope', 'admin']);
  return { workspace, api: createClient({ baseUrl: base, key }) };
}

test('an invite opens a new account with its role, signed in, and works once', async ({ page, service }) => {
  const suffix = test.info().testId;
  const { api } = await adminOf(service.database.url, service.process.url, suffix);
  const email = `invited.${suffix}@example.com`;
  const { link } = ok(await api.POST('/v1/invites', { body: { email, role: 'viewer' } })).data;
  const address = new URL(link);

  await page.goto(address.pathname + address.hash);
  await expect(page.getByRole('heading', { name: 'Join Rulekeeper' })).toBeVisible();
  await page.getByLabel('Name').fill('Ivy');
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Join' }).click();
  await expect(page.locator('#accept-error')).toContainText('12');

  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await expect(page.getByText('Ivy · viewer')).toBeVisible();
  // The token is gone from the address and the tab's history entry.
  expect(page.url()).not.toContain('token=');

  // Used once: the same link again says so.
  await page.goto(address.pathname + address.hash);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
  await expect(page.getByText('This link no longer works')).toBeVisible();
});

test('a reset link sets a new password, which then signs in; the old one no longer does', async ({
  page,
  service,
}) => {
  const suffix = test.info().testId;
  const url = service.database.url;
  const { workspace, api } = await adminOf(url, service.process.url, suffix);
  const member = await createKeyWithCli(url, workspace, `rory-${suffix}`);
  const email = `rory.${suffix}@example.com`;
  await givePassword(url, `rory-${suffix}`, email);
  const { link } = ok(
    await api.POST('/v1/members/{userId}/reset', { params: { path: { userId: member.userId } } }),
  ).data;
  const address = new URL(link);

  await page.goto(address.pathname + address.hash);
  await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
  await page.getByLabel('New password, again').fill('a brand new passphrase');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Your password is changed')).toBeVisible();

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('That email and password do not match an account here.')).toBeVisible();
  await page.getByLabel('Password').fill('a brand new passphrase');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
});

test('"forgot your password?" answers the same for any email', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Your email').fill('nobody@example.com');
  await page.getByRole('button', { name: 'Send me a link' }).click();
  await expect(page.getByText('If an account has this email')).toBeVisible();
});
