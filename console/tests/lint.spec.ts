// The rule lint in the console: a badge on each rule the lint finds fault with (its most serious
// finding and how many), the findings with their hints in the editor, and both following changes.
import type { RulekeeperClient } from '../../src/client/index.js';
import { expect, ok, signIn, test } from './fixtures.js';

/** A rule created through the API, as a teammate or a script would; its id. */
async function create(api: RulekeeperClient, body: Record<string, unknown>): Promise<string> {
  return ok(await api.POST('/v1/rules', { body: { status: 'Active', ...body } as never })).data.id;
}

const redirect = (name: string, from: string, to: string) => ({
  name,
  ruleType: 'Redirect',
  pairs: [
    { source: { key: 'Url', operator: 'Equals', value: from }, destinationType: 'url', destination: to },
  ],
});

test('the rules list shows a badge per rule the lint finds fault with, and the editor its findings with hints', async ({
  page,
  workspace,
}) => {
  const { api } = workspace;
  await create(api, redirect('old to new', 'https://a.example/old', 'https://a.example/new'));
  const back = await create(api, redirect('new to old', 'https://a.example/new', 'https://a.example/old'));
  await create(api, {
    name: 'mock everything',
    ruleType: 'Response',
    pairs: [{ source: { key: 'Url', operator: 'Contains', value: '' }, type: 'static', value: '{}' }],
  });
  await create(api, {
    name: 'block ads',
    ruleType: 'Cancel',
    pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
  });

  await signIn(page, workspace.key);
  const row = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('link', { name }) });
  await expect(row('old to new').getByRole('link', { name: '1 error' })).toBeVisible();
  await expect(row('new to old').getByRole('link', { name: '1 error' })).toBeVisible();
  await expect(row('mock everything').getByRole('link', { name: '1 warning' })).toBeVisible();
  await expect(row('block ads').locator('.badge')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('lint-badges.png'), fullPage: true });

  await row('mock everything').getByRole('link', { name: '1 warning' }).click();
  await expect(page.getByRole('heading', { name: 'Edit rule “mock everything”' })).toBeVisible();
  const findings = page.getByRole('region', { name: 'What the rule lint finds' });
  // The finding's name in words, not its code.
  await expect(findings).toContainText('Matches every request:');
  await expect(findings).not.toContainText('matches_everything');
  await expect(findings).toContainText('matches every request');
  await expect(findings).toContainText('Hint: Give the source the host or path it is meant for');
  // And beside the field it concerns: the source's value, checked on the form as it is now.
  const value = page.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true });
  await expect(value).toHaveAccessibleDescription(/has no source: it will answer every request/);

  // Switched off elsewhere, the loop goes: the list follows the change without a reload.
  await page.goto('/#/rules');
  await expect(row('old to new').getByRole('link', { name: '1 error' })).toBeVisible();
  ok(
    await api.PUT('/v1/rules/{ruleId}', { params: { path: { ruleId: back } }, body: { status: 'Inactive' } }),
  );
  await expect(row('old to new').locator('.badge')).toHaveCount(0);
  await expect(row('mock everything').getByRole('link', { name: '1 warning' })).toBeVisible();
});
