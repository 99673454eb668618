// Issue 24's "Done when", walked through once as a new user would, with nothing arranged through the
// API: import a Requestly export, find with Try it why one of its rules does not fire, fix the rule in
// the form and its header rows (never the JSON view), and see it act in Try it.
import { requestlyGroup, requestlyRules } from '../../test/helpers/requestly-records.js';
import { seriousViolations } from './axe.js';
import { chooseImportFile, expect, ok, signIn, test } from './fixtures.js';

// The shapes of real Requestly exports (test/helpers/requestly-records.ts): a group and ten rules.
const EXPORT = [requestlyGroup, ...Object.values(requestlyRules)];

// The request the new user cares about: their front end on localhost:3000 calls their API on :8080.
const API_CALL = 'http://localhost:8080/api/items';
const ORIGIN = 'http://localhost:3000';

test('a new user imports a Requestly file, finds why a rule does not fire, fixes it and sees it act', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);

  // 1. Import the file: a dry run first, then the import.
  await chooseImportFile(page, 'requestly_rules.json', JSON.stringify(EXPORT));
  const rules = EXPORT.length - 1;
  const checked = page.getByRole('region', { name: /Checked requestly_rules.json/ });
  await expect(checked).toContainText(`${EXPORT.length} would be created, 0 would be updated, 0 failed.`);
  await checked.getByRole('button', { name: `Import ${EXPORT.length} records` }).click();
  await expect(page.getByRole('region', { name: 'Imported requestly_rules.json' })).toContainText(
    `${EXPORT.length} were created, 0 were updated, 0 failed.`,
  );
  await page.getByRole('link', { name: 'Rules', exact: true }).click();
  await expect(page.getByRole('link', { name: 'CORS', exact: true })).toBeVisible();

  // 2. Try the API call: nothing happens to it, and the folded reasons say why the CORS rule is silent.
  await page.getByRole('link', { name: 'Try it' }).click();
  await page.getByLabel('URL', { exact: true }).fill(API_CALL);
  await page.getByLabel('Method').selectOption('GET');
  await page.getByLabel('Resource type').selectOption('xmlhttprequest');
  await page.getByLabel('Page URL').fill(`${ORIGIN}/`);
  await page.getByLabel('Request headers').fill(`Origin: ${ORIGIN}`);
  await page.getByRole('button', { name: 'Try it' }).click();
  const outcome = page.getByTestId('trace-outcome');
  await expect(outcome).toHaveText('No rule changes this request: it is sent as it is.');
  const result = page.getByRole('region', { name: 'Trace result' });
  await expect(result.getByRole('heading', { name: 'No rule acted' })).toBeVisible();
  await expect(result.locator('.trace-rules > li')).toHaveCount(0);
  await result.getByText(`${rules} rules did not match`).click();
  await expect(result.locator('.trace-rules > li')).toHaveCount(rules);
  const cors = result
    .locator('.trace-rules > li')
    .filter({ has: page.getByRole('link', { name: 'CORS', exact: true }) });
  await expect(cors).toContainText('Did not act: no pair matched.');
  await expect(cors).toContainText(/Failed: .*does not contain "example\.com"/);
  expect(await seriousViolations(page), 'Try it, the reasons unfolded').toEqual([]);

  // 3. Open the rule from its reason and fix it in the form: its source, then its header rows.
  await cors.getByRole('link', { name: 'CORS', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Edit rule “CORS”', level: 1 })).toBeVisible();
  const summary = page.getByRole('region', { name: 'What this rule does' });
  await expect(summary).toContainText('When the URL contains example.com');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await pair
    .getByRole('group', { name: 'Source' })
    .getByLabel('Value', { exact: true })
    .fill('localhost:8080');
  const rows = pair.getByRole('group', { name: /^Header change \d/ });
  await expect(rows).toHaveCount(2);
  // Row 1 adds X-Debug to requests, row 2 is the CORS answer: with credentials, `*` will not do.
  await pair.getByRole('button', { name: 'Remove header change 1' }).click();
  await expect(rows).toHaveCount(1);
  const allowOrigin = pair.getByRole('group', { name: 'Header change 1' });
  await expect(allowOrigin.getByLabel('Header')).toHaveValue('Access-Control-Allow-Origin');
  await allowOrigin.getByLabel('Value').fill('rq_request_initiator_origin()');
  await pair.getByRole('button', { name: 'Add a header change' }).click();
  const credentials = pair.getByRole('group', { name: 'Header change 2' });
  await expect(credentials.getByLabel('Applies to')).toHaveValue('Response');
  await credentials.getByLabel('Header').fill('Access-Control-Allow-Credentials');
  await credentials.getByLabel('Value').fill('true');
  await expect(summary).toHaveText(
    'When the URL contains localhost:8080, add the response header Access-Control-Allow-Origin: ' +
      'rq_request_initiator_origin() and add the response header Access-Control-Allow-Credentials: true.',
  );
  expect(await seriousViolations(page), 'the editor, changed').toEqual([]);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'saved' })).toBeVisible();
  // Never left the form for the raw JSON.
  await expect(page.getByRole('button', { name: 'Form' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'JSON' })).toHaveAttribute('aria-pressed', 'false');

  // 4. Try the same call again: the fixed rule acts, and the summary says exactly how.
  await page.getByRole('link', { name: 'Try it' }).click();
  await page.getByLabel('URL', { exact: true }).fill(API_CALL);
  await page.getByLabel('Resource type').selectOption('xmlhttprequest');
  await page.getByLabel('Page URL').fill(`${ORIGIN}/`);
  await page.getByLabel('Request headers').fill(`Origin: ${ORIGIN}`);
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(outcome.getByRole('listitem')).toHaveText([
    `Response header added: Access-Control-Allow-Origin: ${ORIGIN} (by “CORS”)`,
    'Response header added: Access-Control-Allow-Credentials: true (by “CORS”)',
  ]);
  await expect(result.getByRole('heading', { name: 'The rule that acted' })).toBeVisible();
  await expect(result.locator('.trace-rules > li.acted')).toHaveCount(1);
  await expect(result.locator('li.acted')).toContainText('CORS');
  await expect(result.getByText(`${rules - 1} rules did not match`)).toBeVisible();
  expect(await seriousViolations(page), 'Try it, the fixed rule acting').toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page), 'Try it, the fixed rule acting, dark').toEqual([]);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: test.info().outputPath('walk-through.png'), fullPage: true });

  // What the user saw is what the service stored.
  const stored = ok(await workspace.api.GET('/v1/rules', {})).data.find((rule) => rule.name === 'CORS');
  expect(stored?.pairs[0]).toMatchObject({
    source: { key: 'Url', operator: 'Contains', value: 'localhost:8080' },
    modifications: [
      {
        Response: [
          { header: 'Access-Control-Allow-Origin', type: 'Add', value: 'rq_request_initiator_origin()' },
          { header: 'Access-Control-Allow-Credentials', type: 'Add', value: 'true' },
        ],
      },
    ],
  });
});
