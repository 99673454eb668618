// The console's browser tests: Playwright's runner driving headless Chromium from Debian's packages
// (no browser download is possible here), against the real service on a temporary SQLite database.
// `npm test` runs them after the vitest suites; `npm run test:console` runs them alone.
import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../test/helpers/chromium.js';

export default defineConfig({
  testDir: './tests',
  outputDir: '../test-results/console',
  globalSetup: './tests/global-setup.ts',
  // One service per worker; each test signs in to a workspace of its own, so tests never see each
  // other's rules. Two cores: two workers.
  workers: 2,
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: CHROMIUM ? { executablePath: CHROMIUM, args: ['--no-sandbox'] } : {},
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
