// Takes docs/images/console.png: the console's rule list on a fresh service with a few realistic rules.
// Needs `npm run build` first and a Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
// Usage: node scripts/screenshot-console.mjs [output.png]
import { withConsole } from './screenshot-service.mjs';

const output = process.argv[2] ?? 'docs/images/console.png';

await withConsole({ width: 1280, height: 800 }, async ({ page, api, signIn }) => {
  const url = (operator, value) => ({ key: 'Url', operator, value });

  const checkout = await api('/groups', { name: 'Checkout on staging' });
  const mocks = await api('/groups', { name: 'Payment API mocks', status: 'Inactive' });
  const rules = [
    {
      name: 'Send checkout to staging',
      ruleType: 'Redirect',
      status: 'Active',
      groupId: checkout.id,
      pairs: [
        {
          source: url('Contains', 'shop.example.com/checkout'),
          destinationType: 'url',
          destination: 'https://staging.example.com/checkout',
        },
      ],
    },
    {
      name: 'Debug header on the API',
      ruleType: 'Headers',
      status: 'Active',
      groupId: checkout.id,
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
          modifications: { Request: [{ header: 'X-Debug', type: 'Add', value: '1' }] },
        },
      ],
    },
    {
      name: 'Slow payment API',
      ruleType: 'Delay',
      status: 'Inactive',
      groupId: mocks.id,
      pairs: [{ source: url('Contains', 'api.example.com/payments'), delay: 3000 }],
    },
    {
      name: 'Card declined',
      ruleType: 'Response',
      status: 'Active',
      groupId: mocks.id,
      pairs: [
        {
          source: url('Contains', 'api.example.com/payments/authorize'),
          type: 'static',
          value: '{"status":"declined"}',
          statusCode: '402',
          serveWithoutRequest: true,
        },
      ],
    },
    {
      name: 'Block ads',
      ruleType: 'Cancel',
      status: 'Active',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
    },
    {
      name: 'Use API v2 beta',
      ruleType: 'Replace',
      status: 'Inactive',
      pairs: [{ source: url('Contains', '/api/v2/'), from: '/v([0-9])/', to: '/v$1-beta/' }],
    },
  ];
  for (const rule of rules) await api('/rules', rule);

  await signIn();
  await page.getByText('Use API v2 beta').waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: output });
  console.log(`wrote ${output}`);
});
