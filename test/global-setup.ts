// Builds what changed since the last build (scripts/build.mjs compares its inputs with its stamps)
// before the suites that start real processes, so that they run current code; after `npm install`,
// which builds everything, there is nothing to do.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
