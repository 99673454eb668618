// People in the console: signing in with a password, the Members, Keys and Activity pages, and what a
// role shows: a viewer is offered no control that writes, so the service never has to refuse one.
import type { Page, Response } from '@playwright/test';
import { createClient, type RulekeeperClient } from '../../src/client/index.js';
import { createKeyWithCli, runCli } from '../../test/helpers/cli.js';
import { givePassword, PASSWORD } from '../../test/helpers/people.js';
import { seriousViolations } from './axe.js';
import { expect, ok, type Service, test } from './fixtures.js';

interface Team {
  workspace: string;
  /** The owner's API key (made by the CLI), to arrange through the API. */
  api: RulekeeperClient;
  owner: Person;
  editor: Person;
  viewer: Person;
}

interface Person {
  name: string;
  email: string;
}

/**
 * A workspace of the test's own, as an operator makes it: its first user (the owner) by `keys create`,
 * an editor and a viewer by `members add`, each given an email and a password.
 */
async function makeTeam(service: Service): Promise<Team> {
  const url = service.database.url;
  const suffix = test.info().testId;
  const workspace = `team-${suffix}`;
  const person = (who: string) => ({ name: `${who}-${suffix}`, email: `${who}.${suffix}@example.com` });
  const [owner, editor, viewer] = [person('olga'), person('ed'), person('vic')];
  const { key } = await createKeyWithCli(url, workspace, owner.name, ['--scope', 'admin']);
  for (const [who, role] of [
    [editor, 'editor'],
    [viewer, 'viewer'],
  ] as const) {
    const added = await runCli(
      ['members', 'add', '--workspace', workspace, '--user', who.name, '--role', role],
      { DATABASE_URL: url },
    );
    if (added.code !== 0) throw new Error(`members add failed: ${added.stderr}`);
  }
  for (const who of [owner, editor, viewer]) await givePassword(url, who.name, who.email);
  return {
    workspace,
    api: createClient({ baseUrl: service.process.url, key }),
    owner,
    editor,
    viewer,
  };
}

async function signInAs(page: Page, who: Person, role: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText(`${who.name} · ${role}`)).toBeVisible();
}

async function openPage(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Email')).toBeVisible();
}

