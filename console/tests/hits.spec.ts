// A rule's hits, as the runtimes report them: the editor says when it last acted and how often in 7
// days, draws its 30 days and counts by runtime; the rules list sorts by last acted.
import { expect, ok, signIn, test } from './fixtures.js';

test('a rule shows when it last acted, how often in 7 days, its 30 days and its runtimes; the list sorts by it', async ({
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
    ).data.id;
  const busy = await make('busy');
  const quiet = await make('quiet');
  const now = Date.now();
  const report = async (source: 'proxy' | 'extension', count: number) =>
    ok(
      await workspace.api.POST('/v1/hits', {
        body: { source, counts: [{ ruleId: busy, count, firstAt: now - 60_000, lastAt: now - 60_000 }] },
      }),
    );
  await report('proxy', 1200);
  await report('extension', 4);

  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'busy' }).click();
  const hits = page.getByRole('region', { name: 'Hits' });
  await expect(hits).toContainText('Acted 1 minute ago · 1,204 times in 7 days');
  await expect(hits.getByRole('img', { name: /^Hits per day from / })).toBeVisible();
  await expect(hits.getByRole('listitem')).toHaveText([
    'proxy: 1,200 times in 7 days, 1,200 in 30',
    'extension: 4 times in 7 days, 4 in 30',
  ]);
  await page.screenshot({ path: test.info().outputPath('hits.png'), fullPage: true });

  await page.getByRole('link', { name: '← All rules' }).click();
  await page.getByLabel('Sort by').selectOption({ label: 'Last acted' });
  const list = page.getByRole('list', { name: 'Rules sorted by last acted' });
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await expect(list.getByRole('listitem').first()).toContainText('busy');
  await expect(list.getByRole('listitem').first()).toContainText('acted 1 minute ago');
  await expect(list.getByRole('listitem').last()).toContainText('never acted');

  await page.getByRole('link', { name: 'quiet' }).click();
  await expect(page.getByRole('region', { name: 'Hits' })).toContainText(
    'No runtime has reported this rule acting in the last 90 days.',
  );
  expect(quiet).toBeTruthy();
});
