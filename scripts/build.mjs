// `npm run build` (and so `npm start` and `npm install`): the service, its OpenAPI document and client,
// then the console. A step runs only when one of its inputs is newer than the stamp it left last time,
// so a start with nothing changed costs a directory walk instead of a full compile. `--force` runs all.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const force = process.argv.includes('--force');
const node = (...args) => execFileSync(process.execPath, args, { stdio: 'inherit' });
const tsc = (project) => node('node_modules/typescript/bin/tsc', '-p', project);

// What every step depends on besides its own files: the dependencies and the compiler settings.
const COMMON = ['package-lock.json', 'tsconfig.json', 'scripts/build.mjs'];
const STEPS = [
  {
    name: 'service',
    inputs: [...COMMON, 'tsconfig.build.json', 'src'],
    run: () => tsc('tsconfig.build.json'),
  },
  {
    // The document is the compiled service's, so this follows every change to it.
    name: 'client',
    inputs: [...COMMON, 'tsconfig.client.json', 'scripts/build-client.mjs', 'src'],
    run: () => node('scripts/build-client.mjs'),
  },
  {
    name: 'console',
    inputs: [...COMMON, 'console', 'src/client'],
    run: () => {
      tsc('console/tsconfig.json');
      node(
        'node_modules/vite/bin/vite.js',
        'build',
        '--config',
        'console/vite.config.ts',
        '--logLevel',
        'warn',
      );
    },
  },
];

// Written by the build itself (the client's generated types), so never a reason to build again.
const GENERATED = new Set([join('src', 'client', 'schema.d.ts')]);

/** The newest modification time under these paths; the console's browser tests are not its input. */
function newest(paths) {
  let latest = 0;
  const visit = (path) => {
    if (GENERATED.has(path) || !existsSync(path)) return;
    const stat = statSync(path);
    if (!stat.isDirectory()) {
      latest = Math.max(latest, stat.mtimeMs);
      return;
    }
    for (const entry of readdirSync(path)) {
      if (entry === 'node_modules' || entry === 'tests') continue;
      visit(join(path, entry));
    }
  };
  for (const path of paths) visit(path);
  return latest;
}

mkdirSync('dist', { recursive: true });
let built = false;
for (const step of STEPS) {
  const stamp = join('dist', `.built-${step.name}`);
  // Once one step ran, every later one runs too: each reads what the one before wrote.
  const stale = force || built || !existsSync(stamp) || newest(step.inputs) > statSync(stamp).mtimeMs;
  if (!stale) continue;
  step.run();
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  built = true;
}
if (!built) process.stdout.write('build: up to date\n');
