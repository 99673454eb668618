// What Chrome's rules cannot do, done by the extension's content scripts: Script rules inject into
// the pages they match, Response rules answer fetch and XHR with their body. Each acts on real page
// loads from a loopback upstream, is counted on the toolbar badge and is explained in the popup.
import { expect, ok, signIn, test } from './fixtures.js';

test('a Script rule injects its script and style into the pages it matches, and only those', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'mark the page',
        ruleType: 'Script',
        status: 'Active',
        pairs: [
          {
            source: { key: 'path', operator: 'Equals', value: '/scripted' },
            scripts: [
              {
                type: 'code',
                codeType: 'js',
                loadTime: 'beforePageLoad',
                value: 'window.markedBy = "rule"; document.documentElement.dataset.marked = "yes";',
              },
              {
                type: 'code',
                codeType: 'css',
                loadTime: 'afterPageLoad',
                value: 'h1 { color: rgb(255, 0, 0); }',
              },
            ],
          },
        ],
      },
    }),
  );
  await signIn(extension, service.process.url, workspace.readKey);

  const page = await extension.context.newPage();
  await page.goto(`${upstream.origin}/scripted`);
  await expect(page.locator('html')).toHaveAttribute('data-marked', 'yes');
  expect(await page.evaluate(() => (window as unknown as { markedBy?: string }).markedBy)).toBe('rule');
  await expect(page.getByRole('heading', { name: '/scripted' })).toHaveCSS('color', 'rgb(255, 0, 0)');

  const tabId = await extension.tabIdOf(page);
  await expect
    .poll(() => extension.worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId))
    .toBe('1');

  // Another path of the same site: untouched, and nothing counted.
  await page.goto(`${upstream.origin}/plain`);
  await expect(page.getByRole('heading', { name: '/plain' })).toBeVisible();
  expect(await page.locator('html').getAttribute('data-marked')).toBeNull();
  expect(await page.locator('[data-rulekeeper-rule]').count()).toBe(0);
  await expect
    .poll(() => extension.worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId))
    .toBe('');
});

test('a Script rule runs under a page policy forbidding scripts: its browser rule removes the policy, unless removeCSPHeader is false', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  const script = (path: string, removeCSPHeader: boolean) => ({
    name: `mark ${path}`,
    ruleType: 'Script' as const,
    status: 'Active' as const,
    removeCSPHeader,
    pairs: [
      {
        source: { key: 'path' as const, operator: 'Equals' as const, value: path },
        scripts: [
          {
            type: 'code' as const,
            codeType: 'js' as const,
            loadTime: 'beforePageLoad' as const,
            value: 'document.documentElement.dataset.marked = "yes";',
          },
        ],
      },
    ],
  });
  ok(await workspace.api.POST('/v1/rules', { body: script('/strict-removed', true) }));
  ok(await workspace.api.POST('/v1/rules', { body: script('/strict-kept', false) }));
  const options = await signIn(extension, service.process.url, workspace.readKey);
  // The removal is one of Chrome's rules: installed before the page loads.
  await expect(options.getByRole('status')).toHaveText(/; 1 browser rules installed\.$/);

  const page = await extension.context.newPage();
  // (Playwright shows the headers as the network sent them, before Chrome's rules: the script running is
  // what says the policy went.)
  await page.goto(`${upstream.origin}/strict-removed`);
  await expect(page.locator('html')).toHaveAttribute('data-marked', 'yes');

  // The policy stays, and stops the rule's script as it would the page's own.
  const kept = await page.goto(`${upstream.origin}/strict-kept`);
  await expect(page.getByRole('heading', { name: '/strict-kept' })).toBeVisible();
  expect(await kept?.headerValue('content-security-policy')).toBe("script-src 'none'");
  expect(await page.locator('html').getAttribute('data-marked')).toBeNull();
});

test('a Response rule answers fetch and XHR with its body, with and without the request', async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  const response = (path: string, serveWithoutRequest: boolean) => ({
    source: { key: 'path' as const, operator: 'Equals' as const, value: path },
    type: 'static' as const,
    value: `{"from":"rule","path":"${path}"}`,
    statusCode: 201,
    serveWithoutRequest,
  });
  const rule = ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'mock the API',
        ruleType: 'Response',
        status: 'Active',
        pairs: [response('/api/mocked', true), response('/api/replaced', false)],
      },
    }),
  ).data;
  await signIn(extension, service.process.url, workspace.readKey);
  const page = await extension.context.newPage();
  await page.goto(`${upstream.origin}/app`);

  const viaFetch = (path: string) =>
    page.evaluate(async (url) => {
      const answer = await fetch(url);
      return { status: answer.status, body: await answer.text() };
    }, path);
  const viaXhr = (path: string, responseType: XMLHttpRequestResponseType) =>
    page.evaluate(
      ([url, type]) =>
        new Promise<{ status: number; body: unknown }>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', url as string);
          xhr.responseType = type as XMLHttpRequestResponseType;
          xhr.onload = () => resolve({ status: xhr.status, body: xhr.response });
          xhr.send();
        }),
      [path, responseType],
    );

  expect(await viaFetch('/api/mocked')).toEqual({
    status: 201,
    body: '{"from":"rule","path":"/api/mocked"}',
  });
  expect(await viaXhr('/api/mocked', 'json')).toEqual({
    status: 201,
    body: { from: 'rule', path: '/api/mocked' },
  });
  // Served without a request: the upstream never saw one.
  expect(upstream.arrived.filter((request) => request.url === '/api/mocked')).toEqual([]);

  expect(await viaFetch('/api/replaced')).toEqual({
    status: 201,
    body: '{"from":"rule","path":"/api/replaced"}',
  });
  expect(await viaXhr('/api/replaced', '')).toEqual({
    status: 201,
    body: '{"from":"rule","path":"/api/replaced"}',
  });
  // Made, then replaced: the upstream saw both requests.
  expect(upstream.arrived.filter((request) => request.url === '/api/replaced')).toHaveLength(2);

  // A path no pair names goes out untouched.
  expect(await viaFetch('/api/other')).toEqual({ status: 200, body: '{"from":"upstream"}' });

  const tabId = await extension.tabIdOf(page);
  await expect
    .poll(() => extension.worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId))
    .toBe('1');

  // The popup lists the rule with the trace's explanation of the request it acted on.
  const popup = await extension.open(`popup.html?tab=${tabId}`);
  const item = popup.getByRole('listitem').filter({ hasText: 'mock the API' });
  await expect(item).toContainText(`GET ${upstream.origin}/api/mocked`);
  await expect(item).toContainText('acted');
  await expect(item).toContainText('path "/api/mocked" equals "/api/mocked"');
  expect(rule.ruleType).toBe('Response');
});
