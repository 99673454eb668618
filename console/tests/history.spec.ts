import { expect, ok, signIn, test } from './fixtures.js';

test('history shows who made each version and what it changed from the one before', async ({
  page,
  workspace,
}) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'ads',
        ruleType: 'Cancel',
        status: 'Inactive',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
      },
    }),
  ).data;
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: created.id } },
      body: {
        name: 'ads and trackers',
        status: 'Active',
        pairs: [
          { source: { key: 'host', operator: 'Matches', value: '/(ads|track)\\.example\\.com/' } },
          { source: { key: 'path', operator: 'Contains', value: '/pixel' } },
        ],
      },
    }),
  );
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'ads and trackers' }).click();
  const history = page.getByRole('region', { name: 'History' });
  await expect(history.getByRole('listitem')).toHaveCount(2);
  await expect(history.getByRole('listitem').first()).toContainText('Version 2: updated just now by tester.');
  const diff = history.getByRole('table', { name: 'What version 2 changed' });
  await expect(diff.getByRole('row')).toHaveText([
    'ChangedWasNow',
    'nameadsads and trackers',
    'statusInactiveActive',
    'pair 1 › source › operatorEqualsMatches',
    'pair 1 › source › valueads.example.com/(ads|track)\\.example\\.com/',
    'pair 2 › source › key(not set)path',
    'pair 2 › source › operator(not set)Contains',
    'pair 2 › source › value(not set)/pixel',
  ]);
  // The first version has nothing before it.
  await expect(history.getByRole('table')).toHaveCount(1);
  await page.screenshot({ path: test.info().outputPath('history.png'), fullPage: true });
});

test('recently deleted rules are listed with who deleted them, and restored as they were', async ({
  page,
  workspace,
}) => {
  const make = async (name: string) =>
    ok(
      await workspace.api.POST('/v1/rules', {
        body: {
          name,
          ruleType: 'Cancel',
          status: 'Active',
          pairs: [{ source: { key: 'host', operator: 'Equals', value: `${name}.example.com` } }],
        },
      }),
    ).data;
  const kept = await make('kept');
  const first = await make('first gone');
  const second = await make('second gone');
  const back = await make('already back');
  for (const rule of [first, second, back]) {
    ok(await workspace.api.DELETE('/v1/rules/{ruleId}', { params: { path: { ruleId: rule.id } } }));
  }
  // Restored through the API meanwhile: no longer deleted.
  const versions = ok(
    await workspace.api.GET('/v1/rules/{ruleId}/versions', { params: { path: { ruleId: back.id } } }),
  ).data;
  ok(
    await workspace.api.POST('/v1/rules/{ruleId}/restore', {
      params: { path: { ruleId: back.id } },
      body: { version: versions[0]?.version ?? 0 },
    }),
  );

  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Recently deleted' }).click();
  await expect(page.getByRole('heading', { name: 'Recently deleted', level: 1 })).toBeVisible();
  const rows = page.getByRole('listitem').filter({ has: page.getByRole('button', { name: /^Restore/ }) });
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('second gone');
  await expect(rows.first()).toContainText('host equals second gone.example.com');
  await expect(rows.first()).toContainText('deleted just now by tester');
  await expect(rows.last()).toContainText('first gone');
  await page.screenshot({ path: test.info().outputPath('recently-deleted.png'), fullPage: true });

  await page.getByRole('button', { name: 'Restore first gone' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Restored' })).toHaveText('Restored “first gone”.');
  await expect(rows).toHaveCount(1);
  const restored = ok(
    await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: first.id } } }),
  ).data;
  expect(restored).toMatchObject({ name: 'first gone', status: 'Active', pairs: first.pairs });
  await page.getByRole('link', { name: '“first gone”' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('first gone');
  expect(
    ok(await workspace.api.GET('/v1/rules', {}))
      .data.map((rule) => rule.id)
      .sort(),
  ).toEqual([kept.id, first.id, back.id].sort());
});

test('recently deleted reads a page at a time: "Show more" reads on, oldest last', async ({
  page,
  workspace,
}) => {
  // One more than a page: the 51st most recent deletion is on the second page.
  const names = Array.from({ length: 51 }, (_, i) => `gone ${String(i + 1).padStart(2, '0')}`);
  for (const name of names) {
    const rule = ok(
      await workspace.api.POST('/v1/rules', {
        body: {
          name,
          ruleType: 'Cancel',
          status: 'Active',
          pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
        },
      }),
    ).data;
    ok(await workspace.api.DELETE('/v1/rules/{ruleId}', { params: { path: { ruleId: rule.id } } }));
  }
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Recently deleted' }).click();
  const rows = page.getByRole('listitem').filter({ has: page.getByRole('button', { name: /^Restore/ }) });
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('gone 51');
  await expect(page.getByRole('button', { name: 'Restore gone 01' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Show more (50 of 51 shown)' }).click();
  await expect(rows).toHaveCount(51);
  await expect(rows.last()).toContainText('gone 01');
  await expect(page.getByRole('button', { name: /^Show more/ })).toHaveCount(0);
});
