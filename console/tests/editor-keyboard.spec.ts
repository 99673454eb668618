// Two of issue #35's "Done when" cases no other test walked whole: a rule written with the keyboard
// alone after `n` (Tab from field to field, Enter to create it), and a finding shown before saving
// beside the field it is about, counting pairs as the form does ("Pair 1"), never by a JSON pointer.
import type { Page } from '@playwright/test';
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test } from './fixtures.js';

/** Presses Tab until the control for `pointer` has the focus (no mouse, no locator's focus()). */
async function tabTo(page: Page, pointer: string): Promise<void> {
  for (let presses = 0; presses < 40; presses++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((name) => document.activeElement?.getAttribute('name') === name, pointer)) return;
  }
  throw new Error(`Tab never reached ${pointer}`);
}

/** No message on the page names a place by its JSON pointer. */
async function expectNoPointer(page: Page): Promise<void> {
  await expect(page.locator('main')).not.toContainText(/\/pairs\/\d|\/source\/|\/filters\//);
}

test('after n, a rule is written with the keyboard alone and created with Enter, Inactive', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await page.keyboard.press('n');
  await expect(page.getByLabel('Name', { exact: true })).toBeFocused();
  await page.keyboard.type('checkout to staging');
  await tabTo(page, '/pairs/0/source/value');
  await page.keyboard.type('shop.example.com/checkout');
  // The action's sentence follows the source: its destination is reached by Tab too.
  await tabTo(page, '/pairs/0/destination');
  await page.keyboard.type('https://staging.example.com/checkout');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored).toMatchObject({
    name: 'checkout to staging',
    status: 'Inactive',
    ruleType: 'Redirect',
    pairs: [
      {
        source: { key: 'Url', operator: 'Contains', value: 'shop.example.com/checkout' },
        destinationType: 'url',
        destination: 'https://staging.example.com/checkout',
      },
    ],
  });
  await expectNoPointer(page);
});

test('before saving, a finding shows beside the source it is about, counting pairs from 1', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('block trackers');
  await page.getByLabel('Rule type').selectOption('Cancel');
  await page.getByRole('button', { name: 'Add pair' }).click();
  const first = page.getByRole('group', { name: 'Pair 1' }).getByRole('group', { name: 'Source' });
  const second = page.getByRole('group', { name: 'Pair 2' }).getByRole('group', { name: 'Source' });
  await second.getByLabel('Value', { exact: true }).fill('tracker.example.com');
  // Nothing saved yet: the finding is the form's, beside Pair 1's value, in the form's numbers.
  const firstValue = first.getByLabel('Value', { exact: true });
  await expect(firstValue).toHaveAccessibleDescription(
    /Pair 1 of this rule has no source: it will cancel every request/,
  );
  await expect(first.locator('.field-findings')).toContainText('Pair 1 of this rule has no source');
  await expect(second.getByLabel('Value', { exact: true })).not.toHaveAccessibleDescription(/every request/);
  await expect(second.locator('.field-findings')).toHaveCount(0);
  expect(ok(await workspace.api.GET('/v1/rules', {})).data).toHaveLength(0);
  await expectNoPointer(page);
  expect(await seriousViolations(page), 'a finding before saving').toEqual([]);

  // Given a source, the finding goes before anything is sent.
  await firstValue.fill('ads.example.com');
  await expect(page.locator('.field-findings')).toHaveCount(0);
});
