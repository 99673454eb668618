import { expect, signIn, test } from './fixtures.js';

test('the console follows the system into dark mode, every surface with it', async ({ page, workspace }) => {
  await signIn(page, workspace.key);
  const colours = () =>
    page.evaluate(() => {
      const of = (selector: string) => getComputedStyle(document.querySelector(selector) as Element);
      return {
        page: of('html').backgroundColor,
        text: of('html').color,
        header: of('header.top').backgroundColor,
        search: of('#filter-search').backgroundColor,
      };
    });
  const light = await colours();
  expect(light.page).toBe('rgb(244, 246, 248)');
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await colours();
  // Dark surfaces under light text; nothing keeps its light colour.
  expect(dark).toEqual({
    page: 'rgb(19, 23, 27)',
    text: 'rgb(230, 233, 237)',
    header: 'rgb(28, 33, 39)',
    search: 'rgb(28, 33, 39)',
  });
  await page.screenshot({ path: test.info().outputPath('rules-dark.png'), fullPage: true });
});

test('keyboard shortcuts: / searches, n starts a rule, ? lists them; typed into a field they are text', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.keyboard.press('/');
  const search = page.getByRole('searchbox');
  await expect(search).toBeFocused();
  await page.keyboard.type('n/?');
  await expect(search).toHaveValue('n/?');
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await search.blur();
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { name: 'New rule', level: 1 })).toBeVisible();
  // In the editor's fields, n is a letter of the name.
  await page.getByLabel('Name', { exact: true }).fill('');
  await page.getByLabel('Name', { exact: true }).press('n');
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('n');

  // From another screen, / brings the rules list with its search ready.
  await page.getByRole('link', { name: 'Groups' }).click();
  await expect(page.getByRole('heading', { name: 'Groups', level: 1 })).toBeVisible();
  await page.keyboard.press('/');
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await expect(page.getByRole('searchbox')).toBeFocused();

  await page.getByRole('searchbox').blur();
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('term')).toHaveText(['/', 'n', '?']);
  // While it is open, n does nothing behind it.
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Shortcuts' }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});

test('names in Chinese, Japanese or Korean have CJK faces to fall back on before the generic family', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  const stack = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
  const families = stack.split(',').map((family) => family.trim().replaceAll('"', ''));
  const generic = families.indexOf('sans-serif');
  expect(generic).toBe(families.length - 1);
  for (const face of [
    'Hiragino Sans',
    'PingFang SC',
    'Microsoft YaHei',
    'Malgun Gothic',
    'Noto Sans CJK JP',
  ]) {
    expect(families.indexOf(face), face).toBeGreaterThan(-1);
    expect(families.indexOf(face), face).toBeLessThan(generic);
  }
});
