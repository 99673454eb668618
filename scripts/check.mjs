// `npm run check`: the daily loop before a commit. Lint, types, and the unit and api suites on SQLite
// alone (PostgreSQL, Redis, the system, heavy and browser suites are `npm test`'s and CI's), stopping
// at the first part that fails.
import { spawnSync } from 'node:child_process';
import { requireSupportedNode } from '../bin/supported-node.js';

requireSupportedNode("Rulekeeper's checks");

const env = { ...process.env };
delete env.TEST_POSTGRES_URL;
delete env.TEST_REDIS_URL;

const steps = [
  ['lint', 'node_modules/@biomejs/biome/bin/biome', 'check', '.'],
  ['types', 'node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'],
  [
    'unit and api on SQLite',
    'node_modules/vitest/vitest.mjs',
    'run',
    '--project',
    'unit',
    '--project',
    'api',
  ],
];
const started = Date.now();
for (const [name, ...args] of steps) {
  process.stdout.write(`── check: ${name}\n`);
  const { status } = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  if (status !== 0) {
    process.stdout.write(`── check: ${name} FAILED\n`);
    process.exit(1);
  }
}
process.stdout.write(`── check: passed in ${Math.round((Date.now() - started) / 1000)} s\n`);
