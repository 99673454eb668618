// The rules Chrome applies itself: the workspace's rules compiled by GET /v1/browser-rules and
// installed as dynamic rules, each type acting on real page loads from a loopback upstream, counted on
// the badge and explained in the popup; and a change made through the API acting within 2 s.
import { badgeOf, expect, ok, signIn, test } from './fixtures.js';

test('each rule type that Chrome can apply acts on real page loads', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  const origin = upstream.origin;
  const path = (value: string) => ({ key: 'path' as const, operator: 'Equals' as const, value });
  const rules = [
    {
      name: 'move the old page',
      ruleType: 'Redirect' as const,
      pairs: [{ source: path('/old'), destinationType: 'url' as const, destination: `${origin}/new` }],
    },
    { name: 'block trackers', ruleType: 'Cancel' as const, pairs: [{ source: path('/tracker') }] },
    {
      name: 'v1 to v2',
      ruleType: 'Replace' as const,
      // Chrome's rule has one URL condition: the source must follow from `from` being in the URL.
      pairs: [
        {
          source: { key: 'Url' as const, operator: 'Contains' as const, value: 'api/v1' },
          from: 'api/v1',
          to: 'api/v2',
        },
      ],
    },
    {
      name: 'debug on',
      ruleType: 'QueryParam' as const,
      pairs: [
        {
          source: path('/echo/query'),
          modifications: [{ param: 'debug', type: 'Add' as const, value: '1' }],
        },
      ],
    },
    {
      name: 'tag requests',
      ruleType: 'Headers' as const,
      pairs: [
        {
          source: path('/echo/headers'),
          modifications: [
            {
              // A request header added, the commonest Headers rule: written as Chrome's set (partial:
              // a value the request already had would be replaced, where the engine adds one).
              Request: [
                { header: 'Accept', type: 'Remove' as const },
                { header: 'X-Added-By-Rule', type: 'Add' as const, value: 'yes' },
              ],
              Response: [{ header: 'X-From-Rule', type: 'Add' as const, value: 'yes' }],
            },
          ],
        },
      ],
    },
    {
      name: 'be a bot',
      ruleType: 'UserAgent' as const,
      pairs: [{ source: path('/echo/agent'), userAgent: 'RulekeeperBot/1.0' }],
    },
  ];
  for (const rule of rules)
    ok(await workspace.api.POST('/v1/rules', { body: { ...rule, status: 'Active' } as never }));
  // What Chrome's rules cannot do at all: reported, never silently dropped.
  const delay = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'slow',
        ruleType: 'Delay',
        status: 'Active',
        pairs: [{ source: path('/slow'), delay: 500 }],
      },
    }),
  ).data;
  const options = await signIn(extension, service.process.url, workspace.readKey);
  // The options page says how many of Chrome's rules were installed, once they were.
  await expect(options.getByRole('status')).toHaveText(/; [1-9]\d* browser rules installed\.$/);
  await expect(options.getByRole('listitem').filter({ hasText: delay.id })).toContainText('not applied');
  const page = await extension.context.newPage();
  const echoed = async () =>
    JSON.parse((await page.locator('body').textContent()) ?? '{}') as {
      url: string;
      headers: Record<string, string>;
    };

  await test.step('Redirect', async () => {
    await page.goto(`${origin}/old`);
    expect(page.url()).toBe(`${origin}/new`);
    await expect(page.getByRole('heading', { name: '/new' })).toBeVisible();
    expect(upstream.arrived.map((request) => request.url)).not.toContain('/old');
  });

  await test.step('the badge counts it, and the popup explains it with the trace', async () => {
    await expect.poll(() => badgeOf(extension, page)).toBe('1');
    const popup = await extension.open(`popup.html?tab=${await extension.tabIdOf(page)}`);
    const item = popup.getByRole('listitem').filter({ hasText: 'move the old page' });
    await expect(item).toContainText(`GET ${origin}/old`);
    await expect(item).toContainText('acted');
    await expect(item).toContainText('path "/old" equals "/old"');
    await popup.close();
  });

  await test.step('Cancel', async () => {
    // A page of its own: the refused load leaves Chrome's error page behind.
    const blocked = await extension.context.newPage();
    await expect(blocked.goto(`${origin}/tracker`)).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    expect(upstream.arrived.map((request) => request.url)).not.toContain('/tracker');
    await blocked.close();
  });

  await test.step('Replace', async () => {
    await page.goto(`${origin}/api/v1/users`);
    expect(page.url()).toBe(`${origin}/api/v2/users`);
  });

  await test.step('QueryParam', async () => {
    await page.goto(`${origin}/echo/query`);
    expect((await echoed()).url).toBe('/echo/query?debug=1');
  });

  await test.step('Headers, on the request and on the response', async () => {
    await page.goto(`${origin}/echo/headers`);
    expect((await echoed()).headers.accept).toBeUndefined();
    // The header the rule adds arrives at the upstream, on a real page load.
    expect((await echoed()).headers['x-added-by-rule']).toBe('yes');
    // The response header as the page reads it (DevTools, and so Playwright, report what the server sent).
    const seen = await page.evaluate(async () => (await fetch('/echo/headers')).headers.get('x-from-rule'));
    expect(seen).toBe('yes');
  });

  await test.step('UserAgent', async () => {
    await page.goto(`${origin}/echo/agent`);
    expect((await echoed()).headers['user-agent']).toBe('RulekeeperBot/1.0');
  });

  await test.step('a path no rule names is left alone', async () => {
    await page.goto(`${origin}/echo/plain`);
    const { url, headers } = await echoed();
    expect(url).toBe('/echo/plain');
    expect(headers.accept).toBeDefined();
    expect(headers['x-added-by-rule']).toBeUndefined();
    expect(headers['user-agent']).not.toBe('RulekeeperBot/1.0');
    await expect.poll(() => badgeOf(extension, page)).toBe('');
  });
});

test('a change made through the API acts on the next page load within 2 s', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  await signIn(extension, service.process.url, workspace.readKey);
  const page = await extension.context.newPage();
  const landing = async () => {
    await page.goto(`${upstream.origin}/old`);
    return new URL(page.url()).pathname;
  };
  expect(await landing()).toBe('/old');

  const created = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'move the old page',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'path', operator: 'Equals', value: '/old' },
            destinationType: 'url',
            destination: `${upstream.origin}/new`,
          },
        ],
      },
    }),
  ).data;
  // Polled from the API's answer on, with the 2 s deadline the extension promises.
  await expect.poll(landing, { timeout: 2_000, intervals: [50] }).toBe('/new');

  ok(
    await workspace.api.PUT('/v1/rules/{ruleId}', {
      params: { path: { ruleId: created.id } },
      body: { status: 'Inactive' },
    }),
  );
  await expect.poll(landing, { timeout: 2_000, intervals: [50] }).toBe('/old');
});
