// Headless Chromium from Debian's packages, for the tests that need a real browser. Absent, those
// tests skip with a message; under CI (which installs it) its absence fails them.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path) => path && existsSync(path),
);

if (!CHROMIUM) {
  if (process.env.CI)
    throw new Error('CI runs the browser tests: install chromium (apt-get install chromium)');
  console.warn('browser tests skipped: no Chromium (apt-get install chromium, or set CHROMIUM_PATH)');
}

/**
 * Loads `url` in a fresh headless profile and answers the DOM after the page ran (up to 5 s of its
 * own time) and what the page logged to its console.
 */
export async function loadPage(
  url: string,
  flags: string[] = [],
): Promise<{ dom: string; console: string[] }> {
  const profile = mkdtempSync(join(tmpdir(), 'rulekeeper-chromium-'));
  try {
    const { stdout, stderr } = await run(CHROMIUM as string, [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      `--user-data-dir=${profile}`,
      '--enable-logging=stderr',
      '--v=0',
      '--virtual-time-budget=5000',
      ...flags,
      '--dump-dom',
      url,
    ]);
    return { dom: stdout, console: stderr.split('\n').filter((line) => line.includes(':CONSOLE')) };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
