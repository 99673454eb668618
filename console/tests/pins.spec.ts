// Pinned rules (Requestly's favourite, `isFavourite`): pinned and unpinned from the list and from the
// editor, listed alone with the Pinned filter, beside the type, group, status filters and the sorts.
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test } from './fixtures.js';

const cancel = (name: string, host: string, status: 'Active' | 'Inactive' = 'Active') => ({
  name,
  ruleType: 'Cancel' as const,
  status,
  pairs: [{ source: { key: 'host' as const, operator: 'Equals' as const, value: host } }],
});

test('a rule is pinned from the list and from the editor, and the list shows pinned rules alone', async ({
  page,
  workspace,
}) => {
  for (const [name, host] of [
    ['ads', 'ads.example.com'],
    ['tracker', 'track.example.com'],
    ['pixel', 'pixel.example.com'],
  ] as const) {
    ok(await workspace.api.POST('/v1/rules', { body: cancel(name, host) }));
  }
  await signIn(page, workspace.key);
  const row = (name: string) =>
    page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });

  // From the list: a star, pressed when pinned, stored at once.
  const pin = row('tracker').getByRole('button', { name: 'Pin tracker' });
  await expect(pin).toHaveAttribute('aria-pressed', 'false');
  await pin.click();
  await expect(pin).toHaveAttribute('aria-pressed', 'true');
  await expect
    .poll(async () =>
      ok(await workspace.api.GET('/v1/rules', {})).data.map((rule) => [rule.name, rule.isFavourite]),
    )
    .toEqual([
      ['ads', false],
      ['tracker', true],
      ['pixel', false],
    ]);
  expect(await seriousViolations(page), 'rules with a pin').toEqual([]);

  // From the editor: the Pinned box, saved with the rule.
  await row('pixel').getByRole('link', { name: 'pixel' }).click();
  const pinned = page.getByLabel('Pinned', { exact: true });
  await expect(pinned).not.toBeChecked();
  await pinned.check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.getByRole('link', { name: '← All rules' }).click();
  await expect(row('pixel').getByRole('button', { name: 'Pin pixel' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );

  // Pinned only, then with the type and status filters and a sort beside it.
  await page.getByLabel('Pinned', { exact: true }).selectOption('true');
  await expect(page.locator('.rule-name')).toHaveText(['tracker', 'pixel']);
  await page.getByLabel('Sort by').selectOption('name');
  await expect(page.locator('.rule-name')).toHaveText(['pixel', 'tracker']);
  await page.getByLabel('Pinned', { exact: true }).selectOption('false');
  await expect(page.locator('.rule-name')).toHaveText(['ads']);
  await page.getByLabel('Status').selectOption('Inactive');
  await expect(page.getByText('No rules here.')).toBeVisible();

  // Unpinned in the editor: saved as false, not left out.
  await page.getByLabel('Pinned', { exact: true }).selectOption('');
  await page.getByLabel('Status').selectOption('');
  await row('tracker').getByRole('link', { name: 'tracker' }).click();
  await page.getByLabel('Pinned', { exact: true }).uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const tracker = ok(await workspace.api.GET('/v1/rules', {})).data.find((rule) => rule.name === 'tracker');
  expect(tracker?.isFavourite).toBe(false);
});
