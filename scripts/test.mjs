// `npm test`: the vitest suites, then the console's and the extension's browser tests (each run even
// when another part failed, so one failure never hides whether the others pass), then one summary
// saying what ran, what failed and whether the browser tests were skipped, and why. Exits non-zero if
// any part failed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { requireSupportedNode } from '../bin/supported-node.js';

requireSupportedNode("Rulekeeper's test suite");

const run = (args) =>
  spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], env: process.env }).status;

const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path) => path && existsSync(path),
);

const vitest = run(['node_modules/vitest/vitest.mjs', 'run']);
const browser = run([
  'node_modules/@playwright/test/cli.js',
  'test',
  '--config',
  'console/playwright.config.ts',
]);
const extension = run([
  'node_modules/@playwright/test/cli.js',
  'test',
  '--config',
  'extension/playwright.config.ts',
]);

const verdict = (status) => (status === 0 ? 'passed' : `FAILED (exit ${status})`);
const lines = [
  '',
  '── npm test ──',
  `unit, api and system suites (vitest): ${verdict(vitest)}`,
  ...(chromium
    ? [
        `console browser tests (Playwright, ${chromium}): ${verdict(browser)}`,
        `extension browser tests (Playwright, ${chromium}): ${verdict(extension)}`,
      ]
    : [
        `browser tests (the console's, the extension's, and the proxy's in vitest): SKIPPED, no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)${browser === 0 && extension === 0 ? '' : `; console ${verdict(browser)}, extension ${verdict(extension)}`}`,
      ]),
];
if (!chromium && process.env.CI) lines.push('CI runs the browser tests: their absence fails the run.');
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(vitest === 0 && browser === 0 && extension === 0 ? 0 : 1);
