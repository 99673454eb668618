// Reviewed changes in the console, as a team uses them: an admin requires review; an editor's save
// becomes "Propose change"; an admin finds it in the list, reads the diff and the evidence and asks
// for changes; the author, who cannot approve their own, edits it; the admin approves and merges, and
// the rule is changed. A merge over a rule that moved meanwhile names it; the review page fits a phone.
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { createClient, type RulekeeperClient } from '../../src/client/index.js';
import { createKeyWithCli, runCli } from '../../test/helpers/cli.js';
import { givePassword, PASSWORD } from '../../test/helpers/people.js';
import { expect, ok, type Service, test } from './fixtures.js';

interface Person {
  name: string;
  email: string;
}

interface Team {
  /** The owner's key, to arrange and check through the API. */
  api: RulekeeperClient;
  owner: Person;
  admin: Person;
  editor: Person;
}

/** A workspace of the test's own: its owner (by `keys create`), an admin and an editor (`members add`). */
async function makeTeam(service: Service): Promise<Team> {
  const url = service.database.url;
  const suffix = test.info().testId;
  const workspace = `review-${suffix}`;
  const person = (who: string) => ({ name: `${who}-${suffix}`, email: `${who}.${suffix}@example.com` });
  const [owner, admin, editor] = [person('olga'), person('ada'), person('ed')];
  const { key } = await createKeyWithCli(url, workspace, owner.name, ['--scope', 'admin']);
  for (const [who, role] of [
    [admin, 'admin'],
    [editor, 'editor'],
  ] as const) {
    const added = await runCli(
      ['members', 'add', '--workspace', workspace, '--user', who.name, '--role', role],
      { DATABASE_URL: url },
    );
    if (added.code !== 0) throw new Error(`members add failed: ${added.stderr}`);
  }
  for (const who of [owner, admin, editor]) await givePassword(url, who.name, who.email);
  return { api: createClient({ baseUrl: service.process.url, key }), owner, admin, editor };
}

/** Each person's browser, closed after the test (the browser outlives it). */
const opened: BrowserContext[] = [];
test.afterEach(async () => {
  await Promise.all(opened.splice(0).map((context) => context.close()));
});

async function newBrowser(browser: Browser, base: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: base });
  opened.push(context);
  return context;
}

/** Signs `who` in, in a browser of their own. */
async function signInAs(browser: Browser, base: string, who: Person, role: string): Promise<Page> {
  const context = await newBrowser(browser, base);
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText(`${who.name} · ${role}`)).toBeVisible();
  return page;
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

async function makeRule(api: RulekeeperClient, name: string, destination: string): Promise<string> {
  const body = {
    name,
    ruleType: 'Redirect',
    status: 'Active',
    pairs: [
      {
        source: { key: 'host', operator: 'Contains', value: 'api.example.com' },
        destinationType: 'url',
        destination,
      },
    ],
  };
  return ok(await api.POST('/v1/rules', { body: body as never })).data.id;
}

async function destinationOf(api: RulekeeperClient, ruleId: string): Promise<unknown> {
  const rule = ok(await api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId } } })).data;
  return (rule.pairs[0] as { destination?: unknown }).destination;
}

