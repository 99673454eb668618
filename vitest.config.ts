import { defineConfig } from 'vitest/config';

// One folder per project, so a test's place says what it is:
// - test/unit: pure code and one component tested directly (seconds);
// - test/api: the app through inject on real databases;
// - test/system: real processes (the compiled CLI and server, several instances, the browser);
// - test/heavy: fairness under load, fuzzing, memory and crash suites (minutes; CI runs them once).
// `npm run check` runs unit and api; `npm test` runs all four, then the browser suites.
const SYSTEM = {
  globalSetup: ['test/global-setup.ts'],
  // Real processes on a loaded two-core machine: a CLI call or a service start can take tens of
  // seconds when every core is busy. These limits only catch hangs; speed is the bench's.
  testTimeout: 180_000,
  hookTimeout: 240_000,
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: one worker per core; the system suites start processes of their own.
    maxWorkers: 2,
    projects: [
      // Pure code: each worker loads the modules once for all its files (isolating each file cost
      // more than its tests); nothing here keeps state a later file could trip over.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'api', include: ['test/api/**/*.test.ts'] } },
      { extends: true, test: { name: 'system', include: ['test/system/**/*.test.ts'], ...SYSTEM } },
      { extends: true, test: { name: 'heavy', include: ['test/heavy/**/*.test.ts'], ...SYSTEM } },
    ],
  },
});
