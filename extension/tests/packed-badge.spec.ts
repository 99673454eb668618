// The toolbar badge and the popup of a packed install (from a store or an admin console), where Chrome
// gives no onRuleMatchedDebug events: the rules Chrome applied are read with getMatchedRules when a
// page's load ends and when the popup opens, and counted per tab as the unpacked extension counts them.
import { badgeOf, expect, ok, signIn, test } from './fixtures.js';

test.use({ installed: 'packed' });

test('a packed install counts the rules Chrome applied on the tab, and the popup lists them', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  const origin = upstream.origin;
  const path = (value: string) => ({ key: 'path' as const, operator: 'Equals' as const, value });
  for (const rule of [
    {
      name: 'move the old page',
      ruleType: 'Redirect' as const,
      pairs: [{ source: path('/old'), destinationType: 'url' as const, destination: `${origin}/new` }],
    },
    { name: 'block trackers', ruleType: 'Cancel' as const, pairs: [{ source: path('/tracker') }] },
  ])
    ok(await workspace.api.POST('/v1/rules', { body: { ...rule, status: 'Active' } as never }));
  const options = await signIn(extension, service.process.url, workspace.readKey);
  await expect(options.getByRole('status')).toHaveText(/; [1-9]\d* browser rules installed\.$/);
  const page = await extension.context.newPage();

  await test.step("the page's load ends: the Redirect that acted on it is counted", async () => {
    await page.goto(`${origin}/old`);
    expect(page.url()).toBe(`${origin}/new`);
    await expect.poll(() => badgeOf(extension, page)).toBe('1');
  });

  await test.step('a request of the page blocked after its load: counted when the popup opens', async () => {
    const blocked = await page.evaluate(async () => {
      try {
        await fetch('/tracker');
        return false;
      } catch {
        return true;
      }
    });
    expect(blocked).toBe(true);
    const popup = await extension.open(`popup.html?tab=${await extension.tabIdOf(page)}`);
    // Chrome names the rule, not the request: the popup says so instead of a trace.
    for (const name of ['move the old page', 'block trackers'])
      await expect(popup.getByRole('listitem').filter({ hasText: name })).toContainText(
        'acted on a request of this page (Chrome does not say which)',
      );
    await expect.poll(() => badgeOf(extension, page)).toBe('2');
    await popup.close();
  });

  await test.step('a page no rule acts on: nothing counted, nothing carried over', async () => {
    await page.goto(`${origin}/plain`);
    await expect.poll(() => badgeOf(extension, page)).toBe('');
    const popup = await extension.open(`popup.html?tab=${await extension.tabIdOf(page)}`);
    await expect(popup.getByText('None yet.')).toBeVisible();
    await popup.close();
  });
});
