import { seriousViolations } from './axe.js';
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
  const outcome = page.getByTestId('trace-outcome');
  await expect(outcome).toContainText(
    'Redirected: https://shop.example.com/checkout?step=1 → https://staging.example.com/checkout (by “to staging”)',
  );
  const result = page.getByRole('region', { name: 'Trace result' });
  const rules = result.locator('.trace-rules > li');
  // The rule that acted comes first and is shown; the others are folded under their count.
  await expect(rules.filter({ hasText: 'to staging' })).toContainText('Acted on the request.');
  await expect(rules.filter({ hasText: 'never matches' })).toHaveCount(0);
  await result.getByText('1 rule did not match').click();
  await expect(rules.filter({ hasText: 'never matches' })).toContainText('Did not act: no pair matched.');
  await expect(rules.filter({ hasText: 'never matches' })).toContainText(
    /Failed: .*does not contain "nowhere"/,
  );
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
  await expect(test_.getByTestId('trace-outcome')).toContainText(
    'Delayed by 750 ms before it is sent. (by “slow api”)',
  );
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

test('Try it says each change: headers added, changed and removed, the response served, the delay', async ({
  page,
  workspace,
}) => {
  const rules = [
    {
      name: 'headers for the app',
      ruleType: 'Headers',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: 'shop.example.com' },
          modifications: [
            {
              Request: [
                { header: 'X-Debug', type: 'Add', value: '1' },
                { header: 'Accept-Language', type: 'Modify', value: 'fr' },
                { header: 'Cookie', type: 'Remove' },
              ],
              Response: [
                {
                  header: 'Access-Control-Allow-Origin',
                  type: 'Add',
                  value: 'rq_request_initiator_origin()',
                },
                { header: 'Content-Security-Policy', type: 'Remove' },
              ],
            },
          ],
        },
      ],
    },
    {
      name: 'mock the user',
      ruleType: 'Response',
      status: 'Active',
      pairs: [
        {
          source: { key: 'path', operator: 'Equals', value: '/api/user' },
          type: 'static',
          value: '{"id":7}',
          statusCode: 201,
          serveWithoutRequest: true,
        },
      ],
    },
    {
      name: 'slow api',
      ruleType: 'Delay',
      status: 'Active',
      pairs: [{ source: { key: 'path', operator: 'Contains', value: '/api/' }, delay: 300 }],
    },
    {
      name: 'switched off',
      ruleType: 'Cancel',
      status: 'Inactive',
      pairs: [{ source: { key: 'host', operator: 'Contains', value: 'shop' } }],
    },
    {
      name: 'elsewhere',
      ruleType: 'Cancel',
      status: 'Active',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
    },
  ];
  for (const body of rules) ok(await workspace.api.POST('/v1/rules', { body: body as never }));
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Try it' }).click();
  await page.getByLabel('URL', { exact: true }).fill('https://shop.example.com/api/user');
  const headers = page.getByLabel('Request headers');
  await headers.fill('no colon here');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(headers).toHaveAttribute('aria-invalid', 'true');
  await expect(headers).toHaveAccessibleDescription(/Line 1 is not a header/);

  await headers.fill('Accept-Language: en\nCookie: session=1\nOrigin: https://app.example.com');
  await page.getByLabel('Also explain inactive rules').check();
  await page.getByRole('button', { name: 'Try it' }).click();
  const items = page.getByTestId('trace-outcome').getByRole('listitem');
  await expect(items).toHaveText([
    'Delayed by 300 ms before it is sent. (by “slow api”)',
    'Request header changed: accept-language: en → fr (by “headers for the app”)',
    'Request header added: x-debug: 1 (by “headers for the app”)',
    'Request header removed: cookie (was session=1) (by “headers for the app”)',
    // rq_request_initiator_origin() is the request's Origin.
    'Response header added: Access-Control-Allow-Origin: https://app.example.com (by “headers for the app”)',
    'Response header removed: Content-Security-Policy (by “headers for the app”)',
    'Response: 201, application/json, served without contacting the server (by “mock the user”){"id":7}',
  ]);
  const result = page.getByRole('region', { name: 'Trace result' });
  await expect(result.locator('.trace-rules > li.acted')).toHaveCount(3);
  await result.getByText('2 rules did not act (1 inactive, 1 did not match)').click();
  await expect(result.locator('.trace-rules > li.not-acted')).toHaveCount(2);
  await expect(result.locator('li.not-acted').filter({ hasText: 'switched off' })).toContainText(
    'Did not act: the rule is inactive.',
  );
  await result.getByText('Why it matched').first().click();
  expect(await seriousViolations(page), 'the trace result, unfolded').toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page), 'the trace result, unfolded, dark').toEqual([]);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: test.info().outputPath('try-it-changes.png'), fullPage: true });
});

test('Try it says plainly when a request is cancelled, and when nothing happens', async ({
  page,
  workspace,
}) => {
  ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'block ads',
        ruleType: 'Cancel',
        status: 'Active',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
      },
    }),
  );
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Try it' }).click();
  await page.getByLabel('URL', { exact: true }).fill('https://ads.example.com/pixel.gif');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(page.getByTestId('trace-outcome')).toHaveText(
    'Cancelled: the request is never sent. (by “block ads”)',
  );
  await page.getByLabel('URL', { exact: true }).fill('https://shop.example.com/');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(page.getByTestId('trace-outcome')).toHaveText(
    'No rule changes this request: it is sent as it is.',
  );
  await expect(page.getByRole('region', { name: 'Trace result' })).toContainText('1 rule did not match');
});

test('after a failed save, fixing the field and testing the rule clears the errors the save found', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('to staging');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await pair
    .getByRole('group', { name: 'Source' })
    .getByLabel('Value', { exact: true })
    .fill('shop.example.com');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('alert').first()).toContainText('The rule was not saved.');
  const destination = pair.getByLabel('Destination', { exact: true });
  await expect(destination).toHaveAttribute('aria-invalid', 'true');

  await destination.fill('https://staging.example.com/');
  const test_ = page.getByRole('region', { name: 'Test this rule' });
  await test_.getByLabel('URL', { exact: true }).fill('https://shop.example.com/checkout');
  await test_.getByRole('button', { name: 'Test this rule' }).click();
  await expect(test_.getByTestId('trace-outcome')).toContainText('Redirected:');
  await expect(page.getByText('The rule was not saved.')).toBeHidden();
  await expect(destination).not.toHaveAttribute('aria-invalid');
  await expect(page.locator('.field-error')).toHaveCount(0);
});
