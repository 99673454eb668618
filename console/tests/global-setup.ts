// Builds the service and the console once before the browser tests, so they run current code.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHROMIUM } from '../../test/helpers/chromium.js';

export default function setup(): void {
  if (!CHROMIUM) return; // every test skips, saying why
  execFileSync('npm', ['run', 'build', '--silent'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
