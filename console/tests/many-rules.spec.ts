import type { Schemas } from '../../src/client/index.js';
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test, type Workspace } from './fixtures.js';

const cancel = (name: string, host: string, status: 'Active' | 'Inactive' = 'Active') => ({
  name,
  ruleType: 'Cancel' as const,
  status,
  pairs: [{ source: { key: 'host' as const, operator: 'Equals' as const, value: host } }],
});

async function arrange(workspace: Workspace) {
  const rules: Schemas['Rule'][] = [];
  for (const [name, host] of [
    ['ads', 'ads.example.com'],
    ['tracker', 'track.example.com'],
    ['pixel', 'pixel.example.com'],
    ['beacon', 'beacon.example.com'],
  ] as const) {
    rules.push(ok(await workspace.api.POST('/v1/rules', { body: cancel(name, host) })).data);
  }
  return rules;
}

async function stored(workspace: Workspace) {
  return ok(await workspace.api.GET('/v1/rules', {})).data;
}

test('each row shows what its rule matches and when it changed', async ({ page, workspace }) => {
  ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'two sources',
        ruleType: 'Cancel',
        pairs: [
          { source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } },
          { source: { key: 'Url', operator: 'Contains', value: 'x'.repeat(200) } },
        ],
      },
    }),
  );
  await signIn(page, workspace.key);
  const row = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'two sources' }) });
  await expect(row.locator('.source')).toHaveText('host equals ads.example.com (+1 more)');
  await expect(row.locator('time')).toHaveText('changed just now');
  await expect(row.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
});

test('many rules are selected, then switched, moved, duplicated, deleted and brought back', async ({
  page,
  workspace,
}) => {
  const rules = await arrange(workspace);
  const group = ok(await workspace.api.POST('/v1/groups', { body: { name: 'blockers' } })).data;
  await signIn(page, workspace.key);
  const bar = page.getByRole('region', { name: 'Selected rules' });

  await bar.getByLabel('Select all 4 shown').check();
  await expect(bar).toContainText('4 rules selected');
  await bar.getByRole('button', { name: 'Deactivate' }).click();
  await expect(bar.getByRole('status')).toHaveText('4 rules deactivated.');
  expect((await stored(workspace)).map((rule) => rule.status)).toEqual(Array(4).fill('Inactive'));
  await expect(page.getByRole('switch', { checked: true })).toHaveCount(0);

  await page.getByLabel('Select ads').uncheck();
  await expect(bar).toContainText('3 rules selected');
  await expect(bar.getByLabel('Select all 4 shown')).not.toBeChecked();
  await bar.getByRole('button', { name: 'Activate', exact: true }).click();
  await expect(bar.getByRole('status')).toHaveText('3 rules activated.');
  expect(Object.fromEntries((await stored(workspace)).map((rule) => [rule.name, rule.status]))).toEqual({
    ads: 'Inactive',
    tracker: 'Active',
    pixel: 'Active',
    beacon: 'Active',
  });

  await bar.getByRole('button', { name: 'Clear selection' }).click();
  await page.getByLabel('Select tracker').check();
  await page.getByLabel('Select pixel').check();
  await bar.getByLabel('Group to move the selected rules to').selectOption({ label: 'blockers' });
  await bar.getByRole('button', { name: 'Move' }).click();
  await expect(bar.getByRole('status')).toHaveText('2 rules moved to blockers.');
  await expect(page.getByRole('region', { name: 'Group blockers' }).getByRole('link')).toHaveText([
    'tracker',
    'pixel',
  ]);
  expect(
    (await stored(workspace)).filter((rule) => rule.groupId === group.id).map((rule) => rule.name),
  ).toEqual(['tracker', 'pixel']);

  await bar.getByRole('button', { name: 'Duplicate' }).click();
  await expect(bar.getByRole('status')).toHaveText('2 rules duplicated.');
  // By name: the copies are created by requests of their own, and two made in the same millisecond
  // are listed in the order of their (random) ids.
  const copies = (await stored(workspace))
    .filter((rule) => rule.name.endsWith('(copy)'))
    .sort((a, b) => a.name.localeCompare(b.name));
  expect(copies.map((copy) => [copy.name, copy.status, copy.groupId, copy.pairs[0]?.source.value])).toEqual([
    ['pixel (copy)', 'Inactive', group.id, 'pixel.example.com'],
    ['tracker (copy)', 'Inactive', group.id, 'track.example.com'],
  ]);

  await page.getByLabel('Select ads').check();
  await page.getByLabel('Select beacon').check();
  await bar.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete 2 rules?' });
  await expect(dialog).toContainText('“ads”, “beacon” will be deleted');
  await dialog.getByRole('button', { name: 'Delete 2 rules' }).click();
  await expect(bar.getByRole('status')).toContainText('2 rules deleted.');
  await expect(page.getByRole('link', { name: 'ads', exact: true })).toHaveCount(0);
  expect((await stored(workspace)).map((rule) => rule.name).sort()).toEqual([
    'pixel',
    'pixel (copy)',
    'tracker',
    'tracker (copy)',
  ]);

  await bar.getByRole('button', { name: 'Undo' }).click();
  await expect(bar.getByRole('status')).toHaveText('2 rules restored.');
  await expect(page.getByRole('link', { name: 'ads', exact: true })).toBeVisible();
  const back = await stored(workspace);
  const ads = rules.find((rule) => rule.name === 'ads');
  expect(back.find((rule) => rule.id === ads?.id)).toMatchObject({
    name: 'ads',
    status: 'Inactive',
    pairs: ads?.pairs,
  });
  expect(back).toHaveLength(6);
  await page.screenshot({ path: test.info().outputPath('many-rules.png'), fullPage: true });
});

