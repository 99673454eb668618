import type { Locator, Page } from '@playwright/test';
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test } from './fixtures.js';

/** How a person fills the form of each type, and what the service must then have stored. */
const RECIPES: Record<
  string,
  { fill: (pair: Locator) => Promise<void>; stored: Record<string, unknown>; says: string }
> = {
  Redirect: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      await pair.getByLabel('Destination', { exact: true }).fill('https://staging.example.com');
    },
    stored: { destinationType: 'url', destination: 'https://staging.example.com' },
    says: 'When the URL contains example.com, redirect to https://staging.example.com.',
  },
  Cancel: {
    fill: (pair) => source(pair, 'ads.example.com'),
    stored: {},
    says: 'When the URL contains ads.example.com, cancel the request.',
  },
  Replace: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      await pair.getByLabel('From').fill('prod');
      await pair.getByLabel('To', { exact: true }).fill('staging');
    },
    stored: { from: 'prod', to: 'staging' },
    says: 'When the URL contains example.com, replace prod with staging in the URL.',
  },
  Headers: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      await pair.getByRole('button', { name: 'Add a header change' }).click();
      const header = pair.getByRole('group', { name: 'Header change 1' });
      await header.getByLabel('Header', { exact: true }).fill('X-Test');
      await header.getByLabel('Change').selectOption('Add');
      await header.getByLabel('Value').fill('1');
    },
    stored: { modifications: [{ Request: [{ header: 'X-Test', type: 'Add', value: '1' }] }] },
    says: 'When the URL contains example.com, add the request header X-Test: 1.',
  },
  UserAgent: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      await pair.getByLabel('User agent').fill('Mozilla/5.0 (Rulekeeper test)');
    },
    stored: { userAgent: 'Mozilla/5.0 (Rulekeeper test)' },
    says: 'When the URL contains example.com, send the user agent Mozilla/5.0 (Rulekeeper test).',
  },
  Script: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      await pair
        .getByRole('group', { name: 'Script 1' })
        .getByLabel('Code', { exact: true })
        .fill('console.log("hi")');
    },
    stored: {
      scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'console.log("hi")' }],
    },
    says: 'When the URL contains example.com, add JavaScript code to the page after it loads.',
  },
  QueryParam: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      const modification = pair.getByRole('group', { name: 'Parameter change 1' });
      await modification.getByLabel('Parameter').fill('debug');
      await modification.getByLabel('Value').fill('1');
    },
    stored: { modifications: [{ type: 'Add', param: 'debug', value: '1' }] },
    says: 'When the URL contains example.com, set the parameter debug=1.',
  },
  Response: {
    fill: async (pair) => {
      await source(pair, '/api/user');
      await pair.getByLabel('Body', { exact: true }).fill('{"mock":true}');
      await pair.getByLabel('Status code').fill('201');
    },
    stored: { type: 'static', value: '{"mock":true}', statusCode: 201 },
    says: 'When the URL contains /api/user, answer 201 with {"mock":true} instead of the server’s body.',
  },
  Request: {
    fill: async (pair) => {
      await source(pair, '/api/order');
      await pair.getByLabel('Body', { exact: true }).fill('{"qty":2}');
    },
    stored: { type: 'static', value: '{"qty":2}' },
    says: 'When the URL contains /api/order, send the body {"qty":2}.',
  },
  Delay: {
    fill: async (pair) => {
      await source(pair, 'example.com');
      await pair.getByLabel('Delay').fill('500');
    },
    stored: { delay: 500 },
    says: 'When the URL contains example.com, delay the request by 500 ms.',
  },
};

async function source(pair: Locator, value: string) {
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill(value);
}

async function newRule(page: Page, ruleType: string, name: string) {
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Rule type').selectOption(ruleType);
  await page.getByLabel('Name', { exact: true }).fill(name);
}

