import { expect, ok, signIn, test } from './fixtures.js';

test('a change made through the API shows up in the open console without a reload', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await expect(page.getByText('No rules here.')).toBeVisible();

  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'made by CI',
        ruleType: 'Cancel',
        status: 'Inactive',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
      },
    }),
  ).data;
  const toggle = page.getByRole('switch', { name: 'made by CI active' });
  await expect(toggle).toHaveAttribute('aria-checked', 'false');

  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: created.id } },
      body: { status: 'Active' },
    }),
  );
  await expect(toggle).toHaveAttribute('aria-checked', 'true');

  ok(await workspace.api.POST('/v1/groups', { body: { name: 'appeared live' } }));
  await page.getByRole('link', { name: 'Groups' }).click();
  await expect(page.getByText('appeared live')).toBeVisible();
  ok(await workspace.api.DELETE('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } }));
  await page.getByRole('link', { name: 'Rules' }).click();
  await expect(page.getByText('No rules here.')).toBeVisible();
});
