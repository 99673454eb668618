// `npm run build` (and so `npm start` and `npm install`): the OpenAPI document and the client's types,
// the service with its client and runtime, the console, then the browser extension. A step runs only
// when one of its inputs is newer than the stamp it left last time, so a start with nothing changed
// costs a directory walk instead of a full compile. `--force` runs every step.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireSupportedNode } from '../bin/supported-node.js';

requireSupportedNode('Building Rulekeeper');

const force = process.argv.includes('--force');
const node = (...args) => execFileSync(process.execPath, args, { stdio: 'inherit' });
const tsc = (project) => node('node_modules/typescript/bin/tsc', '-p', project);

// What every step depends on besides its own files: the dependencies and the compiler settings.
const COMMON = ['package-lock.json', 'tsconfig.json', 'scripts/build.mjs'];
const STEPS = [
  {
    // The document comes from the sources, so it follows every change to them.
    name: 'document',
    inputs: [...COMMON, 'scripts/build-client.mjs', 'src'],
    run: () => node('scripts/build-client.mjs'),
  },
  {
    // The service with the client it calls itself; then the declarations of the package's client,
    // runtime (checked without Node's types: it also runs in a browser service worker) and fixture.
    name: 'service',
    inputs: [
      ...COMMON,
      'tsconfig.build.json',
      'tsconfig.client.json',
      'tsconfig.runtime.json',
      'tsconfig.playwright.json',
      'src',
    ],
    run: () => {
      tsc('tsconfig.build.json');
      tsc('tsconfig.client.json');
      tsc('tsconfig.runtime.json');
      tsc('tsconfig.playwright.json');
      copyFileSync('src/client/schema.d.ts', 'dist/client/schema.d.ts');
    },
  },
  {
    name: 'console',
    inputs: [...COMMON, 'console', 'src/client', 'src/runtime'],
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
  {
    // It bundles the client, the engine and the runtime, so it follows their sources too.
    name: 'extension',
    inputs: [
      ...COMMON,
      'scripts/build-extension.mjs',
      'extension',
      'src/client',
      'src/engine',
      'src/model',
      'src/runtime',
    ],
    run: () => node('scripts/build-extension.mjs'),
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
