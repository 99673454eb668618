// Takes docs/images/editor-{redirect,response,script}.png: the rule editor's form for three rule types
// (a source as one sentence with a filter's chips, a JSON body in the code editor, a script's code).
// Needs `npm run build` first and a Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
// Usage: node scripts/screenshot-editor.mjs [directory]
import { join } from 'node:path';
import { withConsole } from './screenshot-service.mjs';

const directory = process.argv[2] ?? 'docs/images';
const url = (operator, value) => ({ key: 'Url', operator, value });

const RULES = [
  {
    file: 'editor-redirect.png',
    rule: {
      name: 'Send checkout to staging',
      ruleType: 'Redirect',
      status: 'Active',
      isFavourite: true,
      pairs: [
        {
          source: {
            ...url('Contains', 'shop.example.com/checkout'),
            filters: [{ requestMethod: ['GET', 'POST'], pageDomains: ['shop.example.com'] }],
          },
          destinationType: 'url',
          destination: 'https://staging.example.com/checkout',
        },
      ],
    },
  },
  {
    file: 'editor-response.png',
    rule: {
      name: 'Card declined',
      ruleType: 'Response',
      status: 'Inactive',
      pairs: [
        {
          source: url('Contains', 'api.example.com/payments/authorize'),
          type: 'static',
          value: JSON.stringify({ status: 'declined', code: 'card_declined', retry: false }, null, 2),
          statusCode: 402,
          serveWithoutRequest: true,
        },
      ],
    },
  },
  {
    file: 'editor-script.png',
    rule: {
      name: 'Show the debug panel',
      ruleType: 'Script',
      status: 'Inactive',
      pairs: [
        {
          source: url('Contains', 'shop.example.com'),
          scripts: [
            {
              type: 'code',
              codeType: 'js',
              loadTime: 'afterPageLoad',
              value:
                "// Opened on every page of the shop\nwindow.debug = true;\ndocument.body.classList.add('debug');",
            },
          ],
        },
      ],
    },
  },
];

await withConsole({ width: 1100, height: 900 }, async ({ page, api, signIn }) => {
  const made = [];
  for (const { rule } of RULES) made.push(await api('/rules', rule));
  await signIn();
  for (const [index, { file }] of RULES.entries()) {
    await page.goto(`${new URL(page.url()).origin}/#/rules/${encodeURIComponent(made[index].id)}`);
    const form = page.locator('main form').first();
    await form.getByLabel('Name', { exact: true }).waitFor();
    await page.waitForFunction(() => document.querySelector('input[name="/name"]')?.value !== '', undefined, {
      timeout: 10_000,
    });
    const path = join(directory, file);
    await form.screenshot({ path });
    console.log(`wrote ${path}`);
  }
});
