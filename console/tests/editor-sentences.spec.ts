// Each rule type's action as one sentence row after the source, as issue #35 asks ("Redirect to
// [URL] [destination]", "Replace [from] with [to]", "Delay by [N] ms", "[Add] [request] header [name]
// [value]"…): one line at desktop width, wrapping without a sideways scroll at 390 px, every control
// labelled, the same JSON on the wire; and a Matches pattern coloured as a regular expression, shown
// exactly as typed.
import type { Locator, Page } from '@playwright/test';
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test } from './fixtures.js';
import { expectReadsOnPhone } from './phone.js';

/** The tops of the controls in a row, rounded: one value when they stand on one line. */
async function lines(row: Locator): Promise<number> {
  const tops = await row
    .locator('input, select')
    .evaluateAll((controls) => controls.map((control) => Math.round(control.getBoundingClientRect().top)));
  return new Set(tops).size;
}

async function newRule(page: Page, type: string) {
  await page.goto('/#/rules/new');
  await page.getByLabel('Rule type').selectOption(type);
  const pair = page.getByRole('group', { name: 'Pair 1' });
  return { pair, action: pair.getByRole('group', { name: 'Action' }) };
}

test('each type says its action as one sentence row, labelled, one line wide, the wire unchanged', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);

  let { pair, action } = await newRule(page, 'Redirect');
  await expect(action.locator('.word')).toHaveText(['Redirect to']);
  await expect(action.getByLabel('Destination type')).toHaveValue('url');
  await expect(action.getByLabel('Destination type').locator('option:checked')).toHaveText('URL');
  await action.getByLabel('Destination', { exact: true }).fill('https://staging.example.com/');
  expect(await lines(action), 'Redirect on one line').toBe(1);

  ({ pair, action } = await newRule(page, 'Replace'));
  await expect(action.locator('.word')).toHaveText(['Replace', 'with']);
  await page.getByLabel('Name', { exact: true }).fill('to staging api');
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill('example.com');
  await action.getByLabel('From').fill('api.example.com');
  await action.getByLabel('To', { exact: true }).fill('api.staging.example.com');
  expect(await lines(action), 'Replace on one line').toBe(1);
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [replace] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(replace?.pairs[0]).toMatchObject({ from: 'api.example.com', to: 'api.staging.example.com' });

  ({ pair, action } = await newRule(page, 'Delay'));
  await expect(action.locator('.word')).toHaveText(['Delay by', 'ms']);
  await action.getByLabel('Delay').fill('250');
  await expect(pair.getByText(/1000 is one second/)).toBeVisible();
  await page.getByRole('button', { name: 'JSON' }).click();
  // A number on the wire, as the plain field sent it.
  await expect(page.getByRole('textbox', { name: 'The rule as JSON' })).toContainText('"delay": 250');
  await page.getByRole('button', { name: 'Form' }).click();

  ({ pair, action } = await newRule(page, 'Cancel'));
  await expect(pair.getByText('Cancel the request (nothing more to set).')).toBeVisible();
  await expect(action.locator('input, select')).toHaveCount(0);

  ({ pair, action } = await newRule(page, 'UserAgent'));
  await action.getByLabel('User agent').fill('Mozilla/5.0 (iPhone)');
  await action.getByLabel('Browser or device kind').selectOption('device');
  await action.getByLabel('Browser or device name').fill('iPhone');
  expect(await lines(action), 'UserAgent on one line').toBe(1);

  ({ pair, action } = await newRule(page, 'Response'));
  await expect(action.locator('.word')).toHaveText(['Respond with status', 'and a', 'body']);
  await action.getByLabel('Status code').fill('402');
  await action.getByLabel('Status text').fill('Payment Required');
  await expect(action.getByLabel('Type', { exact: true })).toHaveValue('static');
  expect(await lines(action), 'Response on one line').toBe(1);
  // The body's editor follows the sentence.
  await expect(pair.getByRole('textbox', { name: 'Body', exact: true })).toBeVisible();
  expect(await seriousViolations(page), 'the Response sentence').toEqual([]);

  ({ pair, action } = await newRule(page, 'Request'));
  await expect(action.locator('.word')).toHaveText(['Send a', 'request body']);
  await action.getByLabel('Type', { exact: true }).selectOption('code');
  await expect(pair.getByText('Body (JavaScript)', { exact: true })).toBeVisible();

  ({ pair } = await newRule(page, 'Script'));
  const script = pair.getByRole('group', { name: 'What to insert' });
  await expect(script.locator('.word')).toHaveText(['Insert', 'from']);
  await script.getByLabel('Code type').selectOption('css');
  await expect(pair.getByText('Code (CSS)', { exact: true })).toBeVisible();
  expect(await lines(script), 'a script on one line').toBe(1);

  ({ pair } = await newRule(page, 'Headers'));
  await pair.getByRole('button', { name: 'Add a header change' }).click();
  const header = pair.getByRole('group', { name: 'Header change 1' });
  await expect(header.locator('.word')).toHaveText(['header']);
  await header.getByLabel('Applies to').selectOption('Response');
  await expect(header.getByLabel('Applies to').locator('option:checked')).toHaveText('response');
  await header.getByLabel('Header', { exact: true }).fill('Access-Control-Allow-Origin');
  await header.getByLabel('Value').fill('*');
  expect(await lines(header), 'a header change on one line').toBe(1);
  await header.getByLabel('Change').selectOption('Remove');
  await expect(header.getByLabel('Value')).toHaveCount(0);

  ({ pair } = await newRule(page, 'QueryParam'));
  await pair.getByRole('button', { name: 'Add a parameter change' }).click();
  const param = pair.getByRole('group', { name: 'Parameter change 1' });
  await expect(param.locator('.word')).toHaveText(['param', 'if it is there']);
  await param.getByLabel('Parameter').fill('utm_source');
  await param.getByLabel('Value').fill('qa');
  expect(await lines(param), 'a parameter change on one line').toBe(1);
  await param.getByLabel('Change').selectOption('Remove All');
  await expect(param.locator('.word')).toHaveText(['params']);
  await expect(param.getByLabel('Parameter')).toHaveCount(0);
  expect(await seriousViolations(page), 'the parameter sentence').toEqual([]);
});

