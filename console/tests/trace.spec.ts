import { expect, ok, signIn, test } from './fixtures.js';

test("Try it explains what the workspace's rules do to a URL, rule by rule", async ({ page, workspace }) => {
  for (const [name, value] of [
    ['to staging', 'checkout'],
    ['never matches', 'nowhere'],
  ] as const) {
    ok(
      await workspace.api.POST('/v1/rules', {
        body: {
          name,
          ruleType: 'Redirect',
          status: 'Active',
          pairs: [
            {
              source: { key: 'Url', operator: 'Contains', value },
              destinationType: 'url',
              destination: 'https://staging.example.com/checkout',
            },
          ],
        },
      }),
    );
  }
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Try it' }).click();

  await page.getByLabel('URL', { exact: true }).fill('not a url');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(page.getByLabel('URL', { exact: true })).toHaveAttribute('aria-invalid', 'true');

  await page.getByLabel('URL', { exact: true }).fill('https://shop.example.com/checkout?step=1');
  await page.getByLabel('Resource type').selectOption('main_frame');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(page.getByTestId('trace-outcome')).toContainText(
    'The request is redirected to https://staging.example.com/checkout',
  );
  const rules = page
    .getByRole('region', { name: 'Trace result' })
    .getByRole('listitem')
    .filter({ has: page.locator('strong') });
  await expect(rules.filter({ hasText: 'to staging' })).toContainText('Acted on the request.');
  await expect(rules.filter({ hasText: 'never matches' })).toContainText('Did not act: no pair matched.');
  await expect(rules.filter({ hasText: 'never matches' })).toContainText('Failed:');
  await page.screenshot({ path: test.info().outputPath('try-it.png'), fullPage: true });
});

test('"Test this rule" tries the rule as it is in the form, before it is saved', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Rule type').selectOption('Delay');
  await page.getByLabel('Name', { exact: true }).fill('slow api');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await pair
    .getByRole('group', { name: 'Source' })
    .getByLabel('Value', { exact: true })
    .fill('api.example.com');
  await pair.getByLabel('Delay').fill('750');

  const test_ = page.getByRole('region', { name: 'Test this rule' });
  await test_.getByLabel('URL', { exact: true }).fill('https://api.example.com/v1/users');
  await test_.getByRole('button', { name: 'Test this rule' }).click();
  await expect(test_.getByTestId('trace-outcome')).toContainText('The request is delayed by 750 ms.');
  await expect(test_).toContainText('slow api');

  // Nothing was saved by trying.
  expect(ok(await workspace.api.GET('/v1/rules', {})).total).toBe(0);
});

test('"Test this rule" on a rule that is not valid shows its problems at the fields', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('no destination yet');
  const test_ = page.getByRole('region', { name: 'Test this rule' });
  await test_.getByLabel('URL', { exact: true }).fill('https://shop.example.com/');
  await test_.getByRole('button', { name: 'Test this rule' }).click();

  await expect(page.getByRole('alert').first()).toContainText('The rule cannot be tested as written.');
  const destination = page.getByRole('group', { name: 'Pair 1' }).getByLabel('Destination', { exact: true });
  await expect(destination).toHaveAccessibleDescription(/must not be empty/);

  await destination.fill('https://staging.example.com/');
  await test_.getByRole('button', { name: 'Test this rule' }).click();
  await expect(test_.getByTestId('trace-outcome')).toBeVisible();
  await expect(destination).not.toHaveAttribute('aria-invalid');
});
