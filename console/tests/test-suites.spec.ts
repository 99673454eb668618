// Test suites in the console: a suite written as JSON in the editor, the API's problems shown at their
// lines and in words (cases counted from 1), a run with one case passing and one failing (what
// differed said), an edit that makes it pass; and a viewer who may list and run, never write.
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test } from './fixtures.js';

const blockAds = {
  name: 'block ads',
  ruleType: 'Cancel' as const,
  status: 'Active' as const,
  pairs: [{ source: { key: 'host' as const, operator: 'Equals' as const, value: 'ads.example.net' } }],
};

const adsBlocked = {
  name: 'ads are blocked',
  request: { url: 'https://ads.example.net/banner.js' },
  expect: { cancelled: true },
};
const shopBlocked = {
  name: 'the shop is blocked too',
  request: { url: 'https://shop.example.com/' },
  expect: { cancelled: true },
};

test('a suite is created as JSON, run (one case passes, one fails and says why) and edited', async ({
  page,
  workspace,
}) => {
  ok(await workspace.api.POST('/v1/rules', { body: blockAds }));
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Test suites' }).click();
  await expect(page.getByRole('heading', { name: 'Test suites', level: 1 })).toBeVisible();
  await expect(page.getByText('No test suites yet.')).toBeVisible();

  // A case without its expectations first: refused, said for the case as people count it.
  await page.getByRole('button', { name: 'New suite' }).click();
  const json = page.getByRole('textbox', { name: 'The suite as JSON' });
  await json.fill(JSON.stringify({ name: 'ads', cases: [adsBlocked, { name: 'no expect', request: {} }] }));
  await page.getByRole('button', { name: 'Save suite' }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('The suite was not saved.');
  await expect(alert).toContainText('Case 2: must have a name, a request object and an expect object');
  await expect(page.locator('#suite-json-problems')).toContainText(
    'case 2 must have a name, a request object and an expect object',
  );
  expect(ok(await workspace.api.GET('/v1/test-suites', { params: { query: {} } })).total).toBe(0);

  await json.fill(JSON.stringify({ name: 'ads', cases: [adsBlocked, shopBlocked] }, null, 2));
  await page.getByRole('button', { name: 'Save suite' }).click();
  await expect(page.getByText('2 cases')).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/test-suites', { params: { query: {} } })).data;
  expect(stored).toMatchObject({ name: 'ads', caseCount: 2 });

  await page.getByRole('button', { name: 'Run ads' }).click();
  const report = page.getByRole('region', { name: 'Run of “ads”' });
  await expect(report).toContainText('1 passed, 1 failed');
  const results = report.locator('.case');
  await expect(results.nth(0)).toHaveText('Passed ads are blocked');
  await expect(results.nth(1)).toContainText('Failed the shop is blocked too');
  await expect(results.nth(1)).toContainText('outcome.cancelled: expected true, got false');
  expect(await seriousViolations(page), 'a run').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('test-suite-run.png'), fullPage: true });

  // Edited: the failing case now expects what the rules do; the suite passes.
  await page.getByRole('button', { name: 'Edit ads' }).click();
  const shown = JSON.parse(await json.innerText());
  expect(shown).toEqual({ name: 'ads', cases: [adsBlocked, shopBlocked] });
  shown.cases[1].expect = { cancelled: false };
  await json.fill(JSON.stringify(shown));
  await page.getByRole('button', { name: 'Save suite' }).click();
  await expect(json).toHaveCount(0);
  await page.getByRole('button', { name: 'Run ads' }).click();
  await expect(report).toContainText('2 passed, 0 failed');
  const suite = ok(
    await workspace.api.GET('/v1/test-suites/{suiteId}', { params: { path: { suiteId: stored?.id ?? '' } } }),
  ).data;
  expect(suite.cases[1]?.expect).toEqual({ cancelled: false });
});

test('a viewer lists and runs suites, with no control to write them', async ({ page, workspace }) => {
  ok(await workspace.api.POST('/v1/rules', { body: blockAds }));
  ok(await workspace.api.POST('/v1/test-suites', { body: { name: 'ads', cases: [adsBlocked] } }));
  const reader = ok(await workspace.api.POST('/v1/keys', { body: { name: 'reader', scope: 'read' } })).data;
  await signIn(page, reader.key);
  await page.getByRole('link', { name: 'Test suites' }).click();
  await expect(page.getByRole('note')).toHaveText(
    'You can view and run test suites; the key you signed in with is read-only.',
  );
  await expect(page.getByRole('button', { name: 'New suite' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Edit ads' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete ads' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Run ads' }).click();
  await expect(page.getByRole('region', { name: 'Run of “ads”' })).toContainText('1 passed, 0 failed');
  expect(await seriousViolations(page), 'suites as viewer').toEqual([]);
});