test('an owner changes a role and removes a member; a refusal says why; the activity tells it all', async ({
  page,
  service,
}) => {
  const team = await makeTeam(service);
  await signInAs(page, team.owner, 'owner');
  await openPage(page, 'Members', 'Members');
  const rows = page.getByRole('table', { name: 'Members of the workspace' }).getByRole('row');
  await expect(rows).toHaveCount(4); // the heading row and three members
  await expect(page.getByRole('row', { name: new RegExp(team.owner.name) })).toContainText('you');

  // Only an owner is offered "owner"; every role is offered here.
  const editorRole = page.getByLabel(`Role of ${team.editor.name}`);
  await expect(editorRole.locator('option')).toHaveText(['viewer', 'editor', 'admin', 'owner']);
  await editorRole.selectOption('viewer');
  await expect(
    page.getByRole('status').filter({ hasText: `“${team.editor.name}” is now a viewer.` }),
  ).toBeVisible();
  await expect(editorRole).toHaveValue('viewer');
  const members = ok(await team.api.GET('/v1/members')).data;
  expect(members.find((m) => m.name === team.editor.name)?.role).toBe('viewer');

  // The last owner cannot step down: asked first, then refused in words that say what to do.
  await page.getByLabel(`Role of ${team.owner.name}`).selectOption('admin');
  const question = page.getByRole('dialog', { name: 'Make yourself an admin?' });
  await expect(question).toBeVisible();
  expect(await seriousViolations(page), 'own role dialog').toEqual([]);
  await question.getByRole('button', { name: 'Make me an admin' }).click();
  await expect(page.getByRole('alert')).toContainText('the workspace must keep at least one owner');
  await expect(page.getByLabel(`Role of ${team.owner.name}`)).toHaveValue('owner');

  await page.getByRole('button', { name: `Remove ${team.viewer.name}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: `“${team.viewer.name}” was removed` }),
  ).toBeVisible();
  await expect(rows).toHaveCount(3);
  expect(await seriousViolations(page), 'members as owner').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('members.png'), fullPage: true });

  await openPage(page, 'Activity', 'Activity');
  const entries = page.getByRole('list', { name: 'Activity, newest first' }).getByRole('listitem');
  // A removed member is no longer among the members whose names the console knows.
  await expect(entries.first()).toContainText(`${team.owner.name} removed a former member (usr_`);
  await expect(entries.first()).toContainText('), a viewer');
  await expect(entries.nth(1)).toContainText(
    `${team.owner.name} changed the role of ${team.editor.name} from editor to viewer`,
  );
  // Security events say the way in and the address.
  await expect(entries.nth(1)).toContainText('signed in · from 127.0.0.1');
  await expect(page.getByText(`${team.owner.name} signed in with a password`)).toBeVisible();
  expect(await seriousViolations(page), 'activity as owner').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('activity.png'), fullPage: true });

  await page.getByLabel('What').selectOption({ label: 'Role changed' });
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toContainText('from editor to viewer');
  await page.getByLabel('What').selectOption({ label: 'Everything' });
  await page.getByLabel('Who').selectOption({ label: team.editor.name });
  await expect(page.getByText('Nothing happened here that matches yet.')).toBeVisible();
});

test('the activity pages back with "Load more", newest first', async ({ page, service }) => {
  const team = await makeTeam(service);
  // More changes than a page holds (50).
  for (let i = 0; i < 55; i += 1)
    ok(await team.api.POST('/v1/groups', { body: { name: `group ${String(i).padStart(2, '0')}` } }));
  await signInAs(page, team.viewer, 'viewer');
  await openPage(page, 'Activity', 'Activity');
  const entries = page.getByRole('list', { name: 'Activity, newest first' }).getByRole('listitem');
  await expect(entries).toHaveCount(50);
  await expect(entries.first()).toContainText(`${team.owner.name} created a group`);
  // A viewer is offered the changes' kinds and the team's work, not the security events'.
  await expect(page.getByLabel('What').locator('optgroup')).toHaveCount(2);
  await expect(page.getByLabel('What').locator('optgroup[label="Security"]')).toHaveCount(0);
  await expect(page.getByLabel('What').locator('option', { hasText: 'Signed in' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(entries).toHaveCount(55);
  await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
});

/** The names of every control on the page that can be used (enabled buttons, links styled as buttons, fields). */
async function controls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const named = (element: Element) =>
      (
        element.getAttribute('aria-label') ??
        (element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null) ??
        element.textContent ??
        ''
      ).trim();
    const usable = [
      ...document.querySelectorAll('main button, main a.button, main input, main select, main textarea'),
    ].filter(
      (element) =>
        !(element as HTMLButtonElement).disabled &&
        (element as HTMLElement).offsetParent !== null &&
        !element.closest('fieldset[disabled]'),
    );
    return usable.map(named);
  });
}

test('a viewer sees no edit controls on any page, and is refused nothing since nothing is offered', async ({
  page,
  service,
}) => {
  const team = await makeTeam(service);
  const group = ok(await team.api.POST('/v1/groups', { body: { name: 'Checkout' } })).data;
  const rule = ok(
    await team.api.POST('/v1/rules', {
      body: {
        name: 'checkout redirect',
        ruleType: 'Redirect',
        status: 'Active',
        groupId: group.id,
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'checkout' },
            destinationType: 'url',
            destination: 'https://staging.example.com/checkout',
          },
        ],
      },
    }),
  ).data;
  ok(
    await team.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: rule.id } },
      body: { description: 'to staging' },
    }),
  );
  const gone = ok(
    await team.api.POST('/v1/rules', {
      body: {
        name: 'gone',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
      },
    }),
  ).data;
  ok(await team.api.DELETE('/v1/rules/{ruleId}', { params: { path: { ruleId: gone.id } } }));

  const refused: string[] = [];
  page.on('response', (response: Response) => {
    if (response.status() === 403) refused.push(`${response.request().method()} ${response.url()}`);
  });
  await signInAs(page, team.viewer, 'viewer');

  // Rules: no new rule, no template, no selection, no switches; the status is said in words.
  const note = page.getByRole('note');
  await expect(note).toHaveText('You can view rules; your role is viewer.');
  await expect(page.getByRole('link', { name: 'checkout redirect' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'New rule' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'From a template' })).toHaveCount(0);
  await expect(page.getByRole('switch')).toHaveCount(0);
  await expect(page.getByRole('checkbox')).toHaveCount(0);
  await expect(page.locator('.rule-row .status-text')).toHaveText('Active');
  expect(await controls(page)).toEqual([
    'Recently deleted',
    'Search names, descriptions and sources',
    'Status',
    'Type',
    'Group',
    'Pinned',
    'Sort by',
  ]);
  expect(await seriousViolations(page), 'rules as viewer').toEqual([]);
  // The shortcut for a new rule does nothing, and is not listed.
  await page.keyboard.press('n');
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).not.toContainText('New rule');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();

  // The editor: every field disabled, nothing to save, delete or restore; trying it stays.
  await page.getByRole('link', { name: 'checkout redirect' }).click();
  await expect(page.getByRole('heading', { name: 'Rule “checkout redirect”', level: 1 })).toBeVisible();
  await expect(note).toHaveText('You can view rules; your role is viewer.');
  await expect(page.getByLabel('Name', { exact: true })).toBeDisabled();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('checkout redirect');
  await expect(page.getByRole('button', { name: 'Save' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(page.getByText('Version 2', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Restore/ })).toHaveCount(0);
  expect(await controls(page)).toEqual(
    expect.not.arrayContaining(['Save', 'Delete', 'Create rule', 'Restore version 1']),
  );
  expect(await seriousViolations(page), 'editor as viewer').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('editor-viewer.png'), fullPage: true });
  await page.getByRole('button', { name: 'JSON' }).click();
  const json = page.getByRole('textbox', { name: 'The rule as JSON' });
  await expect(json).toHaveAttribute('aria-readonly', 'true');
  await json.click();
  await page.keyboard.type('broken');
  await expect(json).not.toContainText('broken');
  await page.getByLabel('URL', { exact: true }).fill('https://shop.example.com/checkout');
  await page.getByRole('button', { name: 'Test this rule' }).click();
  await expect(page.getByTestId('trace-outcome')).toBeVisible();

  // A new rule's address shows no form.
  await page.goto('/#/rules/new');
  await expect(page.getByRole('heading', { name: 'New rule', level: 1 })).toBeVisible();
  await expect(note).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create rule' })).toHaveCount(0);
  await expect(page.getByLabel('Name', { exact: true })).toHaveCount(0);

  // Recently deleted: listed, not restorable.
  await page.goto('/#/deleted');
  await expect(page.getByText('gone', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Restore/ })).toHaveCount(0);

  await openPage(page, 'Groups', 'Groups');
  await expect(page.getByText('Checkout', { exact: true })).toBeVisible();
  await expect(note).toHaveText('You can view groups; your role is viewer.');
  expect(await controls(page)).toEqual([]);

  await openPage(page, 'Templates', 'Templates');
  await expect(page.locator('.template-card').first()).toBeVisible();
  await expect(page.locator('.template-card a')).toHaveCount(0);
  expect(await seriousViolations(page), 'templates as viewer').toEqual([]);

  await openPage(page, 'Import & export', 'Import and export');
  await expect(page.locator('input[type=file]')).toHaveCount(0);
  expect(await controls(page)).toEqual(['Export to a file']);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export to a file' }).click();
  await download;

  await openPage(page, 'Members', 'Members');
  await expect(page.getByRole('row', { name: new RegExp(team.owner.name) })).toContainText('owner');
  expect(await controls(page)).toEqual([]);
  expect(await seriousViolations(page), 'members as viewer').toEqual([]);

  // Keys: a viewer makes read keys for themself, no broader, and no workspace key.
  await openPage(page, 'Keys', 'Keys');
  await expect(page.getByLabel('Scope').locator('option')).toHaveText(['read']);
  await expect(page.getByLabel('For a machine (workspace key)')).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Your keys' })).toBeVisible();

  await openPage(page, 'Activity', 'Activity');
  await expect(page.getByText(`${team.owner.name} changed a rule`)).toBeVisible();
  // Security events are for admins: not even the viewer's own sign-in.
  await expect(page.getByText('signed in with a password')).toHaveCount(0);

  expect(refused, 'requests the service refused').toEqual([]);
});

test('a key is made, shown once, gone after leaving or reloading, and revoked; an admin sees both in the activity', async ({
  page,
  service,
}) => {
  const team = await makeTeam(service);
  await signInAs(page, team.editor, 'editor');
  await openPage(page, 'Keys', 'Keys');
  await expect(page.getByRole('heading', { name: 'Your keys' })).toBeVisible();
  await expect(page.getByText('No keys.')).toBeVisible();
  // An editor's personal keys reach write, not admin; a workspace key is for admins.
  await expect(page.getByLabel('Scope').locator('option')).toHaveText(['read', 'write']);
  await expect(page.getByLabel('For a machine (workspace key)')).toHaveCount(0);

  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByText('Give the key a name')).toBeVisible();
  await page.getByLabel('Name').fill('laptop');
  await page.getByLabel('Scope').selectOption('write');
  const inTenDays = new Date(Date.now() + 10 * 24 * 3600_000).toISOString().slice(0, 10);
  await page.getByLabel(/^Expires/).fill(inTenDays);
  await page.getByRole('button', { name: 'Create key' }).click();

  const shown = page.getByRole('region', { name: 'Your new key “laptop”' });
  await expect(shown).toContainText('you will not see it again');
  await expect(shown.getByRole('heading')).toBeFocused();
  const key = await page.getByLabel('The key (write)').inputValue();
  expect(key).toMatch(/^rk_/);
  // The key works, as an editor's write key.
  const whoami = await fetch(`${service.process.url}/v1/whoami`, { headers: { 'x-api-key': key } });
  expect(whoami.status).toBe(200);
  expect((await whoami.json()).data.key.scope).toBe('write');

  const row = page.getByRole('row', { name: /laptop/ });
  await expect(row).toContainText('write');
  await expect(row).toContainText('you');
  await expect(row).toContainText(/in 1[01] days/);
  await expect(row).toContainText('active');
  // Nowhere but in the page: no storage, no address.
  expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(
    key,
  );
  expect(page.url()).not.toContain(key);

  // Left and come back: gone.
  await openPage(page, 'Rules', 'Rules');
  await openPage(page, 'Keys', 'Keys');
  await expect(page.getByRole('row', { name: /laptop/ })).toBeVisible();
  await expect(page.getByLabel('The key (write)')).toHaveCount(0);
  expect(await page.content()).not.toContain(key);
  // Reloaded: gone too; the service never shows it again.
  await page.reload();
  await expect(page.getByRole('row', { name: /laptop/ })).toBeVisible();
  expect(await page.content()).not.toContain(key);

  await page.getByRole('button', { name: 'Revoke laptop' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByRole('status').filter({ hasText: '“laptop” is revoked' })).toBeVisible();
  await expect(page.getByRole('row', { name: /laptop/ })).toContainText('revoked');
  await expect(page.getByRole('button', { name: 'Revoke laptop' })).toHaveCount(0);
  expect((await fetch(`${service.process.url}/v1/whoami`, { headers: { 'x-api-key': key } })).status).toBe(
    401,
  );
  await signOut(page);

  // The owner sees every key, makes a workspace key for a machine, and reads the key events.
  await signInAs(page, team.owner, 'owner');
  await openPage(page, 'Keys', 'Keys');
  await expect(page.getByRole('heading', { name: 'Keys of the workspace' })).toBeVisible();
  await expect(page.getByRole('row', { name: /laptop/ })).toContainText(team.editor.name);
  await expect(page.getByLabel('Scope').locator('option')).toHaveText(['read', 'write', 'admin']);
  await page.getByLabel('Name').fill('CI reader');
  await page.getByLabel('For a machine (workspace key)').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('region', { name: 'Your new key “CI reader”' })).toBeVisible();
  expect(await seriousViolations(page), 'keys with a new key shown').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('new-key.png'), fullPage: true });
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByLabel('The key (read)')).toHaveCount(0);
  const machine = page.getByRole('row', { name: /CI reader/ });
  await expect(machine).toContainText('machine (workspace key)');
  await expect(machine).toContainText('never');
  expect(await seriousViolations(page), 'keys as owner').toEqual([]);

  await openPage(page, 'Activity', 'Activity');
  await page.getByLabel('Who').selectOption({ label: team.editor.name });
  const entries = page.getByRole('list', { name: 'Activity, newest first' }).getByRole('listitem');
  // Newest first: the editor signed out after revoking the key they had made.
  await expect(entries.nth(0)).toContainText(`${team.editor.name} signed out`);
  await expect(entries.nth(1)).toContainText(`${team.editor.name} revoked the key “laptop”`);
  await expect(entries.nth(1)).toContainText('signed in · from 127.0.0.1');
  await expect(entries.nth(2)).toContainText(`${team.editor.name} made the key “laptop” (write scope)`);
  await expect(entries.nth(3)).toContainText(`${team.editor.name} signed in with a password`);
  await page.getByLabel('Who').selectOption({ label: `${team.owner.name} (you)` });
  await page.getByLabel('What').selectOption({ label: 'Key made' });
  await expect(entries.first()).toContainText(
    `${team.owner.name} made the key “CI reader” (read scope, for a machine)`,
  );
});