test('a rule deleted elsewhere is named among the ones a bulk action could not change', async ({
  page,
  workspace,
}) => {
  const [first] = await arrange(workspace);
  await signIn(page, workspace.key);
  const bar = page.getByRole('region', { name: 'Selected rules' });
  await bar.getByLabel('Select all 4 shown').check();
  ok(await workspace.api.DELETE('/v1/rules/{ruleId}', { params: { path: { ruleId: first?.id ?? '' } } }));
  await bar.getByRole('button', { name: 'Deactivate' }).click();
  await expect(bar.getByRole('alert')).toHaveText(
    /^3 rules deactivated\. Not done for “ads”: Rule not found/,
  );
  expect((await stored(workspace)).map((rule) => rule.status)).toEqual(Array(3).fill('Inactive'));
});

test('the search looks in names, descriptions and sources; the list sorts by name, type, last change, pinned or status', async ({
  page,
  workspace,
}) => {
  const make = async (body: Record<string, unknown>) =>
    ok(await workspace.api.POST('/v1/rules', { body: body as never })).data;
  await make({
    name: 'zeta',
    description: 'Blocks the checkout tracker',
    ruleType: 'Cancel',
    pairs: [{ source: { key: 'host', operator: 'Equals', value: 't.example.com' } }],
  });
  const alpha = await make({
    name: 'alpha',
    ruleType: 'Delay',
    pairs: [{ source: { key: 'host', operator: 'Equals', value: 'api.example.com' }, delay: 10 }],
  });
  await make({
    name: 'Mid',
    ruleType: 'Redirect',
    pairs: [
      {
        source: { key: 'Url', operator: 'Contains', value: 'CHECKOUT.example.com' },
        destinationType: 'url',
        destination: 'https://staging.example.com/',
      },
    ],
  });
  await signIn(page, workspace.key);
  const names = page.locator('.rule-name');
  await expect(names).toHaveText(['zeta', 'alpha', 'Mid']);

  await page.getByLabel('Search names, descriptions and sources').fill('checkout');
  await expect(names).toHaveText(['zeta', 'Mid']);
  await page.getByLabel('Search names, descriptions and sources').fill('api.example');
  await expect(names).toHaveText(['alpha']);
  await page.getByLabel('Search names, descriptions and sources').fill('');
  await expect(names).toHaveCount(3);

  await page.getByLabel('Sort by').selectOption({ label: 'Name' });
  await expect(names).toHaveText(['alpha', 'Mid', 'zeta']);
  await page.getByLabel('Sort by').selectOption({ label: 'Type' });
  await expect(names).toHaveText(['zeta', 'alpha', 'Mid']);
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: alpha.id } },
      body: { description: 'touched last' },
    }),
  );
  await page.getByLabel('Sort by').selectOption({ label: 'Last changed' });
  await expect(names).toHaveText(['alpha', 'Mid', 'zeta']);

  // Pinned first, then active first: each of the others by name.
  const mid = (await workspace.api.GET('/v1/rules', { params: { query: { search: 'mid' } } })).data?.data[0];
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: mid?.id as string } },
      body: { isFavourite: true },
    }),
  );
  await page.getByLabel('Sort by').selectOption({ label: 'Pinned first' });
  await expect(names).toHaveText(['Mid', 'alpha', 'zeta']);
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: alpha.id } },
      body: { status: 'Active' },
    }),
  );
  await page.getByLabel('Sort by').selectOption({ label: 'Active first' });
  await expect(names).toHaveText(['alpha', 'Mid', 'zeta']);
});