test('an editor proposes a change; an admin asks for changes, the author edits, the admin approves and merges', async ({
  browser,
  service,
}) => {
  test.setTimeout(120_000);
  const team = await makeTeam(service);
  const ruleId = await makeRule(team.api, 'API to staging', 'https://staging.example.com');
  const base = service.process.url;
  // A suite kept in the workspace expects the orders to go where the rule sends them now.
  const request = { url: 'https://api.example.com/v1/orders' };
  const traced = ok(await team.api.POST('/v1/trace', { body: { request } })).data;
  const cases = [{ name: 'orders go to staging', request, expect: { url: traced.outcome.url } }];
  ok(await team.api.POST('/v1/test-suites', { body: { name: 'staging', cases } }));

  // The admin requires review, on the Settings page the navigation shows admins.
  const admin = await signInAs(browser, base, team.admin, 'admin');
  await nav(admin).getByRole('link', { name: 'Settings' }).click();
  await expect(admin.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await admin.getByLabel('Required: editors propose changes for review').check();
  await expect(admin.locator('main').getByRole('status')).toContainText('Review is required');
  expect(ok(await team.api.GET('/v1/settings')).data.review).toBe('required');

  // The editor sees no Settings, and their save is now "Propose change".
  const editor = await signInAs(browser, base, team.editor, 'editor');
  await expect(nav(editor).getByRole('link', { name: 'Settings' })).toHaveCount(0);
  await editor.goto(`/#/rules/${ruleId}`);
  await expect(editor.getByRole('heading', { name: 'Edit rule “API to staging”' })).toBeVisible();
  await expect(editor.getByRole('button', { name: 'Save', exact: true })).toHaveCount(0);
  const pair = editor.getByRole('group', { name: 'Pair 1' });
  await pair.getByLabel('Destination', { exact: true }).fill('https://staging-2.example.com');
  await editor.getByRole('button', { name: 'Propose change' }).click();
  const dialog = editor.getByRole('dialog', { name: 'Propose change' });
  await expect(dialog.getByLabel('Title')).toHaveValue('Change the rule “API to staging”');
  await dialog.getByLabel('Title').fill('Staging moved to staging-2');
  await dialog.getByLabel('Description').fill('The old staging is being retired on Friday.');
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  await expect(editor.getByRole('heading', { name: 'Staging moved to staging-2', level: 1 })).toBeVisible();
  // Nothing changed yet.
  expect(await destinationOf(team.api, ruleId)).toBe('https://staging.example.com');
  const crId = decodeURIComponent(editor.url().split('/').pop() as string);

  // The author cannot review their own, and is told why.
  await expect(editor.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  await expect(editor.getByText('You proposed this change, so you cannot approve it')).toBeVisible();

  // The admin finds it in the list (the navigation counts it), and opens it.
  await admin.reload();
  await expect(nav(admin).getByRole('link', { name: /Change requests 1 open/ })).toBeVisible();
  await nav(admin)
    .getByRole('link', { name: /Change requests/ })
    .click();
  const row = admin.getByRole('row', { name: /Staging moved to staging-2/ });
  await expect(row).toContainText(team.editor.name);
  await expect(row).toContainText('Open');
  await row.getByRole('link', { name: 'Staging moved to staging-2' }).click();
  await expect(admin.getByText('The old staging is being retired on Friday.')).toBeVisible();

  // The diff: the field in words, before and after side by side.
  const diff = admin.getByRole('table', { name: 'What operation 1 changes' });
  const changed = diff.getByRole('row', { name: /pair 1 › destination/ });
  await expect(changed.getByRole('cell').first()).toHaveText('https://staging.example.com');
  await expect(changed.getByRole('cell').last()).toHaveText('https://staging-2.example.com');
  // The evidence: the stored suite's case starts failing, and its request's trace before and after.
  await expect(admin.getByRole('heading', { name: 'What it would do' })).toBeVisible();
  const evidence = admin.locator('.evidence');
  await expect(evidence).toContainText('“staging”: before, 1 passed, 0 failed; after, 0 passed, 1 failed.');
  await expect(evidence.getByText('“orders go to staging” starts failing')).toBeVisible();
  const outcome = evidence.locator('.outcome-diff');
  await expect(outcome.locator('.columns > div').first()).toContainText(`→ ${traced.outcome.url}`);
  await expect(outcome.locator('.columns > div').last()).toContainText('→ https://staging-2.example.com');
  await admin.screenshot({ path: test.info().outputPath('review-page.png'), fullPage: true });

  await admin.getByLabel('Comment').fill('Use the EU staging host.');
  await admin.getByRole('button', { name: 'Request changes' }).click();
  await expect(admin.locator('.cr-meta .tag')).toHaveText('Changes requested');

  // The author reads the request, and edits the operation in the rule editor.
  await editor.reload();
  await expect(editor.getByText('Use the EU staging host.')).toBeVisible();
  await editor.getByRole('link', { name: 'Edit operation 1' }).click();
  await expect(editor.getByRole('heading', { name: /Operation 1: change the rule/ })).toBeVisible();
  const edited = editor.getByRole('group', { name: 'Pair 1' }).getByLabel('Destination', { exact: true });
  await expect(edited).toHaveValue('https://staging-2.example.com');
  await edited.fill('https://staging-eu.example.com');
  await editor.getByRole('button', { name: 'Save to the change request' }).click();
  await expect(editor.getByRole('heading', { name: 'Staging moved to staging-2', level: 1 })).toBeVisible();
  await expect(editor.getByRole('status').filter({ hasText: 'waits for a review again' })).toBeVisible();

  // The admin approves the new version and merges it.
  await admin.reload();
  await expect(admin.locator('.cr-meta .tag')).toHaveText('Open');
  await expect(
    admin
      .getByRole('table', { name: 'What operation 1 changes' })
      .getByText('https://staging-eu.example.com'),
  ).toBeVisible();
  // By keyboard: from the comment, the next stop is Approve.
  await admin.getByLabel('Comment').focus();
  await admin.keyboard.type('Looks right now.');
  await admin.keyboard.press('Tab');
  await expect(admin.getByRole('button', { name: 'Approve' })).toBeFocused();
  await admin.keyboard.press('Enter');
  await expect(admin.locator('.cr-meta .tag')).toHaveText('Approved');
  await admin.getByRole('button', { name: 'Merge' }).click();
  await expect(admin.getByRole('status').filter({ hasText: 'Merged' })).toBeVisible();
  await expect(admin.locator('.cr-meta .tag')).toHaveText('Merged');
  expect(await destinationOf(team.api, ruleId)).toBe('https://staging-eu.example.com');
  // Merged, the diff still reads from the rule as it was just before the merge.
  await admin.reload();
  await expect(admin.getByText(/^Merged as revision \d+: “before” is the rule/)).toBeVisible();
  const mergedRow = admin
    .getByRole('table', { name: 'What operation 1 changes' })
    .getByRole('row', { name: /pair 1 › destination/ });
  await expect(mergedRow.getByRole('cell').first()).toHaveText('https://staging.example.com');
  await expect(mergedRow.getByRole('cell').last()).toHaveText('https://staging-eu.example.com');
  const merged = ok(await team.api.GET('/v1/change-requests/{id}', { params: { path: { id: crId } } })).data;
  expect(merged.state).toBe('merged');
  expect(merged.reviews.map((r) => [r.verdict, r.comment])).toEqual([
    ['request_changes', 'Use the EU staging host.'],
    ['approve', 'Looks right now.'],
  ]);
});

test('a merge over a rule changed meanwhile names it; the review page fits 390 px', async ({
  browser,
  service,
}) => {
  test.setTimeout(120_000);
  const team = await makeTeam(service);
  const ruleId = await makeRule(team.api, 'Checkout to sandbox', 'https://sandbox.example.com');
  ok(await team.api.PATCH('/v1/settings', { body: { review: 'required' } }));
  const base = service.process.url;

  // The editor proposes switching the rule off, from the editor.
  const editor = await signInAs(browser, base, team.editor, 'editor');
  await editor.goto(`/#/rules/${ruleId}`);
  // What the service refuses in a proposal is shown at the field, as a save's refusal is.
  const destination = editor
    .getByRole('group', { name: 'Pair 1' })
    .getByLabel('Destination', { exact: true });
  await destination.fill('');
  await editor.getByRole('button', { name: 'Propose change' }).click();
  await editor
    .getByRole('dialog', { name: 'Propose change' })
    .getByRole('button', { name: 'Propose change' })
    .click();
  await expect(editor.getByRole('dialog')).toBeHidden();
  await expect(editor.getByRole('alert')).toContainText('The change was not proposed.');
  await expect(destination).toHaveAttribute('aria-invalid', 'true');
  await destination.fill('https://sandbox.example.com');
  await editor.getByLabel('Status', { exact: true }).selectOption('Inactive');
  await editor.getByRole('button', { name: 'Propose change' }).click();
  const dialog = editor.getByRole('dialog', { name: 'Propose change' });
  await dialog.getByLabel('Title').fill('Switch the sandbox off');
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  await expect(editor.getByRole('heading', { name: 'Switch the sandbox off', level: 1 })).toBeVisible();
  const crId = decodeURIComponent(editor.url().split('/').pop() as string);

  // The owner approves it; then someone changes the rule directly (an owner still may).
  ok(
    await team.api.POST('/v1/change-requests/{id}/reviews', {
      params: { path: { id: crId } },
      body: { verdict: 'approve' },
    }),
  );
  ok(
    await team.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId }, header: {} },
      body: { name: 'Checkout to sandbox (kept)' } as never,
    }),
  );

  // The admin's merge is refused, in words, with a link to the rule that moved; nothing is applied.
  const admin = await signInAs(browser, base, team.admin, 'admin');
  await admin.goto(`/#/change-requests/${crId}`);
  await expect(admin.getByRole('heading', { name: 'Switch the sandbox off', level: 1 })).toBeVisible();
  await admin.getByRole('button', { name: 'Merge' }).click();
  const alert = admin.getByRole('alert');
  await expect(alert).toContainText('It was not merged: what it changes was changed by someone else');
  const moved = alert.getByRole('link', {
    name: /The rule “Checkout to sandbox \(kept\)” was changed by someone else/,
  });
  await expect(moved).toHaveAttribute('href', `#/rules/${ruleId}`);
  await expect(alert).not.toContainText('/operations');
  const kept = ok(await team.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId } } })).data;
  expect(kept.status).toBe('Active');

  // An admin still saves directly, and may propose instead.
  await admin.goto(`/#/rules/${ruleId}`);
  await expect(admin.getByRole('button', { name: 'Save', exact: true })).toBeVisible();
  await admin.getByRole('button', { name: 'Propose instead' }).click();
  await expect(admin.getByRole('dialog', { name: 'Propose change' }).getByLabel('Title')).toHaveValue(
    'Change the rule “Checkout to sandbox (kept)”',
  );
  await admin.keyboard.press('Escape');
  await expect(admin.getByRole('dialog')).toBeHidden();
  await admin.goto(`/#/change-requests/${crId}`);

  // On a phone, the review page scrolls down, never sideways.
  await admin.setViewportSize({ width: 390, height: 844 });
  await admin.reload();
  await expect(admin.getByRole('heading', { name: 'What it changes' })).toBeVisible();
  await expect(admin.getByRole('table', { name: 'What operation 1 changes' })).toBeVisible();
  const overflow = await admin.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `the review page scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  await admin.screenshot({ path: test.info().outputPath('change-request-390.png'), fullPage: true });

  // A delete is shown as such: what the rule is and does, going.
  await editor.goto(`/#/rules/${ruleId}`);
  await editor.getByRole('button', { name: 'Propose deleting' }).click();
  await editor.getByRole('button', { name: 'Go on' }).click();
  const deleting = editor.getByRole('dialog', { name: 'Propose change' });
  await expect(deleting.getByLabel('Title')).toHaveValue('Delete the rule “Checkout to sandbox (kept)”');
  await deleting.getByRole('button', { name: 'Propose change' }).click();
  await expect(editor.getByRole('heading', { name: /^Delete the rule/, level: 1 })).toBeVisible();
  await expect(editor.getByText('The rule (Redirect, active) is deleted.')).toBeVisible();
  await editor.setViewportSize({ width: 390, height: 844 });
  await expect(editor.getByRole('heading', { name: 'What it changes' })).toBeVisible();
  expect(
    await editor.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
});

