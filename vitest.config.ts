import { defineConfig } from 'vitest/config';

// Three projects: `unit` (pure code and direct tests of one component, seconds), `api` (the app through
// inject on real databases) and `system` (real processes: the compiled CLI and server, crashes,
// several instances), which alone needs the build. `npm test` runs all three.
const SYSTEM = [
  'test/resilience/**/*.test.ts',
  'test/postgres/**/*.test.ts',
  'test/system/**/*.test.ts',
  'test/security/keys-cli*.test.ts',
  'test/security/stream-memory.test.ts',
];
const UNIT = [
  'test/unit/**/*.test.ts',
  'test/engine/**/*.test.ts',
  'test/config.test.ts',
  'test/rule-types.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: one worker per core; the system suites start processes of their own.
    maxWorkers: 2,
    projects: [
      // Pure code: each worker loads the modules once for all its files (isolating each file cost
      // more than its tests); nothing here keeps state a later file could trip over.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      {
        extends: true,
        test: { name: 'api', include: ['test/**/*.test.ts'], exclude: [...UNIT, ...SYSTEM] },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: SYSTEM,
          globalSetup: ['test/global-setup.ts'],
          // Real processes on a loaded two-core machine: a CLI call or a service start can take tens of
          // seconds when every core is busy. These limits only catch hangs; speed is the bench's.
          testTimeout: 180_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