test('sorted by name, type or last change, the rules are one list in that order, each naming its group', async ({
  page,
  workspace,
}) => {
  const group = async (name: string, status: 'Active' | 'Inactive') =>
    ok(await workspace.api.POST('/v1/groups', { body: { name, status } })).data;
  const staging = await group('Staging', 'Active');
  const paused = await group('Paused', 'Inactive');
  const make = async (name: string, groupId: string) =>
    ok(await workspace.api.POST('/v1/rules', { body: { ...cancel(name, `${name}.example.com`), groupId } }))
      .data;
  const first = await make('first', staging.id);
  await make('second', paused.id);
  await make('third', '');
  await make('fourth', staging.id);
  // The oldest rule is the one changed last.
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: first.id } },
      body: { description: 'touched last' },
    }),
  );
  await signIn(page, workspace.key);
  const names = page.locator('.rule-name');
  // The default order keeps the workspace's shape: under each group's heading, ungrouped last.
  await expect(page.getByRole('region', { name: /^Group / })).toHaveCount(2);
  await expect(names).toHaveText(['first', 'fourth', 'second', 'third']);

  await page.getByLabel('Sort by').selectOption({ label: 'Last changed' });
  const list = page.getByRole('list', { name: 'Rules sorted by last changed' });
  await expect(list.locator('.rule-name')).toHaveText(['first', 'fourth', 'third', 'second']);
  await expect(page.getByRole('region', { name: /^Group |^Ungrouped/ })).toHaveCount(0);
  const row = (name: string) => list.getByRole('listitem').filter({ has: page.getByRole('link', { name }) });
  await expect(row('first').locator('.in-group')).toHaveText('in Staging');
  await expect(row('second').locator('.in-group')).toHaveText('in Paused group inactive: does not act');
  await expect(row('third').locator('.in-group')).toHaveCount(0);
  expect(await seriousViolations(page), 'the list sorted by last change').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('sorted-flat.png'), fullPage: true });

  await page.getByLabel('Sort by').selectOption({ label: 'Name' });
  await expect(page.getByRole('list', { name: 'Rules sorted by name' }).locator('.rule-name')).toHaveText([
    'first',
    'fourth',
    'second',
    'third',
  ]);
  await page.getByLabel('Sort by').selectOption({ label: 'Oldest first' });
  await expect(page.getByRole('region', { name: /^Group / })).toHaveCount(2);

  // By group: under the groups' headings in the groups list's order, each group's rules by name,
  // ungrouped last; and filtered to one group, that group's alone.
  await make('a fifth', staging.id);
  await page.getByLabel('Sort by').selectOption({ label: 'Group' });
  await expect(page.getByRole('region', { name: /^Group |^Ungrouped/ })).toHaveCount(3);
  await expect(names).toHaveText(['a fifth', 'first', 'fourth', 'second', 'third']);
  await expect(page.getByRole('region', { name: 'Group Staging' }).locator('.rule-name')).toHaveText([
    'a fifth',
    'first',
    'fourth',
  ]);
  await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Paused' });
  await expect(names).toHaveText(['second']);
  expect(await seriousViolations(page), 'the list sorted by group').toEqual([]);
});
