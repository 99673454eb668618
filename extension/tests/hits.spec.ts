// Hits from the browser: the rules Chrome applied (its debug events, unpacked) and those the content
// scripts applied (Script) are told to the server as `extension` hits, counts only; the options page
// turns it off. Batches go every 200 ms here (a test setting) instead of 10 s.
import type { Page } from '@playwright/test';
import { badgeOf, expect, ok, signIn, test } from './fixtures.js';

test('the rules that acted on page loads show in their hits as the extension’s; the option stops it', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  await extension.worker.evaluate(() => chrome.storage.local.set({ hitsIntervalMs: 200 }));
  const create = async (body: Record<string, unknown>) =>
    ok(await workspace.api.POST('/v1/rules', { body: { status: 'Active', ...body } as never })).data.id;
  const redirect = await create({
    name: 'move the old page',
    ruleType: 'Redirect',
    pairs: [
      {
        source: { key: 'path', operator: 'Equals', value: '/old' },
        destinationType: 'url',
        destination: `${upstream.origin}/new`,
      },
    ],
  });
  const script = await create({
    name: 'mark the page',
    ruleType: 'Script',
    pairs: [
      {
        source: { key: 'path', operator: 'Equals', value: '/scripted' },
        scripts: [{ type: 'code', codeType: 'js', loadTime: 'beforePageLoad', value: 'window.marked = 1;' }],
      },
    ],
  });
  const later = await create({
    name: 'block a tracker',
    ruleType: 'Cancel',
    pairs: [{ source: { key: 'path', operator: 'Equals', value: '/tracker.js' } }],
  });
  const options = await signIn(extension, service.process.url, workspace.readKey);
  const hitsOf = async (ruleId: string) =>
    ok(await workspace.api.GET('/v1/rules/{ruleId}/hits', { params: { path: { ruleId } } })).data;

  const page = await extension.context.newPage();
  const load = async (target: Page, path: string) => {
    await target.goto(`${upstream.origin}${path}`);
    return new URL(target.url()).pathname;
  };
  // The rules act as soon as Chrome has them installed (within 2 s of signing in).
  await expect.poll(() => load(page, '/old'), { timeout: 5_000 }).toBe('/new');
  await load(page, '/scripted');
  await expect.poll(() => page.evaluate(() => (window as { marked?: number }).marked)).toBe(1);

  await expect
    .poll(async () => (await hitsOf(redirect)).sources, { timeout: 10_000 })
    .toEqual([expect.objectContaining({ source: 'extension' })]);
  await expect.poll(async () => (await hitsOf(script)).total7Days, { timeout: 10_000 }).toBe(1);
  const redirects = (await hitsOf(redirect)).total7Days;
  expect(redirects).toBeGreaterThanOrEqual(1);

  // Turned off on the options page: a redirect now goes unreported. Turned on again, the next rule's
  // hit arrives: had the redirect been reported meanwhile, it would have come before it.
  await options.getByLabel('Tell the server which rules acted').uncheck();
  const unreported = await extension.context.newPage();
  await expect.poll(() => load(unreported, '/old')).toBe('/new');
  // The badge counts the redirect once the worker has handled Chrome's event, where hits are counted.
  await expect.poll(() => badgeOf(extension, unreported)).toBe('1');
  await options.getByLabel('Tell the server which rules acted').check();
  await expect
    .poll(async () => {
      await page.evaluate((url) => fetch(url).catch(() => 'blocked'), `${upstream.origin}/tracker.js`);
      return (await hitsOf(later)).total7Days;
    })
    .toBeGreaterThanOrEqual(1);
  expect((await hitsOf(redirect)).total7Days).toBe(redirects);
  expect(await options.getByLabel('Tell the server which rules acted').isChecked()).toBe(true);
});