test('one rule of each of the ten types is created through its form', async ({ page, workspace }) => {
  await signIn(page, workspace.key);
  for (const [ruleType, recipe] of Object.entries(RECIPES)) {
    await page.goto('/#/rules');
    await newRule(page, ruleType, `${ruleType} rule`);
    await page.getByLabel('Status', { exact: true }).selectOption('Active');
    await recipe.fill(page.getByRole('group', { name: 'Pair 1' }));
    // Above the form, the rule in plain words, as the form now says it.
    await expect(page.getByRole('region', { name: 'What this rule does' })).toHaveText(recipe.says);
    if (ruleType === 'Headers')
      await page.screenshot({ path: test.info().outputPath('editor.png'), fullPage: true });
    await page.getByRole('button', { name: 'Create rule' }).click();
    await expect(
      page.getByRole('status').filter({ hasText: `Rule “${ruleType} rule” created.` }),
    ).toBeVisible();
  }

  const rules = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(rules.map((rule) => rule.ruleType).sort()).toEqual(Object.keys(RECIPES).sort());
  for (const rule of rules) {
    expect(rule.name).toBe(`${rule.ruleType} rule`);
    expect(rule.status).toBe('Active');
    expect(rule.pairs).toHaveLength(1);
    expect(rule.pairs[0]).toMatchObject(RECIPES[rule.ruleType]?.stored ?? {});
  }
  await page.goto('/#/rules');
  await expect(page.getByRole('switch')).toHaveCount(10);
  await page.screenshot({ path: test.info().outputPath('rules.png'), fullPage: true });
});

test('a filter with every field reaches the service, and the JSON view stays in step with the form', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await newRule(page, 'Cancel', 'filtered');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await source(pair, 'tracker');
  const src = pair.getByRole('group', { name: 'Source' });
  await src.getByRole('button', { name: 'Add filter' }).click();
  const filter = src.getByRole('group', { name: 'Filter 1' });
  // A filter's conditions are chips, each added by its plain name.
  await expect(filter.locator('.chip-add')).toHaveText([
    '+ Add request method',
    '+ Add resource type',
    '+ Add page URL',
    '+ Add page domains',
    '+ Add request body',
  ]);
  await filter.getByRole('button', { name: 'Add request method' }).click();
  await filter.getByLabel('POST').check();
  await filter.getByRole('button', { name: 'Add resource type' }).click();
  await filter.getByLabel('XHR and fetch').check();
  await filter.getByRole('button', { name: 'Add page URL' }).click();
  await filter.getByRole('group', { name: 'Page URL' }).getByLabel('Value').fill('shop');
  // Its first paragraph (the next says a new rule is inactive).
  await expect(page.getByRole('region', { name: 'What this rule does' }).locator('p').first()).toHaveText(
    "When the URL contains tracker and the method is POST and it is a xmlhttprequest request and the page's URL contains shop, cancel the request.",
  );

  await page.getByRole('button', { name: 'JSON' }).click();
  const json = page.getByRole('textbox', { name: 'The rule as JSON' });
  const shown = JSON.parse(await json.innerText());
  expect(shown.pairs[0].source.filters).toEqual([
    {
      requestMethod: ['POST'],
      resourceType: ['xmlhttprequest'],
      URL: { operator: 'Contains', value: 'shop' },
    },
  ]);
  await json.fill(JSON.stringify({ ...shown, name: 'renamed in JSON' }));
  await page.getByRole('button', { name: 'Form' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('renamed in JSON');

  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored?.name).toBe('renamed in JSON');
  expect(stored?.pairs[0]?.source.filters).toEqual(shown.pairs[0].source.filters);
});

test("the service's errors show at the fields they name, and nothing is stored", async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  // No name, and a pair without its destination.
  await newRule(page, 'Redirect', '');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await source(pair, 'example.com');
  await page.getByRole('button', { name: 'Create rule' }).click();

  await expect(page.getByRole('alert')).toContainText('The rule was not saved.');
  const name = page.getByLabel('Name', { exact: true });
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription(/must not be blank/);
  const destination = pair.getByLabel('Destination', { exact: true });
  await expect(destination).toHaveAttribute('aria-invalid', 'true');
  await expect(destination).toHaveAccessibleDescription(/must not be empty/);
  await expect(pair.getByLabel('Destination type')).not.toHaveAttribute('aria-invalid');
  await page.screenshot({ path: test.info().outputPath('field-errors.png'), fullPage: true });
  // The summary's links take the keyboard to the field.
  // In words, as the form labels the field and counts the pair: no JSON pointer.
  await expect(page.getByRole('alert')).not.toContainText('/pairs');
  await page.getByRole('link', { name: /^Pair 1 · Destination: / }).click();
  await expect(pair.getByLabel('Destination', { exact: true })).toBeFocused();

  expect(ok(await workspace.api.GET('/v1/rules', {})).total).toBe(0);
});

