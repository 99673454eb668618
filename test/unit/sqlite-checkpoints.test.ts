// WAL checkpoints in their own thread: the writer's COMMIT never copies the WAL into the database file
// (that copy, on the event loop, held every request for half a second after a large import); the
// worker does, soon after.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Checkpointer, checkpointInBackground } from '../../src/db/sqlite-checkpoints.js';

let dir: string;
let file: string;
let writer: SQLite.Database;
let checkpoints: Checkpointer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rulekeeper-checkpoints-'));
  file = join(dir, 'scratch.db');
  writer = new SQLite(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.exec('create table blobs (id integer primary key, body text not null)');
});

afterEach(async () => {
  await checkpoints?.stop();
  checkpoints = undefined;
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

/** About 8 MB in one transaction: eight times SQLite's own checkpoint threshold. */
function writeMegabytes(): void {
  const insert = writer.prepare('insert into blobs (body) values (?)');
  writer.transaction(() => {
    for (let i = 0; i < 2_000; i++) insert.run(`${i}`.padEnd(4_000, 'x'));
  })();
}

async function until(condition: () => boolean, what: string): Promise<void> {
  // Waits for the worker's next rounds (it checkpoints every 50 ms here); the bound only catches a hang.
  for (let round = 0; round < 1_200; round++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

it("the writer's COMMIT leaves the WAL as it is; the worker copies it into the database file", async () => {
  checkpoints = checkpointInBackground(writer, file, 50);
  expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  const before = statSync(file).size;
  writeMegabytes();
  // Nothing copied by the COMMIT itself: SQLite would have checkpointed inside it (file size grows).
  expect(statSync(file).size).toBe(before);
  await until(() => statSync(file).size > before + 4_000_000, 'the database file to receive the WAL');
});

it('without the worker, SQLite checkpoints inside COMMIT (what the worker takes away)', () => {
  const before = statSync(file).size;
  writeMegabytes();
  expect(statSync(file).size).toBeGreaterThan(before + 4_000_000);
});
