// The rule editor safe by default and in words for people (issue #35, items 2 to 4 in part): a rule
// that would act on every request is saved only when confirmed, and Inactive; what is wrong shows
// beside its field before saving, counted as the form counts; the service's refusals name the field's
// label and the pair's number, never a JSON pointer; wire values are labelled; a restore asks before
// switching a rule on; after `n`, typing goes to the new rule's name.
import { expect, ok, signIn, test } from './fixtures.js';

test('after n, typing names the rule; a Cancel with no source waits for a confirmation and is saved Inactive', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { name: 'New rule', level: 1 })).toBeVisible();
  const name = page.getByLabel('Name', { exact: true });
  await expect(name).toBeFocused();
  await page.keyboard.type('block all');
  await expect(name).toHaveValue('block all');

  await page.getByLabel('Rule type').selectOption('Cancel');
  await expect(page.getByLabel('Status', { exact: true })).toHaveValue('Inactive');
  // Before any save, beside the source's value: what the rule would do, in words.
  const value = page.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true });
  await expect(value).toHaveAccessibleDescription(/This rule has no source: it will cancel every request/);

  await page.getByRole('button', { name: 'Create rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save a rule that acts on every request?' });
  await expect(dialog).toContainText('This rule has no source: it will cancel every request.');
  await expect(dialog).toContainText('It is set Inactive');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(ok(await workspace.api.GET('/v1/rules', {})).data).toHaveLength(0);

  // A source for it: the warning goes, and the rule saves at once, Inactive.
  await value.fill('ads.example.com');
  await expect(value).not.toHaveAccessibleDescription(/every request/);
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored).toMatchObject({ name: 'block all', status: 'Inactive', ruleType: 'Cancel' });
});

test('a confirmed rule for every request is saved as chosen; a source matching every URL is caught too', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('slow everything');
  await page.getByLabel('Rule type').selectOption('Delay');
  const src = page.getByRole('group', { name: 'Source' });
  await src.getByLabel('Operator').selectOption('Wildcard_Matches');
  await src.getByLabel('Value', { exact: true }).fill('*');
  await page.getByLabel('Delay (milliseconds)').fill('100');
  await page.getByRole('button', { name: 'Create rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save a rule that acts on every request?' });
  await expect(dialog).toContainText('matches every URL (“*”, no filter): it will delay every request.');
  await dialog.getByRole('button', { name: 'Save it, inactive' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();
  const [stored] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored).toMatchObject({ name: 'slow everything', status: 'Inactive', ruleType: 'Delay' });
});

test("the service's refusal names the field and the pair as the form does, never a pointer", async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('to staging');
  await page.getByLabel('Rule type').selectOption('Redirect');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  await pair.getByRole('group', { name: 'Source' }).getByLabel('Value', { exact: true }).fill('example.com');
  await page.getByRole('button', { name: 'Create rule' }).click();
  const summary = page.getByRole('alert');
  await expect(summary).toContainText('The rule was not saved.');
  await expect(summary.getByRole('link')).toContainText(['Pair 1 · Destination: ']);
  await expect(summary).not.toContainText('/pairs');
  await expect(summary).not.toContainText('Payload');
  // The link takes the keyboard to the field.
  await summary.getByRole('link').first().click();
  await expect(pair.getByLabel('Destination', { exact: true })).toBeFocused();
});

test('choices show labels, the JSON view the wire values; the delay hint names no setting', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('labels');
  await page.getByLabel('Rule type').selectOption('Redirect');
  const pair = page.getByRole('group', { name: 'Pair 1' });
  const src = pair.getByRole('group', { name: 'Source' });
  const operator = src.getByLabel('Operator');
  await expect(operator.getByRole('option')).toHaveText([
    'Equals',
    'Contains',
    'Matches (regular expression)',
    'Wildcard',
  ]);
  await operator.selectOption({ label: 'Wildcard' });
  await src.getByLabel('Value', { exact: true }).fill('*://example.com/*');
  await expect(pair.getByLabel('Destination type').getByRole('option')).toHaveText([
    'URL',
    'Local file (map local)',
    'Mock or file',
  ]);
  await src.getByRole('button', { name: 'Add filter' }).click();
  const filter = src.getByRole('group', { name: 'Filter 1' });
  await filter.getByRole('button', { name: 'Add resource type' }).click();
  await expect(filter.getByLabel('XHR and fetch')).toBeVisible();
  await filter.getByRole('button', { name: 'Add page URL' }).click();
  await expect(filter.getByRole('group', { name: 'Page URL' })).toBeVisible();

  await page.getByRole('button', { name: 'JSON' }).click();
  const json = JSON.parse(await page.getByRole('textbox', { name: 'The rule as JSON' }).innerText());
  expect(json.pairs[0].source.operator).toBe('Wildcard_Matches');

  await page.getByRole('button', { name: 'Form' }).click();
  await page.getByLabel('Rule type').selectOption('Delay');
  const delay = page.getByLabel('Delay (milliseconds)');
  await expect(delay).toHaveAccessibleDescription(/up to a maximum set by the server, 60 seconds/);
  await expect(delay).not.toHaveAccessibleDescription(/MAX_DELAY_MS/);
});

test('the lint of a saved rule counts pairs from 1; restoring asks before switching the rule on', async ({
  page,
  workspace,
}) => {
  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'twice',
        ruleType: 'Cancel',
        status: 'Active',
        pairs: [
          { source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } },
          { source: { key: 'host', operator: 'Contains', value: '' } },
        ],
      },
    }),
  ).data;
  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: created.id } },
      body: { status: 'Inactive' },
    }),
  );
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'twice' }).click();
  const lint = page.getByRole('region', { name: 'What the rule lint finds' });
  await expect(lint).toContainText('Pair 2 of "twice" matches every request');

  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('button', { name: 'Restore version 1' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore version 1 and switch the rule on?' });
  await expect(dialog).toContainText('sets the status to Active');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  const stillOff = ok(
    await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } }),
  ).data;
  expect(stillOff.status).toBe('Inactive');

  await history.getByRole('button', { name: 'Restore version 1' }).click();
  await dialog.getByRole('button', { name: 'Restore and switch on' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Restored from version 1' })).toContainText(
    'the rule is active',
  );
  const restored = ok(
    await workspace.api.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: created.id } } }),
  ).data;
  expect(restored.status).toBe('Active');

  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('dialog', { name: 'Delete this rule?' })).toContainText(
    'Recently deleted page',
  );
});