test('a save refused because review became required offers to propose it; a group is proposed from the Groups page', async ({
  browser,
  service,
}) => {
  test.setTimeout(120_000);
  const team = await makeTeam(service);
  const ruleId = await makeRule(team.api, 'API to staging', 'https://staging.example.com');
  const group = ok(await team.api.POST('/v1/groups', { body: { name: 'Payments' } })).data;
  const base = service.process.url;

  // The editor opens the rule while review is off; an admin requires it meanwhile.
  const editor = await signInAs(browser, base, team.editor, 'editor');
  const settingsRead = editor.waitForResponse((response) => response.url().endsWith('/v1/settings'));
  await editor.goto(`/#/rules/${ruleId}`);
  await settingsRead;
  await expect(editor.getByRole('button', { name: 'Save', exact: true })).toBeVisible();
  // The console reads the settings again when its session refreshes (and then proposes at once):
  // held at what it first read, it stays the console of someone who opened the rule before the change.
  const settingsUrl = `${base}/v1/settings`;
  await editor.route(settingsUrl, (route) =>
    route.fulfill({ json: { success: true, data: { review: 'off', reviewers: 'admins' } } }),
  );
  ok(await team.api.PATCH('/v1/settings', { body: { review: 'required' } }));
  await editor
    .getByRole('group', { name: 'Pair 1' })
    .getByLabel('Destination', { exact: true })
    .fill('https://staging-3.example.com');
  await editor.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(editor.getByRole('alert')).toContainText(
    'now requires review of changes, so yours was not saved',
  );
  await editor.unroute(settingsUrl);
  expect(await destinationOf(team.api, ruleId)).toBe('https://staging.example.com');
  await editor.getByRole('button', { name: 'Propose this change' }).click();
  const dialog = editor.getByRole('dialog', { name: 'Propose change' });
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  await expect(
    editor.getByRole('heading', { name: 'Change the rule “API to staging”', level: 1 }),
  ).toBeVisible();
  await expect(
    editor
      .getByRole('table', { name: 'What operation 1 changes' })
      .getByText('https://staging-3.example.com'),
  ).toBeVisible();

  // In the list, switching the rule off is proposed too.
  await nav(editor).getByRole('link', { name: 'Rules', exact: true }).click();
  await editor.getByRole('switch', { name: 'API to staging active' }).click();
  const switching = editor.getByRole('dialog', { name: 'Propose change' });
  await expect(switching.getByLabel('Title')).toHaveValue('Switch the rule “API to staging” off');
  await switching.getByRole('button', { name: 'Cancel' }).click();
  await expect(editor.getByRole('dialog')).toBeHidden();
  await expect(editor.getByRole('switch', { name: 'API to staging active' })).toHaveAttribute(
    'aria-checked',
    'true',
  );

  // On the Groups page, a rename is proposed too.
  await nav(editor).getByRole('link', { name: 'Groups' }).click();
  await editor.getByRole('button', { name: 'Rename Payments' }).click();
  await editor.getByLabel('New name for Payments').fill('Payments (EU)');
  await editor.getByRole('button', { name: 'Save name' }).click();
  const renaming = editor.getByRole('dialog', { name: 'Propose change' });
  await expect(renaming.getByLabel('Title')).toHaveValue('Rename the group “Payments” to “Payments (EU)”');
  await renaming.getByRole('button', { name: 'Propose change' }).click();
  await expect(editor.getByRole('heading', { name: /^Rename the group/, level: 1 })).toBeVisible();
  const row = editor
    .getByRole('table', { name: 'What operation 1 changes' })
    .getByRole('row', { name: /name/ });
  await expect(row.getByRole('cell').first()).toHaveText('Payments');
  await expect(row.getByRole('cell').last()).toHaveText('Payments (EU)');
  // Its author edits the group operation in place.
  await editor.getByRole('button', { name: 'Edit operation 1' }).click();
  await editor.getByLabel('Name', { exact: true }).fill('Payments (EU west)');
  await editor.getByRole('button', { name: 'Save to the change request' }).click();
  await expect(editor.getByRole('status').filter({ hasText: 'waits for a review again' })).toBeVisible();
  await expect(row.getByRole('cell').last()).toHaveText('Payments (EU west)');
  const stored = ok(await team.api.GET('/v1/groups/{id}', { params: { path: { id: group.id } } })).data;
  expect(stored.name).toBe('Payments');
});

