// `rulekeeper test FILE --browser`: the cases run in real pages of a headless Chromium through
// rulekeeper/playwright's runRuleTests. Playwright is the project's, not ours: it is found from the
// directory the command runs in (as the project's own tests would find it), and its absence is said.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserType } from '@playwright/test';
import { runRuleTests } from '../playwright/rule-tests.js';
import { type RuleTestCase, RuleTestFileError } from '../rule-tests/rule-test-file.js';

const MISSING =
  '--browser needs Playwright in this project: npm install --save-dev @playwright/test ' +
  '(and a Chromium: npx playwright install chromium, or --chromium PATH)';

async function findChromium(): Promise<BrowserType> {
  let resolved: string;
  try {
    resolved = createRequire(join(process.cwd(), 'package.json')).resolve('@playwright/test');
  } catch {
    throw new RuleTestFileError(MISSING);
  }
  const playwright = (await import(pathToFileURL(resolved).href)) as {
    chromium?: BrowserType;
    default?: { chromium?: BrowserType };
  };
  const chromium = playwright.chromium ?? playwright.default?.chromium;
  if (!chromium) throw new RuleTestFileError(MISSING);
  return chromium;
}

/** Runs the cases (of a file, or as given) in a fresh headless Chromium; true when none failed. */
export async function runFileInBrowser(
  source: { file: string } | { cases: RuleTestCase[] },
  server: string,
  key: string,
  executablePath: string | undefined,
  out: (line: string) => void,
  /** The environment the rules act in; none: the key's, else default. */
  environment?: string,
): Promise<boolean> {
  const chromium = await findChromium();
  const browser = await chromium
    .launch({
      ...(executablePath ? { executablePath } : {}),
      // Chromium refuses its sandbox to root (as in most CI containers).
      ...(process.getuid?.() === 0 ? { args: ['--no-sandbox'] } : {}),
    })
    .catch((error: Error) => {
      throw new RuleTestFileError(`--browser could not start Chromium: ${error.message.split('\n')[0]}`);
    });
  try {
    const context = await browser.newContext();
    const report = await runRuleTests(context, {
      server,
      key,
      ...source,
      out,
      ...(environment === undefined ? {} : { environment }),
    });
    return report.failed === 0;
  } finally {
    await browser.close();
  }
}