test('a rule is edited, switched in the list, and deleted after confirming', async ({ page, workspace }) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'checkout redirect',
        ruleType: 'Redirect',
        status: 'Inactive',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'checkout' },
            destinationType: 'url',
            destination: 'https://staging.example.com/checkout',
          },
        ],
      },
    }),
  ).data;
  await signIn(page, workspace.key);

  await page.getByRole('switch', { name: 'checkout redirect active' }).click();
  await expect(page.getByRole('switch', { name: 'checkout redirect active' })).toHaveAttribute(
    'aria-checked',
    'true',
  );
  expect(
    ok(await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } })).data
      .status,
  ).toBe('Active');

  await page.getByRole('link', { name: 'checkout redirect' }).click();
  await page.getByLabel('Name', { exact: true }).fill('checkout to staging');
  await page.getByLabel('Destination', { exact: true }).fill('https://staging.example.com/pay');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const edited = ok(
    await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } }),
  ).data;
  expect(edited).toMatchObject({ name: 'checkout to staging', status: 'Active' });
  expect(edited.pairs[0]).toMatchObject({
    id: created.pairs[0]?.id,
    destination: 'https://staging.example.com/pay',
  });

  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this rule?' });
  await expect(dialog).toContainText('checkout to staging');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete rule' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Rule “checkout to staging” deleted.' }),
  ).toBeVisible();
  const gone = await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } });
  expect(gone.response.status).toBe(404);
});

test('an edit made elsewhere meanwhile is reported, not overwritten', async ({ page, workspace }) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'shared',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
      },
    }),
  ).data;
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'shared' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('shared');

  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: created.id } },
      body: { name: 'changed by a teammate' },
    }),
  );
  await page.getByLabel('Name', { exact: true }).fill('my change');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('changed elsewhere since you opened it');
  const stored = ok(
    await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } }),
  ).data;
  expect(stored.name).toBe('changed by a teammate');

  await page.getByRole('button', { name: 'Load the current version' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('changed by a teammate');
  await page.getByLabel('Name', { exact: true }).fill('my change, on top');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
});

test('the list filters, searches and pages as the API does', async ({ page, workspace }) => {
  for (let i = 1; i <= 30; i += 1) {
    ok(
      await workspace.api.POST('/v1/rules', {
        body: {
          name: `rule ${String(i).padStart(2, '0')}${i % 3 === 0 ? ' checkout' : ''}`,
          ruleType: i % 2 ? 'Cancel' : 'Delay',
          status: i <= 5 ? 'Active' : 'Inactive',
          pairs:
            i % 2
              ? [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }]
              : [{ source: { key: 'host', operator: 'Equals', value: 'a.example' }, delay: 10 }],
        } as never,
      }),
    );
  }
  await signIn(page, workspace.key);
  await expect(page.getByText('1–25 of 30')).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('26–30 of 30')).toBeVisible();
  await expect(page.getByRole('switch')).toHaveCount(5);

  await page.getByLabel('Search names').fill('checkout');
  await expect(page.getByText('1–10 of 10')).toBeVisible();
  await page.getByLabel('Type', { exact: true }).selectOption('Delay');
  await expect(page.getByText('1–5 of 5')).toBeVisible();
  await page.getByLabel('Status', { exact: true }).selectOption('Active');
  await expect(page.getByText('No rules here.')).toBeVisible();
});

