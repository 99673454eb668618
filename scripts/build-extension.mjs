// The browser extension: each of its scripts bundled into one classic script (a service worker and
// content scripts cannot load modules from node_modules), its pages and manifest copied, into
// dist/extension/ (what "Load unpacked" takes), and the same files zipped into
// dist/rulekeeper-extension.zip (what a store or an admin console takes).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'extension');
const ENTRIES = {
  background: 'extension/src/background.ts',
  options: 'extension/src/options.ts',
  popup: 'extension/src/popup.ts',
  bridge: 'extension/src/content/bridge.ts',
  'page-world': 'extension/src/content/page-world.ts',
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const [name, entry] of Object.entries(ENTRIES)) {
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    build: {
      outDir: out,
      emptyOutDir: false,
      target: 'chrome128',
      minify: false,
      sourcemap: false,
      lib: { entry: join(root, entry), formats: ['iife'], name: 'rulekeeper', fileName: () => `${name}.js` },
    },
  });
}
cpSync(join(root, 'extension/static'), out, { recursive: true });

const files = {};
const collect = (dir) => {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) collect(path);
    else files[relative(out, path)] = readFileSync(path);
  }
};
collect(out);
writeFileSync(join(root, 'dist', 'rulekeeper-extension.zip'), zipSync(files, { level: 9 }));