test('the sentence rows wrap at 390 px with nothing scrolled sideways, and are written with the keyboard', async ({
  page,
  workspace,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, workspace.key);
  const { pair, action } = await newRule(page, 'Response');
  await action.getByLabel('Status code').fill('503');
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill('/api/');
  await expectReadsOnPhone(page.locator('main form').first(), 'the Response sentence at 390 px');
  expect(await lines(action), 'wrapped').toBeGreaterThan(1);

  // From the status code, Tab reaches the status text, then the body's type.
  await action.getByLabel('Status code').focus();
  await page.keyboard.press('Tab');
  await expect(action.getByLabel('Status text')).toBeFocused();
  await page.keyboard.type('Service Unavailable');
  await page.keyboard.press('Tab');
  await expect(action.getByLabel('Type', { exact: true })).toBeFocused();
  await page.getByRole('button', { name: 'JSON' }).click();
  await expect(page.getByRole('textbox', { name: 'The rule as JSON' })).toContainText(
    '"statusText": "Service Unavailable"',
  );
});

test('a Matches pattern is coloured as a regular expression and shown exactly as typed', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('checkout pages');
  const source = page.getByRole('group', { name: 'Pair 1' }).getByRole('group', { name: 'Source' });
  const value = source.getByLabel('Value', { exact: true });
  // Not a pattern: no colours.
  await value.fill('shop.example.com');
  await expect(source.locator('.regex-overlay')).toHaveCount(0);

  await source.getByLabel('Operator').selectOption('Matches');
  const pattern = String.raw`/^https:\/\/shop\.example\.com\/(?:cart|checkout)\d{2,}[^#]*$/i`;
  await value.fill(pattern);
  const overlay = source.locator('.regex-overlay');
  // The coloured copy is the value itself, backslashes as typed (never doubled).
  await expect(overlay).toHaveText(pattern);
  await expect(value).toHaveValue(pattern);
  for (const [kind, text] of [
    ['delimiter', '/'],
    ['flags', 'i'],
    ['anchor', '^'],
    ['escape', String.raw`\/`],
    ['group', '(?:'],
    ['alternation', '|'],
    ['quantifier', '{2,}'],
    ['class', '[^#]'],
  ]) {
    await expect(overlay.locator(`.re-${kind}`).filter({ hasText: text }).first(), kind).toBeVisible();
  }
  // In colours: an escape and a quantifier are not the plain text's colour, and the box's own
  // text is see-through, so the pattern is drawn once.
  const colour = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).color);
  const plain = await colour(overlay);
  expect(await colour(overlay.locator('.re-escape').first())).not.toBe(plain);
  expect(await colour(overlay.locator('.re-quantifier').first())).not.toBe(plain);
  expect(await colour(value)).toBe('rgba(0, 0, 0, 0)');
  // The copy lines up with the box.
  const [box, copy] = await Promise.all([value.boundingBox(), overlay.boundingBox()]);
  expect(Math.abs((box?.x ?? 0) - (copy?.x ?? 1))).toBeLessThanOrEqual(1);
  expect(Math.abs((box?.height ?? 0) - (copy?.height ?? 1))).toBeLessThanOrEqual(1);
  expect(await seriousViolations(page), 'the coloured pattern').toEqual([]);
  await source.screenshot({ path: test.info().outputPath('matches.png') });

  // A long pattern scrolls with the box: its end is shown when the caret is there.
  await value.press('End');
  const scrolled = await value.evaluate((input) => input.scrollLeft);
  await expect.poll(() => overlay.evaluate((el) => el.scrollLeft)).toBe(scrolled);

  await page.getByLabel('Destination', { exact: true }).fill('https://staging.example.com/');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored?.pairs[0]?.source).toMatchObject({ operator: 'Matches', value: pattern });
});

