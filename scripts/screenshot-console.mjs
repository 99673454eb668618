// Takes docs/images/console.png: the console's rule list on a fresh service with a few realistic rules.
// Needs `npm run build` first and a Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
// Usage: node scripts/screenshot-console.mjs [output.png]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';

const output = process.argv[2] ?? 'docs/images/console.png';
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-screenshot-'));
const server = spawn(process.execPath, ['bin/rulekeeper.js', 'serve'], {
  env: {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: `sqlite:${join(dir, 'rk.db')}`,
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;

try {
  const key = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const found = out.match(/\b(rk_[A-Za-z0-9_-]{43})\b/);
      if (found) resolve(found[1]);
    });
    server.on('exit', (code) => reject(new Error(`the service exited (${code}) before printing its key`)));
  });
  const api = async (path, body) => {
    const answer = await fetch(`${base}/v1${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()).data;
  };
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

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(base);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
    await page.getByText('Use API v2 beta').waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: output });
    console.log(`wrote ${output}`);
  } finally {
    await browser.close();
  }
} finally {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
