// A team gets in, as a new user would try it: `rulekeeper serve` on a new database prints a setup link;
// its owner makes herself an account, invites an editor and a viewer from the Members page; each joins
// through their link; the viewer then signs in through single sign-on (a real OpenID provider on
// loopback); the viewer's change is refused with `Unauthorized action`; the owner sees it all in the
// Activity; she removes the editor, whose session and key stop at once.
import type { Browser, Page } from '@playwright/test';
import { scratchDatabase } from '../../test/helpers/cli.js';
import { startProvider } from '../../test/helpers/openid-provider.js';
import { PASSWORD } from '../../test/helpers/people.js';
import { startService } from '../../test/helpers/service-process.js';
import { expect, test } from './fixtures.js';

async function openPage(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await expect(page.getByRole('heading', { name: label, level: 1 })).toBeVisible();
}

/** Opens `link` in a browser context of its own (another person's browser) and joins as `name`. */
async function join(browser: Browser, base: string, link: string, name: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: base });
  const page = await context.newPage();
  const address = new URL(link);
  await page.goto(address.pathname + address.hash);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  return page;
}

/** Invites `email` as `role` from the Members page and answers the link shown once. */
async function invite(page: Page, email: string, role: string): Promise<string> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption(role);
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const link = await page.getByLabel('The link').inputValue();
  await page.getByRole('button', { name: 'Done' }).click();
  return link;
}

test('a team gets in through the setup link, invites and single sign-on; roles hold; a removed editor stops at once', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const provider = await startProvider();
  provider.accounts.set('viv-sub', { email: 'viv@example.com', email_verified: true });
  const database = await scratchDatabase('sqlite');
  const service = await startService({
    DATABASE_URL: database.url,
    KEY_CACHE_TTL_MS: '0',
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
  });
  provider.register(`${service.url}/auth/oidc/callback`);
  try {
    const setup = /\s(http:\/\/\S+#\/accept\?token=\S+)/.exec(service.output())?.[1];
    expect(setup, service.output()).toBeDefined();

    // The owner, through the setup link: her email is hers to choose.
    const setupAddress = new URL(setup as string);
    await page.goto(`${service.url}${setupAddress.pathname}${setupAddress.hash}`);
    await page.getByLabel('Email').fill('olive@example.com');
    await page.getByLabel('Name').fill('Olive');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Join' }).click();
    await expect(page.getByText('Olive · owner')).toBeVisible();

    await openPage(page, 'Members');
    const editorLink = await invite(page, 'ed@example.com', 'editor');
    const viewerLink = await invite(page, 'viv@example.com', 'viewer');
    await expect(page.getByRole('table', { name: 'Invites not yet accepted' }).getByRole('row')).toHaveCount(
      3,
    );

    // The editor joins and makes himself a key.
    const ed = await join(browser, service.url, editorLink, 'Ed');
    await expect(ed.getByText('Ed · editor')).toBeVisible();
    await openPage(ed, 'Keys');
    await ed.getByLabel('Name').fill('ed laptop');
    await ed.getByRole('button', { name: 'Create key' }).click();
    const edKey = await ed.getByLabel(/^The key/).inputValue();
    expect((await fetch(`${service.url}/v1/rules`, { headers: { 'x-api-key': edKey } })).status).toBe(200);

    // The viewer joins with a password, then comes back through single sign-on.
    const viv = await join(browser, service.url, viewerLink, 'Viv');
    await viv.getByRole('button', { name: 'Sign out' }).click();
    provider.next = 'viv-sub';
    await viv.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await expect(viv.getByText('Viv · viewer')).toBeVisible();
    // No edit control is offered; a change sent anyway is refused, naming the role.
    await expect(viv.getByRole('button', { name: 'New rule' })).toHaveCount(0);
    const session = await (await viv.request.get(`${service.url}/v1/session`)).json();
    const refused = await viv.request.post(`${service.url}/v1/rules`, {
      headers: { 'x-rk-csrf': session.data.csrfToken },
      data: {
        name: 'no',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.b' } }],
      },
    });
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toMatchObject({
      message: 'Unauthorized action',
      details: [{ message: 'your role in this workspace is viewer: it cannot change rules or groups' }],
    });

    // The owner sees it all in the Activity.
    await openPage(page, 'Activity');
    const activity = page.getByRole('main');
    await expect(activity).toContainText('signed in with single sign-on');
    await expect(activity).toContainText('accepted an invite');
    await expect(activity).toContainText('invited someone as an editor');
    await expect(activity).toContainText('made the key');

    // She removes the editor: his session and his key stop at once.
    await openPage(page, 'Members');
    await page.getByRole('button', { name: 'Remove Ed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
    await expect(page.getByText('“Ed” was removed from the workspace.')).toBeVisible();
    expect((await fetch(`${service.url}/v1/rules`, { headers: { 'x-api-key': edKey } })).status).toBe(401);
    // His console, open all along, hears it from the change stream and leaves, saying why.
    await expect(ed.getByText('you are no longer a member of this workspace')).toBeVisible();
    await expect(ed.getByLabel('Email')).toBeVisible();
  } finally {
    await service.stop();
    await database.drop();
    await provider.close();
  }
});
