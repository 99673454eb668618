// Environments and variables in the console: the table (variables down, environments across) written
// and read, a secret never back in the page, refusals at their cells, a reader with no control that
// writes; the header's switcher that Try it and the lint follow; and `{{` completion in rule fields.
import type { Page } from '@playwright/test';
import { seriousViolations } from './axe.js';
import { expect, ok, signIn, test, type Workspace } from './fixtures.js';
import { expectReadsOnPhone } from './phone.js';

const LOCAL = 'http://localhost:3000';
const STAGING = 'https://staging.example.com';

/** The guide's example: `dev` and `staging`, and `API` pointing at each. */
async function arrangeApi(workspace: Workspace) {
  for (const name of ['dev', 'staging']) ok(await workspace.api.POST('/v1/environments', { body: { name } }));
  ok(
    await workspace.api.POST('/v1/variables', {
      body: {
        name: 'API',
        description: 'Where the shop talks to',
        secret: false,
        values: { dev: LOCAL, staging: STAGING },
      },
    }),
  );
}

/** What the page last said (the header's live state is a status too). */
const said = (page: Page) => page.getByRole('main').getByRole('status');
const table = (page: Page) => page.getByRole('table', { name: /Variables down, environments across/ });

test('environments and variables are added, edited and deleted in the table', async ({ page, workspace }) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Environments' }).click();
  await expect(page.getByRole('heading', { name: 'Environments', level: 1 })).toBeVisible();
  await expect(page.getByText('No variables yet.')).toBeVisible();

  for (const name of ['dev', 'staging']) {
    await page.getByLabel('New environment').fill(name);
    await page.getByRole('button', { name: 'Add environment' }).click();
    await expect(said(page)).toContainText(`The environment ${name} is added.`);
  }
  // A name the API does not take: said under the box, nothing added.
  await page.getByLabel('New environment').fill('no spaces');
  await page.getByRole('button', { name: 'Add environment' }).click();
  await expect(page.getByLabel('New environment')).toHaveAttribute('aria-invalid', 'true');
  expect(ok(await workspace.api.GET('/v1/environments', {})).data.map((e) => e.name)).toEqual([
    'default',
    'dev',
    'staging',
  ]);

  await page.getByRole('button', { name: 'Add a variable' }).click();
  await page.getByLabel('Name', { exact: true }).fill('API');
  await page.getByLabel('Description').fill('Where the shop talks to');
  await page.getByLabel('API in dev').fill(LOCAL);
  await page.getByLabel('API in staging').fill(STAGING);
  await page.getByLabel('API in staging').press('Enter');
  await expect(said(page)).toContainText('The variable API is added.');
  const row = table(page).getByRole('row', { name: /^API/ });
  await expect(row.getByRole('cell')).toHaveText(['not set', LOCAL, STAGING, /Edit/]);
  await expect(table(page).getByRole('columnheader')).toHaveText([
    'Variable',
    'default',
    /^dev/,
    /^staging/,
    'Actions',
  ]);
  expect(await seriousViolations(page), 'the table').toEqual([]);

  // Edited in its row: the staging value changed, the dev one emptied (no value there now).
  await page.getByRole('button', { name: 'Edit API' }).click();
  await page.getByLabel('API in dev').fill('');
  await page.getByLabel('API in staging').fill('https://staging2.example.com');
  await page.getByRole('button', { name: 'Save API' }).click();
  await expect(said(page)).toContainText('The variable API is saved.');
  await expect(row.getByRole('cell')).toHaveText([
    'not set',
    'not set',
    'https://staging2.example.com',
    /Edit/,
  ]);
  const stored = ok(await workspace.api.GET('/v1/variables/{name}', { params: { path: { name: 'API' } } }));
  expect(stored.data.values).toEqual({ staging: 'https://staging2.example.com' });

  // A refusal is said at the cell it points at.
  await page.getByRole('button', { name: 'Edit API' }).click();
  await page.getByLabel('API in dev').fill('x'.repeat(9000));
  await page.getByRole('button', { name: 'Save API' }).click();
  await expect(page.getByLabel('API in dev')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('API in staging')).not.toHaveAttribute('aria-invalid', 'true');
  expect(await seriousViolations(page), 'a refused row').toEqual([]);
  await page.getByRole('button', { name: 'Cancel' }).click();

  // On a phone the table is cards, and each environment's Delete is still there to see and press.
  await page.setViewportSize({ width: 390, height: 844 });
  await expectReadsOnPhone(table(page), 'the variables at 390 px');
  const deleteStaging = page.getByRole('button', { name: 'Delete the environment staging' });
  await deleteStaging.scrollIntoViewIfNeeded();
  await expect(deleteStaging).toBeInViewport();

  // Deleting an environment takes its values from every variable.
  await page.getByRole('button', { name: 'Delete the environment staging' }).click();
  await expect(page.getByRole('dialog')).toContainText('The value one variable has in it goes.');
  await page.getByRole('button', { name: 'Delete environment' }).click();
  await expect(said(page)).toContainText('The environment staging is deleted');
  await expect(table(page).getByRole('columnheader')).toHaveText(['Variable', 'default', /^dev/, 'Actions']);
  // `default` is never offered for deletion.
  await expect(page.getByRole('button', { name: 'Delete the environment default' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Delete API' }).click();
  await page.getByRole('button', { name: 'Delete variable' }).click();
  await expect(page.getByText('No variables yet.')).toBeVisible();
  expect(ok(await workspace.api.GET('/v1/variables', {})).data).toEqual([]);
});

test('a secret is written but never shown: •••• in the table, nowhere in the page once saved', async ({
  page,
  workspace,
}) => {
  const VALUE = 'tok-3f9a1c-never-shown';
  ok(await workspace.api.POST('/v1/environments', { body: { name: 'staging' } }));
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Environments' }).click();
  await page.getByRole('button', { name: 'Add a variable' }).click();
  await page.getByLabel('Name', { exact: true }).fill('TOKEN');
  await page.getByLabel('Secret').check();
  // Typed into a password box: not shown while typed either.
  await expect(page.getByLabel('TOKEN in staging')).toHaveAttribute('type', 'password');
  await page.getByLabel('TOKEN in staging').fill(VALUE);
  await page.getByRole('button', { name: 'Add variable' }).click();
  await expect(said(page)).toContainText('The variable TOKEN is added.');
  const row = table(page).getByRole('row', { name: /^TOKEN/ });
  await expect(row.getByRole('cell').nth(1)).toHaveText('••••secret, set');
  await expect(row.getByRole('cell').nth(0)).toHaveText('not set');
  expect(await page.content()).not.toContain(VALUE);

  // Edited: its boxes start empty, and left empty the value is kept.
  await page.getByRole('button', { name: 'Edit TOKEN' }).click();
  await expect(page.getByLabel('TOKEN in staging')).toHaveValue('');
  await page.getByLabel('Description').fill('The staging token');
  await page.getByRole('button', { name: 'Save TOKEN' }).click();
  await expect(said(page)).toContainText('The variable TOKEN is saved.');
  const listed = ok(await workspace.api.GET('/v1/variables', {})).data[0];
  expect(listed?.description).toBe('The staging token');
  expect(listed?.values).toEqual({ staging: null });

  // Read again from the start: still nowhere in the page.
  await page.reload();
  await expect(table(page).getByRole('row', { name: /^TOKEN/ })).toBeVisible();
  expect(await page.content()).not.toContain(VALUE);
  expect(await seriousViolations(page), 'a secret').toEqual([]);
});

test('a reader sees the table with no control that writes, in the environment of its key', async ({
  page,
  workspace,
}) => {
  await arrangeApi(workspace);
  const reader = ok(
    await workspace.api.POST('/v1/keys', { body: { name: 'reader', scope: 'read', environment: 'staging' } }),
  ).data;
  await signIn(page, reader.key);
  // A key bound to an environment starts the console in it, as the service would choose.
  await expect(page.getByRole('combobox', { name: 'Environment' })).toHaveValue('staging');
  await page.getByRole('link', { name: 'Environments' }).click();
  await expect(page.getByRole('note')).toHaveText(
    'You can view environments and variables; the key you signed in with is read-only.',
  );
  await expect(table(page).getByRole('row', { name: /^API/ }).getByRole('cell')).toHaveText([
    'not set',
    LOCAL,
    STAGING,
  ]);
  await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
  await expect(page.getByLabel('New environment')).toHaveCount(0);
  expect(await seriousViolations(page), 'environments as reader').toEqual([]);
});

test('the environment chosen at the top is the one Try it uses, kept for the workspace', async ({
  page,
  workspace,
}) => {
  await arrangeApi(workspace);
  ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'checkout to the API',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'shop.example.com/checkout' },
            destinationType: 'url',
            destination: '{{API}}/checkout',
          },
        ],
      },
    }),
  );
  await signIn(page, workspace.key);
  const environment = page.getByRole('combobox', { name: 'Environment' });
  await expect(environment).toHaveValue('default');
  await environment.selectOption('dev');
  await page.getByRole('link', { name: 'Try it' }).click();
  await expect(page.getByText('In the environment dev')).toBeVisible();
  await page.getByLabel('URL', { exact: true }).fill('https://shop.example.com/checkout');
  await page.getByRole('button', { name: 'Try it' }).click();
  const outcome = page.getByTestId('trace-outcome');
  await expect(outcome).toContainText(`→ ${LOCAL}/checkout`);

  await environment.selectOption('staging');
  await page.getByRole('button', { name: 'Try it' }).click();
  await expect(outcome).toContainText(`→ ${STAGING}/checkout`);

  // The trace says which value it took, and from which environment.
  await expect(page.getByRole('region', { name: 'Trace result' })).toContainText(
    `{{API}} took ${STAGING}, its value in staging`,
  );

  // Test this rule, in the editor, follows the same choice.
  await environment.selectOption('dev');
  await page.getByRole('link', { name: 'Rules', exact: true }).click();
  await page.getByRole('link', { name: 'checkout to the API' }).click();
  const tryRule = page.getByRole('region', { name: 'Test this rule' });
  await tryRule.getByLabel('URL', { exact: true }).fill('https://shop.example.com/checkout');
  await tryRule.getByRole('button', { name: 'Test this rule' }).click();
  await expect(tryRule.getByTestId('trace-outcome')).toContainText(`→ ${LOCAL}/checkout`);

  // Kept for this workspace: the console opened again starts in dev.
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Environment' })).toHaveValue('dev');
});

