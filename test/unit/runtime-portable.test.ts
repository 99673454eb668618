// rulekeeper/runtime runs in a browser service worker as well as in Node: everything it loads, the
// engine and the client included, imports no Node module and no package but the two that run
// anywhere. (tsconfig.runtime.json, part of the build, also compiles it without Node's types.) And
// its retries wait longer and longer, each by a random part, so that clients do not come back at once.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/runtime/backoff.js';

const ENTRY = resolve(import.meta.dirname, '../../src/runtime/index.ts');

/** Every file the entry loads at run time (type-only imports are erased), and the packages they name. */
function loaded(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/^(?:import|export) (?!type )[^;]*?from '([^']+)'/gms)) {
      if (!spec) continue;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the runtime', () => {
  const { files, packages } = loaded(ENTRY);

  it('loads the engine and the client', () => {
    expect([...files].some((f) => f.endsWith('src/engine/rule-set.ts'))).toBe(true);
    expect([...files].some((f) => f.endsWith('src/client/events.ts'))).toBe(true);
  });

  it('loads no Node module, and no package but openapi-fetch and re2js', () => {
    expect([...packages].sort()).toEqual(['openapi-fetch', 're2js']);
  });

  it('loads no schema compiler (a service worker forbids compiling code at run time)', () => {
    expect([...files].filter((f) => f.endsWith('src/validation.ts'))).toEqual([]);
  });

  it('waits between half and all of a delay that doubles up to its cap', () => {
    const backoff = { minMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 10].map((failures) => backoffDelay(backoff, failures, () => 0))).toEqual([
      50, 100, 200, 400, 500,
    ]);
    expect([0, 1, 2, 3, 10].map((failures) => backoffDelay(backoff, failures, () => 1))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });
});
