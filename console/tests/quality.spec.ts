import type { Page } from '@playwright/test';
import { seriousViolations } from './axe.js';
import { chooseImportFile, expect, ok, signIn, test, type Workspace } from './fixtures.js';
import { expectReadsOnPhone } from './phone.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

async function arrange(workspace: Workspace) {
  const group = ok(await workspace.api.POST('/v1/groups', { body: { name: HOSTILE } })).data;
  const rule = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: HOSTILE,
        description: '<script>alert(2)</script>',
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
    await workspace.api.POST('/v1/change-requests', {
      body: {
        title: HOSTILE,
        description: '<script>alert(3)</script>',
        operations: [
          { op: 'update', kind: 'rule', id: rule.id, body: { name: `${HOSTILE} 2`, status: 'Inactive' } },
        ],
      },
    }),
  );
  const cases = [
    { name: HOSTILE, request: { url: 'https://shop.example.com/checkout' }, expect: { url: HOSTILE } },
  ];
  ok(await workspace.api.POST('/v1/test-suites', { body: { name: HOSTILE, cases } }));
}

/** Every main screen, in a state worth checking, with `check` run on each. */
async function visitScreens(page: Page, check: (screen: string) => Promise<void>) {
  await page.goto('/#/rules');
  await expect(page.getByRole('switch')).toHaveCount(1);
  await check('rules');
  await page.getByRole('link', { name: HOSTILE }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(HOSTILE);
  await page.getByLabel('Destination', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await check('editor with errors');
  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await check('delete dialog');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toBeHidden();
  await page.getByRole('link', { name: 'Groups' }).click();
  await expect(page.getByRole('switch')).toHaveCount(1);
  await check('groups');
  await page.getByRole('link', { name: 'Templates' }).click();
  await expect(page.locator('.template-card').first()).toBeVisible();
  await check('templates');
  await page.getByRole('link', { name: 'Rules', exact: true }).click();
  await page.getByRole('link', { name: 'Recently deleted' }).click();
  await expect(page.getByText('No rule was deleted lately.')).toBeVisible();
  await check('recently deleted');
  await page.getByRole('link', { name: 'Try it' }).click();
  await page.getByLabel('URL', { exact: true }).fill('https://shop.example.com/checkout');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(page.getByTestId('trace-outcome')).toBeVisible();
  await check('try it');
  await page.getByRole('link', { name: 'Test suites' }).click();
  await page.getByRole('button', { name: `Run ${HOSTILE}` }).click();
  await expect(page.getByRole('region', { name: `Run of “${HOSTILE}”` })).toContainText('0 passed, 1 failed');
  await check('test suite run');
  await chooseImportFile(page, 'export.json', JSON.stringify([{ objectType: 'group', name: 'imported' }]));
  await expect(page.getByRole('region', { name: /Checked export.json/ })).toBeVisible();
  await check('import report');
  await page.getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('table', { name: 'Members of the workspace' })).toBeVisible();
  await check('members');
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByLabel('Name', { exact: true }).fill(HOSTILE);
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('region', { name: /Your new key/ })).toBeVisible();
  await expect(page.getByRole('row', { name: HOSTILE })).toBeVisible();
  await check('keys with a new key');
  await page.getByRole('link', { name: 'Activity' }).click();
  await expect(page.getByRole('list', { name: 'Activity, newest first' })).toBeVisible();
  await check('activity');
  await page.goto('/#/settings');
  await expect(page.getByRole('group', { name: 'Review of changes' })).toBeVisible();
  await check('settings');
  await page.getByRole('link', { name: /^Change requests/ }).click();
  await expect(page.getByRole('table', { name: /^Change requests/ })).toBeVisible();
  await check('change requests');
  await page.getByRole('link', { name: HOSTILE, exact: true }).click();
  await expect(page.getByRole('table', { name: 'What operation 1 changes' })).toBeVisible();
  await check('change request');
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`no serious accessibility violations on any screen, in ${colorScheme} mode (axe-core)`, async ({
    page,
    workspace,
  }) => {
    await page.emulateMedia({ colorScheme });
    await arrange(workspace);
    await page.goto('/');
    expect(await seriousViolations(page), 'sign-in').toEqual([]);
    await signIn(page, workspace.key);
    await visitScreens(page, async (screen) => {
      expect(await seriousViolations(page), screen).toEqual([]);
      if (screen === 'rules' || screen === 'editor with errors') {
        const file = `${screen.replaceAll(' ', '-')}-${colorScheme}.png`;
        await page.screenshot({ path: test.info().outputPath(file), fullPage: true });
      }
    });
  });
}

test('user text is always shown as text, never run as markup', async ({ page, workspace }) => {
  await arrange(workspace);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss();
  });
  await signIn(page, workspace.key);
  await expect(page.getByRole('link', { name: HOSTILE })).toHaveText(HOSTILE);
  await expect(page.getByRole('heading', { name: HOSTILE })).toBeVisible();
  await visitScreens(page, async () => {
    expect(await page.locator('main img, main script').count()).toBe(0);
  });
  expect(dialogs).toEqual([]);
});

for (const width of [1280, 390]) {
  test(`every screen fits ${width} px wide, with nothing cut off sideways`, async ({ page, workspace }) => {
    await page.setViewportSize({ width, height: 844 });
    await arrange(workspace);
    await signIn(page, workspace.key);
    await visitScreens(page, async (screen) => {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${screen} scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
      // Every table reads at phone width: as cards, nothing scrolling within, no word split.
      if (width === 390) await expectReadsOnPhone(page.locator('main table'), screen);
      if (width === 390 && screen === 'rules') {
        await page.screenshot({ path: test.info().outputPath('rules-390.png'), fullPage: true });
      }
      if (width === 390 && screen === 'editor with errors') {
        await page.screenshot({ path: test.info().outputPath('editor-390.png'), fullPage: true });
      }
    });
  });
}

test('the console is served with a strict CSP and breaks none of it', async ({
  page,
  workspace,
  baseURL,
}) => {
  const response = await fetch(`${baseURL}/`);
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  const html = await response.text();
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
  expect(html).not.toMatch(/\sstyle=/);

  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await arrange(workspace);
  await signIn(page, workspace.key);
  await visitScreens(page, async () => {});
  expect(violations).toEqual([]);
});

test('a keyboard alone signs in, creates a group and answers a confirmation', async ({ page, workspace }) => {
  await page.goto('/');
  // The page first asks whether a session is open: its form is there once that is answered.
  await expect(page.getByLabel('Email')).toBeVisible();
  // Past the email, the password, their Sign in button and "Forgot your password?": the key's field.
  for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
  await expect(page.getByLabel('API key', { exact: true })).toBeFocused();
  await page.keyboard.type(workspace.key);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();

  // Tab to the navigation's Groups link.
  for (
    let i = 0;
    i < 10 &&
    !(await page.getByRole('link', { name: 'Groups' }).evaluate((el) => el === document.activeElement));
    i += 1
  ) {
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Groups', level: 1 })).toBeVisible();
  await page.getByLabel('New group name').focus();
  await page.keyboard.type('typed only');
  await page.keyboard.press('Enter');
  await expect(page.getByText('typed only')).toBeVisible();

  await page.getByRole('button', { name: 'Delete typed only' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toBeVisible();
  // Focus starts on Cancel, so Enter on a confirmation cannot delete by accident.
  await expect(page.getByRole('dialog').getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByText('No groups yet.')).toBeVisible();
  expect(ok(await workspace.api.GET('/v1/groups', {})).total).toBe(0);
});
