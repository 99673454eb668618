// Each job kind names its worker's module by path: a file moved without its entry in the table would
// only fail when a pool first starts a worker, so the table is checked against the files here.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { JOB_KINDS } from '../../src/jobs/job-kinds.js';
import { workerEntry } from '../../src/jobs/worker-pool.js';

it.each(Object.entries(JOB_KINDS))('finds the worker of the %s jobs', (_name, kind) => {
  expect(existsSync(fileURLToPath(workerEntry(kind.worker)))).toBe(true);
});
