// The house's arrows point down only: cli, proxy, plugins, modules → runtime, engine → model. Read
// from the import statements of every source file, so a new arrow upwards fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import of every file, as paths under src/ without their ending. */
const edges = sourceFiles(SRC).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:import|export)[^'";]*?from\s*'(\.[^']+)'/g)].map((m) => m[1]);
  const from = relative(SRC, file).replace(/\.tsx?$/, '');
  return specifiers.map((spec) => ({
    from,
    to: relative(SRC, resolve(dirname(file), spec as string)).replace(/\.js$/, ''),
  }));
});

const layer = (path: string) => path.split('/')[0] as string;

/** What each lower layer may not import. */
const FORBIDDEN: Record<string, string[]> = {
  model: ['engine', 'runtime', 'modules', 'db', 'plugins', 'proxy', 'cli', 'app', 'server'],
  engine: ['runtime', 'modules', 'db', 'plugins', 'proxy', 'cli', 'app', 'server'],
  runtime: ['modules', 'db', 'plugins', 'proxy', 'cli', 'app', 'server'],
};

describe('the import graph', () => {
  it('finds the imports it checks', () => {
    expect(edges.some((e) => e.from.startsWith('engine/') && e.to.startsWith('model/'))).toBe(true);
  });

  for (const [lower, above] of Object.entries(FORBIDDEN)) {
    it(`has no arrow from ${lower}/ up into ${above.join(', ')}`, () => {
      const upwards = edges.filter((e) => layer(e.from) === lower && above.includes(layer(e.to)));
      expect(upwards).toEqual([]);
    });
  }

  it('has no service importing another module’s service (mappers and shapes live in the model)', () => {
    const crossing = edges.filter(
      (e) =>
        e.from.startsWith('modules/') &&
        /-service$/.test(e.from) &&
        /-service$/.test(e.to) &&
        e.from.split('/')[1] !== e.to.split('/')[1] &&
        // Services call each other only through the types they are given (import type is erased).
        readFileSync(join(SRC, `${e.from}.ts`), 'utf8').match(
          new RegExp(`^import (?!type )[^;]*'[^']*${e.to.split('/').at(-1)}\\.js'`, 'm'),
        ),
    );
    expect(crossing).toEqual([]);
  });
});