test("a rule's history lists its versions, and an earlier one is restored", async ({ page, workspace }) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'before',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
      },
    }),
  ).data;
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: created.id } },
      body: { name: 'after a bad change' },
    }),
  );
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'after a bad change' }).click();
  const history = page.getByRole('region', { name: 'History' });
  await expect(history.getByRole('listitem')).toHaveCount(2);
  await expect(history.getByRole('listitem').first()).toContainText('Version 2: updated');
  // Who made each version, by name: the workspace's user is `tester` (fixtures.ts).
  await expect(history.getByRole('listitem').first()).toContainText(' by tester.');
  await expect(history.getByRole('listitem').last()).toContainText('Named “before”');

  await history.getByRole('button', { name: 'Restore version 1' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Restored' })).toBeVisible();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('before');
  await expect(history.getByRole('listitem')).toHaveCount(3);
  const stored = ok(
    await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } }),
  ).data;
  expect(stored.name).toBe('before');
});

test("a Matches value's hint says the flags the service reads, as the README does", async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await newRule(page, 'Cancel', 'flags');
  const value = page.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true });
  await expect(value).toHaveAccessibleDescription(
    /flags i, m, s change what matches, u or v reads the pattern in Unicode mode, d, g, y change nothing/,
  );
  await expect(value).not.toHaveAccessibleDescription(/gimsuy/);
  await page.getByRole('group', { name: 'Source' }).getByLabel('Operator').selectOption('Matches');
  // A flag the hint does not name is refused, at the field.
  await value.fill('/checkout/x');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(value).toHaveAccessibleDescription(/unknown flag x/);
  await value.fill('/CHECKOUT/iv');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Rule “flags” created.' })).toBeVisible();
});

test("header changes are rows: three fit on a screen, with hints for Requestly's functions, errors at their cell", async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await newRule(page, 'Headers', 'cors for the app');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await source(pair, 'api.example.com');
  const rows: [string, string, string, string][] = [
    ['Request', 'Add', 'X-Debug', '1'],
    ['Request', 'Remove', 'Cookie', ''],
    ['Request', 'Add', 'X-Dropped', 'soon'],
    ['Response', 'Add', 'Access-Control-Allow-Origin', 'rq_request_initiator_origin()'],
  ];
  for (const [n, [side, type, header, value]] of rows.entries()) {
    await pair.getByRole('button', { name: 'Add a header change' }).click();
    const row = pair.getByRole('group', { name: `Header change ${n + 1}` });
    await row.getByLabel('Applies to').selectOption(side);
    await row.getByLabel('Change').selectOption(type);
    await row.getByLabel('Header').fill(header);
    if (type !== 'Remove') await row.getByLabel('Value').fill(value);
  }
  // The functions a value may call are suggested and explained.
  const value = pair.getByRole('group', { name: 'Header change 1' }).getByLabel('Value');
  await expect(value).toHaveAccessibleDescription(/rq_request_initiator_origin\(\).*rq_rand\(N\)/);
  await expect(page.locator('datalist#rq-functions option')).toHaveCount(2);
  await pair.getByRole('button', { name: 'Remove header change 3' }).click();
  await expect(pair.getByRole('group', { name: /^Header change \d/ })).toHaveCount(3);
  await expect(page.getByRole('region', { name: 'What this rule does' }).locator('p').first()).toHaveText(
    'When the URL contains api.example.com, add the request header X-Debug: 1, remove the request header ' +
      'Cookie and add the response header Access-Control-Allow-Origin: rq_request_initiator_origin().',
  );
  // Three changes take a few lines (a fieldset per change made a 3,469 px page), the hint included.
  const box = await pair.getByRole('group', { name: 'Header changes' }).boundingBox();
  expect(box?.height).toBeLessThan(350);
  await page.screenshot({ path: test.info().outputPath('header-rows.png'), fullPage: true });

  // A name the service refuses is said at its cell.
  const first = pair.getByRole('group', { name: 'Header change 1' }).getByLabel('Header');
  await first.fill('X Debug');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(first).toHaveAttribute('aria-invalid', 'true');
  expect(await seriousViolations(page), 'header rows with an error').toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page), 'header rows with an error, dark').toEqual([]);
  await page.emulateMedia({ colorScheme: 'light' });
  await first.fill('X-Debug');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored?.pairs[0]).toMatchObject({
    modifications: [
      {
        Request: [
          { header: 'X-Debug', type: 'Add', value: '1' },
          { header: 'Cookie', type: 'Remove' },
        ],
        Response: [
          { header: 'Access-Control-Allow-Origin', type: 'Add', value: 'rq_request_initiator_origin()' },
        ],
      },
    ],
  });
});