test('the evidence reads as words: lint added, a case that starts failing, its trace before and after, the browser', async ({
  browser,
  service,
}) => {
  test.setTimeout(120_000);
  const team = await makeTeam(service);
  const ruleId = await makeRule(team.api, 'API to staging', 'https://staging.example.com');
  const made = ok(
    await team.api.POST('/v1/change-requests', {
      body: {
        title: 'Switch staging off',
        operations: [{ op: 'update', kind: 'rule', id: ruleId, body: { status: 'Inactive' } }],
      },
    }),
  ).data;
  // A real trace of the suite's request with the rule as it is (it redirects), and after (it does not).
  const request = { url: 'https://api.example.com/v1/orders', method: 'GET' };
  const traced = ok(await team.api.POST('/v1/trace', { body: { request } })).data;
  const rules = (acted: boolean) => [{ ruleId, name: 'API to staging', acted }];
  const evidence = {
    status: 'ready',
    revision: made.baseRevision,
    lint: {
      added: [
        {
          code: 'no_op',
          severity: 'warning',
          ruleIds: [ruleId],
          pointers: [],
          message: '“API to staging” is inactive and its group is active',
          hint: 'Switch it on, or delete it.',
        },
      ],
      removed: [],
    },
    tests: [
      {
        suite: 'smoke',
        before: { passed: 2, failed: 0 },
        after: { passed: 1, failed: 1 },
        changed: [{ case: 'orders go to staging', before: 'pass', after: 'fail' }],
      },
    ],
    outcomes: [
      {
        suite: 'smoke',
        case: 'orders go to staging',
        request,
        before: { outcome: traced.outcome, rules: rules(true) },
        after: { outcome: { ...traced.outcome, url: request.url, redirected: false }, rules: rules(false) },
      },
    ],
    browser: [{ ruleId, before: 'compiled', after: null }],
  };
  // An evidence with every part (a lint finding added, a case that starts failing with its trace, a
  // browser change), given to the page in the service's answer.
  const browserContext = await newBrowser(browser, service.process.url);
  const admin = await browserContext.newPage();
  await admin.route(`**/v1/change-requests/${made.id}`, async (route) => {
    const answer = await route.fetch();
    const json = await answer.json();
    json.data.evidence = evidence;
    await route.fulfill({ response: answer, json });
  });
  await admin.goto('/');
  await admin.getByLabel('Email').fill(team.admin.email);
  await admin.getByLabel('Password').fill(PASSWORD);
  await admin.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(admin.getByText(`${team.admin.name} · admin`)).toBeVisible();
  await admin.goto(`/#/change-requests/${made.id}`);
  const shown = admin.locator('.evidence');
  await expect(shown).toContainText(`Worked out against the workspace at revision ${made.baseRevision}.`);
  await expect(shown.locator('.lint-findings li')).toHaveText(
    'warning “API to staging” is inactive and its group is activeHint: Switch it on, or delete it.',
  );
  await expect(shown).toContainText('It removes no lint finding.');
  await expect(shown).toContainText('“smoke”: before, 2 passed, 0 failed; after, 1 passed, 1 failed.');
  await expect(shown.getByText('“orders go to staging” starts failing')).toBeVisible();
  const diff = shown.locator('.outcome-diff');
  await expect(diff.getByRole('heading', { level: 4 })).toHaveText(
    '“orders go to staging” of the suite “smoke”: GET https://api.example.com/v1/orders',
  );
  await expect(diff.locator('.columns > div').first()).toContainText(
    'Redirected: https://api.example.com/v1/orders → https://staging.example.com',
  );
  await expect(diff.locator('.columns > div').first()).toContainText('Acted: “API to staging”.');
  await expect(diff.locator('.columns > div').last()).toContainText('No rule changes this request');
  await expect(shown).toContainText(
    '“API to staging” runs in the browser before, and is not in the browser (absent or inactive) after.',
  );
  await expect(shown).not.toContainText('/pairs');
});
