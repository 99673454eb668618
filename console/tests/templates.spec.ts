import { TEMPLATES } from '../src/templates/templates.js';
import { expect, ok, signIn, test } from './fixtures.js';

test('the template gallery fills the editor with each template, which is created as written', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'From a template' }).click();
  await expect(page.getByRole('heading', { name: 'Templates', level: 1 })).toBeVisible();
  const cards = page.locator('.template-card');
  await expect(cards).toHaveCount(TEMPLATES.length);
  expect(TEMPLATES.length).toBeGreaterThanOrEqual(10);
  await page.screenshot({ path: test.info().outputPath('templates.png'), fullPage: true });

  for (const template of TEMPLATES) {
    await page.goto('/#/templates');
    await page.getByRole('link', { name: template.title, exact: true }).click();
    await expect(page.getByRole('heading', { name: 'New rule', level: 1 })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: template.title })).toContainText(
      'Filled in from the template',
    );
    await expect(page.getByLabel('Name', { exact: true })).toHaveValue(template.rule.name);
    await expect(page.getByLabel('Rule type')).toHaveValue(template.rule.ruleType);
    await page.getByRole('button', { name: 'Create rule' }).click();
    await expect(page.getByRole('heading', { name: `Edit rule “${template.rule.name}”` })).toBeVisible();
  }

  const stored = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(stored).toHaveLength(TEMPLATES.length);
  for (const template of TEMPLATES) {
    const rule = stored.find((candidate) => candidate.name === template.rule.name);
    expect(rule, template.id).toMatchObject({
      ruleType: template.rule.ruleType,
      description: template.rule.description,
      status: 'Inactive',
      pairs: template.rule.pairs.map((pair) => expect.objectContaining(pair)),
    });
  }
});

test('a template is adjusted before it is created', async ({ page, workspace }) => {
  await signIn(page, workspace.key);
  await page.goto('/#/rules/new/slow-api');
  await page.getByLabel('Name', { exact: true }).fill('Slow staging API');
  await page.getByLabel('Delay').fill('1500');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('heading', { name: 'Edit rule “Slow staging API”' })).toBeVisible();
  const [rule] = ok(await workspace.api.GET('/v1/rules', {})).data;
  expect(rule).toMatchObject({ ruleType: 'Delay', pairs: [expect.objectContaining({ delay: 1500 })] });
});
