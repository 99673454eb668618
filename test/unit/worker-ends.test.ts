// A worker thread that ends while it holds a SQLite connection (its memory limit reached, its pool
// closed or shrunk) must take only itself down. With better-sqlite3 12 on Node 24 the connection's
// destructors ran in the ending thread and aborted the whole process (`(env) != nullptr`); the pool
// and the service must live on, on every supported Node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorkerPool, type JobRunner } from '../../src/jobs/worker-pool.js';

type Job = { file: string; hog?: true };
let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rulekeeper-worker-ends-'));
  file = join(dir, 'notes.db');
  const db = new Database(file);
  db.exec('create table notes (id integer primary key); insert into notes default values;');
  db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pool = (): JobRunner<Job, number> =>
  createWorkerPool<Job, number>({
    entry: new URL('../helpers/sqlite-worker.ts', import.meta.url),
    what: 'the job',
    jobs: 'jobs',
    tooLongHint: 'none',
    workers: 1,
    timeLimitMs: 60_000,
    memoryMb: 64,
    perKey: 1,
    perKeyWaiting: 4,
    maxWaiting: 16,
  });

it('a worker past its memory limit with a connection open is refused alone; the next job gets a new one', async () => {
  const jobs = pool();
  try {
    expect(await jobs.run('a', { file })).toBe(1);
    await expect(jobs.run('a', { file, hog: true })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await jobs.run('a', { file })).toBe(1);
  } finally {
    await jobs.close();
  }
});

it('a pool closed (or shrunk) while its workers hold connections ends them, and the process goes on', async () => {
  for (let round = 0; round < 3; round++) {
    const jobs = pool();
    expect(await jobs.run('a', { file })).toBe(1);
    await jobs.close();
  }
  // The process, its own connection to the same file included, still works.
  const db = new Database(file);
  db.prepare('insert into notes default values').run();
  expect((db.prepare('select count(*) as n from notes').get() as { n: number }).n).toBe(2);
  db.close();
});