test('typing {{ in a rule field offers the variables, and a name of none is pointed out', async ({
  page,
  workspace,
}) => {
  await arrangeApi(workspace);
  ok(
    await workspace.api.POST('/v1/variables', {
      body: { name: 'API_KEY', secret: true, values: { staging: 'hidden' } },
    }),
  );
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'New rule' }).click();
  const destination = page.getByLabel('Destination', { exact: true });
  await destination.fill('');
  await destination.pressSequentially('{{');
  const offer = page.getByRole('listbox', { name: 'Variables' });
  await expect(offer.getByRole('option')).toHaveText([/^\{\{API\}\}/, /^\{\{API_KEY\}\}/]);
  // The secret's value is not shown in the offer either.
  await expect(offer.getByRole('option').nth(1)).not.toContainText('hidden');
  expect(await seriousViolations(page), 'the offer').toEqual([]);
  await destination.pressSequentially('AP');
  await destination.press('ArrowDown');
  await expect(offer.getByRole('option', { name: /API_KEY/ })).toHaveAttribute('aria-selected', 'true');
  await destination.press('ArrowUp');
  await destination.press('Enter');
  await expect(offer).toHaveCount(0);
  await expect(destination).toHaveValue('{{API}}');
  await destination.pressSequentially('/checkout?k={{APII}}');
  await expect(page.getByText('names no variable of this workspace')).toBeVisible();
  await expect(destination).toHaveAttribute('aria-describedby', /variable-notes/);
  // A rule's name is plain text: nothing offered there.
  await page.getByLabel('Name', { exact: true }).pressSequentially('{{');
  await expect(offer).toHaveCount(0);
});
