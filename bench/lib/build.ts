// The bench measures the compiled service (bin/rulekeeper.js runs dist/): compile src/ first when any
// source file is newer than its output, so that a change is never measured stale; then run a snapshot
// of it, so that a test suite recompiling dist/ meanwhile cannot change the code under test mid-run.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The first source file whose compiled file is missing or older, if any. */
function stale(root: string): string | undefined {
  const src = join(root, 'src');
  return sources(src).find((file) => {
    const output = join(root, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
    return !existsSync(output) || statSync(output).mtimeMs < statSync(file).mtimeMs;
  });
}

export function ensureBuilt(
  root: string,
  when: 'auto' | 'always' | 'never',
  log: (line: string) => void,
): void {
  if (when === 'never') return;
  const reason = when === 'always' ? 'as asked' : stale(root);
  if (!reason) return;
  log(`compiling src/ (${when === 'always' ? reason : `${relative(root, reason)} changed`})`);
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  } catch {
    throw new Error('src/ does not compile (see above); fix it, or measure dist/ as it is with --no-build');
  }
}

/**
 * A copy of bin/, dist/ and package.json under node_modules/.cache (so that packages still resolve
 * from the project's node_modules); returns the copy's bin/rulekeeper.js.
 */
export function snapshotBuild(root: string): { bin: string; dir: string } {
  const dir = join(root, 'node_modules', '.cache', 'rulekeeper-bench', String(process.pid));
  mkdirSync(dir, { recursive: true });
  for (const part of ['bin', 'dist', 'package.json'])
    cpSync(join(root, part), join(dir, part), { recursive: true });
  return { bin: join(dir, 'bin', 'rulekeeper.js'), dir };
}
