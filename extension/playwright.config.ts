// The browser extension's tests: Debian's Chromium (no browser download is possible here) with the
// built extension loaded unpacked, in the new headless mode, against the real service on a temporary
// SQLite database and loopback upstreams. `npm test` runs them after the console's;
// `npm run test:extension` runs them alone.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './tests',
  outputDir: '../test-results/extension',
  globalSetup: '../console/tests/global-setup.ts',
  // Each test has its own browser profile and workspace; one service per worker. Two cores: two workers.
  workers: 2,
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
});
