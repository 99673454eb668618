// The console's build: `npm run build` runs it after the service and its OpenAPI document
// (dist/openapi.json) are built, writing dist/console, which the service serves at `/`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const DOCUMENT = fileURLToPath(new URL('../dist/openapi.json', import.meta.url));

/**
 * `virtual:pair-schemas`: the pair schema of each rule type, taken from the OpenAPI document the
 * service serves, so the forms follow the service (the whole document is 800 kB; these are 100).
 */
function pairSchemas(): Plugin {
  const id = 'virtual:pair-schemas';
  return {
    name: 'rulekeeper-pair-schemas',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load(resolved) {
      if (resolved !== `\0${id}`) return undefined;
      this.addWatchFile(DOCUMENT);
      const { components } = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
      const pairs = Object.fromEntries(
        Object.entries(components.schemas).filter(([name]) => name.endsWith('PairInput')),
      );
      return `export default ${JSON.stringify(pairs)};`;
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [pairSchemas()],
  // Preact's JSX with the automatic runtime: no Babel plugin needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // The polyfill would be an inline script, which the console's Content-Security-Policy refuses.
    modulePreload: { polyfill: false },
    // Every asset a file of its own: data: URLs for scripts or fonts would be refused by the CSP too.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
  // `npx vite console` while `npm start` runs: the page reloads on every edit, the API is proxied.
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