test('typing {{ in a body or a script offers the variables as the text boxes do', async ({
  page,
  workspace,
}) => {
  ok(await workspace.api.POST('/v1/environments', { body: { name: 'staging' } }));
  for (const name of ['API', 'API_KEY'])
    ok(
      await workspace.api.POST('/v1/variables', {
        body: { name, secret: name === 'API_KEY', values: { staging: `${name.toLowerCase()} value` } },
      }),
    );
  await signIn(page, workspace.key);
  // A Request body built by code.
  let { pair, action } = await newRule(page, 'Request');
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill('/api/');
  await action.getByLabel('Type', { exact: true }).selectOption('code');
  const body = pair.getByRole('textbox', { name: 'Body', exact: true });
  await body.fill('return "api at ');
  await body.press('End');
  await body.press('{');
  await body.press('{');
  const offer = pair.getByRole('listbox', { name: 'Variables' });
  await expect(offer.getByRole('option')).toHaveText([/^\{\{API\}\}/, /^\{\{API_KEY\}\}/]);
  await expect(offer.getByRole('option').nth(1)).not.toContainText('api_key value');
  expect(await seriousViolations(page), 'the offer in a body').toEqual([]);
  await body.press('ArrowDown');
  await expect(offer.getByRole('option', { name: /API_KEY/ })).toHaveAttribute('aria-selected', 'true');
  // The live region says the option the arrows are on (the editor cannot point into the page).
  await expect(pair.getByRole('status').filter({ hasText: 'API_KEY, 2 of 2 variables' })).toHaveCount(1);
  await body.press('ArrowUp');
  // Enter writes the name; it does not break the line.
  await body.press('Enter');
  await expect(offer).toHaveCount(0);
  // `/` and `n` in a code editor are text, not the console's shortcuts (search, new rule).
  for (const key of ['/', 'v', '2', 'n', '"']) await body.press(key);
  await page.getByRole('button', { name: 'JSON' }).click();
  await expect(page.getByRole('textbox', { name: 'The rule as JSON' })).toContainText(
    String.raw`"value": "return \"api at {{API}}/v2n\""`,
  );
  await page.getByRole('button', { name: 'Form' }).click();

  // Escape closes the offer and leaves the text; a name of none is pointed out under the editor.
  ({ pair } = await newRule(page, 'Script'));
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill('shop');
  const code = pair.getByRole('textbox', { name: 'Code', exact: true });
  await code.fill('fetch("');
  await code.press('End');
  for (const key of ['{', '{', 'A', 'P']) await code.press(key);
  await expect(pair.getByRole('listbox', { name: 'Variables' }).getByRole('option')).toHaveCount(2);
  await page.keyboard.press('Escape');
  await expect(pair.getByRole('listbox', { name: 'Variables' })).toHaveCount(0);
  for (const key of ['P', 'I', '}', '}', '"', ')']) await code.press(key);
  await expect(pair.getByText('names no variable of this workspace')).toBeVisible();
  // Tab chooses only while names are offered: otherwise it leaves the editor, as from a text area.
  await page.keyboard.press('Tab');
  await expect(code).not.toBeFocused();
});

test('a body typed key by key, faster than frames, stays as typed (the editor once set it back, and hung)', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  const { pair } = await newRule(page, 'Response');
  const body = pair.getByRole('textbox', { name: 'Body', exact: true });
  await body.click();
  const typed = '{"status": "declined", "retry": false, "codes": [402, 429]}';
  await page.keyboard.type(typed);
  await expect(body).toHaveText(typed);
  await expect(pair.getByText('Body (JSON)', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'JSON' }).click();
  await expect(page.getByRole('textbox', { name: 'The rule as JSON' })).toContainText(JSON.stringify(typed));
});
