// What the screenshot scripts share: a fresh service on a temporary SQLite file (its first key, and a
// POST helper for the API), and a headless Chromium signed in to its console.
// Needs `npm run build` first and a Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';

/** Runs `use` with a signed-in console page and the API of a fresh service, then stops both. */
export async function withConsole(viewport, use) {
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
      const page = await browser.newPage({ viewport });
      const signIn = async () => {
        await page.goto(base);
        await page.getByLabel('API key', { exact: true }).fill(key);
        await page.getByRole('button', { name: 'Use key' }).click();
        await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
      };
      await use({ page, api, signIn });
    } finally {
      await browser.close();
    }
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