test('query parameter changes are rows, each with only the cells its change takes', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await newRule(page, 'QueryParam', 'strip tracking');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await source(pair, 'shop.example.com');
  const first = pair.getByRole('group', { name: 'Parameter change 1' });
  await first.getByLabel('Change').selectOption('Remove');
  await first.getByLabel('Parameter').fill('utm_source');
  await expect(first.getByLabel('Value')).toHaveCount(0);
  await pair.getByRole('button', { name: 'Add a parameter change' }).click();
  const second = pair.getByRole('group', { name: 'Parameter change 2' });
  await second.getByLabel('Parameter').fill('debug');
  await second.getByLabel('Value').fill('1');
  await second.getByLabel('If it is there').selectOption('Ignore');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored?.pairs[0]).toMatchObject({
    modifications: [
      { type: 'Remove', param: 'utm_source' },
      { type: 'Add', param: 'debug', value: '1', actionWhenParamExists: 'Ignore' },
    ],
  });
});

test('the plain-words summary says every pair, every request for an empty value, and when the rule is off', async ({
  page,
  workspace,
}) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'two pairs',
        ruleType: 'Redirect',
        status: 'Inactive',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'shop.example.com/checkout' },
            destinationType: 'url',
            destination: 'https://staging.example.com/checkout',
          },
          {
            source: { key: 'path', operator: 'Equals', value: '' },
            destinationType: 'map_local',
            destination: '/tmp/index.html',
          },
        ],
      },
    }),
  ).data;
  await signIn(page, workspace.key);
  await page.goto(`/#/rules/${created.id}`);
  const summary = page.getByRole('region', { name: 'What this rule does' });
  await expect(summary.getByRole('listitem')).toHaveText([
    'When the URL contains shop.example.com/checkout, redirect to https://staging.example.com/checkout.',
    'For every request, serve the local file /tmp/index.html.',
  ]);
  await expect(summary).toContainText('It is inactive: nothing happens until it is switched on.');
  await expect(summary.locator('code').first()).toHaveText('shop.example.com/checkout');
});

test("the JSON view highlights the rule and marks the service's problems at their lines", async ({
  page,
  workspace,
}) => {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await signIn(page, workspace.key);
  await newRule(page, 'Redirect', 'to staging');
  await source(page.getByRole('group', { name: 'Pair 1' }), 'shop.example.com');
  await page.getByRole('button', { name: 'JSON' }).click();
  const json = page.getByRole('textbox', { name: 'The rule as JSON' });
  const text = await json.innerText();
  // Names and values are coloured apart from the punctuation around them.
  const colour = (locator: ReturnType<Page['locator']>) =>
    locator.evaluate((el) => getComputedStyle(el).color);
  const name = page.locator('.cm-line span').filter({ hasText: '"name"' }).first();
  expect(await colour(name)).not.toBe(await colour(page.locator('.cm-line').first()));

  // No destination: the save's problem is marked on the line of the pair's destination, and said there.
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('alert').first()).toContainText('The rule was not saved.');
  const line = text.split('\n').findIndex((l) => l.includes('"destination"')) + 1;
  expect(line).toBeGreaterThan(1);
  await expect(page.locator('.json-problems')).toContainText(
    `Line ${line}: /pairs/0/destination must not be empty`,
  );
  await expect(page.locator('.cm-lintRange-error')).toHaveCount(1);
  await expect(page.locator('.cm-lintRange-error')).toHaveText('"destination": ""');
  expect(await seriousViolations(page), 'the JSON view with a problem').toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page), 'the JSON view with a problem, dark').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('json-view-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: test.info().outputPath('json-view.png'), fullPage: true });

  // Text that does not parse is kept, and said.
  await json.press('ControlOrMeta+End');
  await json.press('Backspace');
  await expect(page.getByText('Not valid JSON yet')).toBeVisible();
  await json.press('ControlOrMeta+z');
  await expect(page.getByText('Not valid JSON yet')).toBeHidden();
  expect(refused).toEqual([]);
});
