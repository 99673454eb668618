import { expect, ok, signIn, test } from './fixtures.js';

test('groups are created, renamed, switched and deleted, their rules ungrouped', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Groups' }).click();

  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByLabel('New group name')).toHaveAccessibleDescription('a non-blank name is required');
  await page.getByLabel('New group name').fill('Checkout mocks');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByText('Checkout mocks')).toBeVisible();
  const [group] = ok(await workspace.api.GET('/v1/groups', {})).data;
  if (!group) throw new Error('the group was not stored');

  for (const name of ['pay', 'cart']) {
    ok(
      await workspace.api.POST('/v1/rules', {
        body: {
          name,
          ruleType: 'Cancel',
          status: 'Active',
          groupId: group.id,
          pairs: [{ source: { key: 'path', operator: 'Contains', value: name } }],
        },
      }),
    );
  }
  await page.reload();
  await expect(page.getByText('2 rules, 2 active')).toBeVisible();

  await page.getByRole('button', { name: 'Rename Checkout mocks' }).click();
  await page.getByLabel('New name for Checkout mocks').fill('Payment mocks');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByText('Payment mocks')).toBeVisible();

  await page.getByRole('switch', { name: 'Payment mocks active' }).click();
  await expect(page.getByRole('switch', { name: 'Payment mocks active' })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  // Its rules are switched on, but none acts while the group is off: the count does not say "2 active".
  await expect(
    page.getByText('2 rules, none acting while the group is inactive (2 switched on)'),
  ).toBeVisible();
  const stored = ok(await workspace.api.GET('/v1/groups/{id}', { params: { path: { id: group.id } } })).data;
  expect(stored).toMatchObject({ name: 'Payment mocks', status: 'Inactive' });

  // The rule list shows the rules under their group, and that the group keeps them from acting.
  await page.getByRole('link', { name: 'Rules' }).click();
  const section = page.getByRole('region', { name: 'Group Payment mocks' });
  // The rules by name, in list order (each may also carry a link to its lint findings, "1 note").
  const names = section.getByRole('link').filter({ hasNotText: /^\d+ (notes?|warnings?|errors?)$/ });
  await expect(names).toHaveText(['pay', 'cart']);
  await expect(section).toContainText('Group inactive: its rules do not act');
  await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Payment mocks' });
  await expect(page.getByText('1–2 of 2')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('grouped-rules.png'), fullPage: true });

  await page.getByRole('link', { name: 'Groups' }).click();
  await page.getByRole('button', { name: 'Delete Payment mocks' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete the group “Payment mocks”?' });
  await expect(dialog).toContainText('Its 2 rules will be ungrouped, not deleted.');
  await page.screenshot({ path: test.info().outputPath('groups.png') });
  await dialog.getByRole('button', { name: 'Delete group' }).click();
  await expect(page.getByText('No groups yet.')).toBeVisible();

  const rules = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(rules.map((rule) => [rule.name, rule.groupId])).toEqual([
    ['pay', ''],
    ['cart', ''],
  ]);
});

test('the list of groups starts clear of the form above it', async ({ page, workspace }) => {
  ok(await workspace.api.POST('/v1/groups', { body: { name: 'first' } }));
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Groups' }).click();
  await expect(page.getByText('first')).toBeVisible();
  const input = await page.getByLabel('New group name').boundingBox();
  const button = await page.getByRole('button', { name: 'Create group' }).boundingBox();
  const list = await page.locator('.group-list').boundingBox();
  if (!input || !button || !list) throw new Error('the form or the list is not on the page');
  // At least half a line (8 px) between the bottom of the form and the list's top border.
  expect(list.y - Math.max(input.y + input.height, button.y + button.height)).toBeGreaterThanOrEqual(8);
});
