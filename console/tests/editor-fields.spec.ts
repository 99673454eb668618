// The rule editor's fields as issue #35 asks: the source as one sentence ("If URL contains …", the
// key URL for a new rule), a filter's conditions as chips with plain names, and bodies and code in a
// code editor coloured in their language, a JSON body pretty-printed; axe finds nothing on them.
import type { Locator } from '@playwright/test';
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test } from './fixtures.js';

/** The colours CodeMirror gave the editor's text: one class a coloured token kind. */
async function tokenClasses(editor: Locator): Promise<number> {
  return editor.evaluate(
    (content) => new Set([...content.querySelectorAll('span[class]')].map((span) => span.className)).size,
  );
}

test('the source is one sentence row, URL by default, with filters as chips beneath', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('to staging');
  const src = page.getByRole('group', { name: 'Pair 1' }).getByRole('group', { name: 'Source' });
  await expect(src.getByText('If', { exact: true })).toBeVisible();
  await expect(src.getByLabel('Key')).toHaveValue('Url');
  await expect(src.getByLabel('Key').locator('option:checked')).toHaveText('URL');
  // Key, operator and value on one line.
  const tops = await Promise.all(
    [src.getByLabel('Key'), src.getByLabel('Operator'), src.getByLabel('Value', { exact: true })].map(
      async (control) => Math.round((await control.boundingBox())?.y ?? -1),
    ),
  );
  expect(new Set(tops).size, `one line: ${tops}`).toBe(1);
  await src.getByLabel('Value', { exact: true }).fill('shop.example.com/checkout');

  await src.getByRole('button', { name: 'Add filter' }).click();
  const filter = src.getByRole('group', { name: 'Filter 1' });
  await filter.getByRole('button', { name: 'Add page domains' }).click();
  await filter.getByRole('button', { name: 'Add page domain' }).click();
  await filter.getByLabel('Page domain 1').fill('shop.example.com');
  await filter.getByRole('button', { name: 'Add request body' }).click();
  const payload = filter.getByRole('group', { name: 'Request body' });
  await payload.getByLabel('Key').fill('operationName');
  await payload.getByLabel('Value').fill('Checkout');
  await expect(filter.locator('.chip')).toHaveCount(2);
  expect(await seriousViolations(page), 'filter chips').toEqual([]);
  await filter.getByRole('button', { name: 'Remove page domains' }).click();
  await expect(filter.locator('.chip')).toHaveCount(1);
  await page.getByLabel('Destination', { exact: true }).fill('https://staging.example.com/checkout');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored?.pairs[0]?.source).toEqual({
    key: 'Url',
    operator: 'Contains',
    value: 'shop.example.com/checkout',
    filters: [{ requestPayload: { key: 'operationName', value: 'Checkout' } }],
  });
});

test('a Response body is coloured as JSON, HTML or code, and a JSON body is pretty-printed', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Rule type').selectOption('Response');
  await page.getByLabel('Name', { exact: true }).fill('mock user');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill('/api/user');
  const body = pair.getByRole('textbox', { name: 'Body', exact: true });
  await body.fill('{"name":"Ada","roles":["admin"],"active":true}');
  // Read from the body: JSON, coloured (keys, strings, a boolean), and laid out on request.
  await expect(pair.getByText('Body (JSON)', { exact: true })).toBeVisible();
  expect(await tokenClasses(body)).toBeGreaterThanOrEqual(3);
  await pair.getByRole('button', { name: 'Pretty-print' }).click();
  await expect(pair.getByRole('button', { name: 'Pretty-print' })).toBeDisabled();
  expect(await seriousViolations(page), 'the body editor').toEqual([]);
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored?.pairs[0]).toMatchObject({
    value: '{\n  "name": "Ada",\n  "roles": [\n    "admin"\n  ],\n  "active": true\n}',
  });

  // HTML is read from its first tag; the colours can be chosen when the guess is wrong.
  await body.fill('<p class="note">Down for maintenance</p>');
  await expect(pair.getByText('Body (HTML)', { exact: true })).toBeVisible();
  expect(await tokenClasses(body)).toBeGreaterThanOrEqual(2);
  await pair.getByLabel('Colour as').selectOption('text');
  await expect(pair.getByText('Body (Plain text)', { exact: true })).toBeVisible();

  // A body built by code is JavaScript.
  await pair.getByLabel('Type', { exact: true }).selectOption('code');
  await body.fill('function modifyResponse(args) { return JSON.stringify({ ok: true }); }');
  await expect(pair.getByText('Body (JavaScript)', { exact: true })).toBeVisible();
  expect(await tokenClasses(body)).toBeGreaterThanOrEqual(2);
  await expect(pair.getByLabel('Colour as')).toHaveCount(0);
});

test("a Script's code is coloured as JavaScript or CSS, and a script from a URL is one line", async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Rule type').selectOption('Script');
  await page.getByLabel('Name', { exact: true }).fill('debug styles');
  const script = page.getByRole('group', { name: 'Script 1' });
  const code = script.getByRole('textbox', { name: 'Code', exact: true });
  await code.fill('window.debug = true; // on');
  await expect(script.getByText('Code (JavaScript)', { exact: true })).toBeVisible();
  await script.getByLabel('Code type').selectOption('css');
  await code.fill('body { outline: 1px solid red; }');
  await expect(script.getByText('Code (CSS)', { exact: true })).toBeVisible();
  expect(await tokenClasses(code)).toBeGreaterThanOrEqual(2);
  await script.getByLabel('Type', { exact: true }).selectOption('url');
  await expect(script.getByRole('textbox', { name: 'Code', exact: true })).toHaveCount(0);
  await expect(script.getByLabel('Value', { exact: true })).toBeVisible();
});
