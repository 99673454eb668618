// The SQLite group commit driver, tested directly on a real file: transactions that arrive together
// share one COMMIT, a failing member rolls back alone, a batch never exceeds its limit, a failed COMMIT
// fails every member of its batch, and reads outside transactions see only committed data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommitSqliteDialect } from '../../src/db/sqlite-group-commit.js';

interface Scratch {
  parents: { id: number };
  children: { id: number; parent_id: number };
}

let dir: string;
let db: Kysely<Scratch>;
/** Every statement the driver ran through `exec` on the writer, in order (begin, savepoints, commit). */
let execs: string[];

function open(file: string): SQLite.Database {
  const handle = new SQLite(file);
  handle.pragma('journal_mode = WAL');
  handle.pragma('synchronous = FULL');
  handle.pragma('foreign_keys = ON');
  return handle;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rulekeeper-group-commit-'));
  const file = join(dir, 'scratch.db');
  const writer = open(file);
  writer.exec(`
    create table parents (id integer primary key);
    create table children (
      id integer primary key,
      parent_id integer not null references parents(id) deferrable initially deferred
    );`);
  // Counts what the driver asks of the real connection; every call still reaches SQLite.
  execs = [];
  const exec = writer.exec.bind(writer);
  writer.exec = (sql: string) => {
    execs.push(sql);
    return exec(sql);
  };
  db = new Kysely<Scratch>({ dialect: new GroupCommitSqliteDialect(writer, open(file)) });
});

afterEach(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const insertParent = (id: number) => (trx: Kysely<Scratch>) =>
  trx.insertInto('parents').values({ id }).execute();

async function storedParents(): Promise<number[]> {
  const rows = await db.selectFrom('parents').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** Members per committed batch, read off the statements the driver ran. */
function batchSizes(): number[] {
  const sizes: number[] = [];
  let members = 0;
  for (const sql of execs) {
    if (sql === 'release member') members++;
    if (sql === 'commit') {
      sizes.push(members);
      members = 0;
    }
  }
  return sizes;
}

describe('group commit', () => {
  it('commits transactions that arrive together once, and a failing member rolls back alone', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute(insertParent(1)),
      db.transaction().execute(async (trx) => {
        await insertParent(2)(trx);
        throw new Error('the second member fails');
      }),
      db.transaction().execute(insertParent(3)),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await storedParents()).toEqual([1, 3]);
    expect(execs.filter((sql) => sql === 'commit')).toHaveLength(1);
    expect(batchSizes()).toEqual([2]);
  });

  it('never puts more than 256 transactions in one batch, and loses none of them', async () => {
    const ids = Array.from({ length: 600 }, (_, i) => i + 1);
    await Promise.all(ids.map((id) => db.transaction().execute(insertParent(id))));

    expect(await storedParents()).toEqual(ids);
    const sizes = batchSizes();
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(600);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(256);
    // They did share commits: far fewer fsyncs than transactions.
    expect(sizes.length).toBeLessThan(600 / 10);
  });

  it('fails every member of a batch whose COMMIT fails, and acknowledges none', async () => {
    // The orphan passes its own statement (the foreign key is deferred) and fails only at COMMIT.
    const results = await Promise.allSettled([
      db.transaction().execute(insertParent(1)),
      db
        .transaction()
        .execute((trx) => trx.insertInto('children').values({ id: 1, parent_id: 99 }).execute()),
      db.transaction().execute(insertParent(2)),
    ]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const result of results) {
      expect(String((result as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY constraint failed/);
    }
    expect(await storedParents()).toEqual([]);
    expect(await db.selectFrom('children').selectAll().execute()).toEqual([]);

    // The driver is usable afterwards.
    await db.transaction().execute(insertParent(3));
    expect(await storedParents()).toEqual([3]);
  });

  it('shows reads outside transactions only what is committed', async () => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let inserted!: () => void;
    const wasInserted = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const writing = db.transaction().execute(async (trx) => {
      await insertParent(7)(trx);
      inserted();
      await held;
    });

    await wasInserted;
    expect(await storedParents()).toEqual([]);
    finish();
    await writing;
    expect(await storedParents()).toEqual([7]);
  });

  it('runs a write outside a transaction as a transaction of its own', async () => {
    await insertParent(5)(db);
    await expect(insertParent(5)(db)).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await storedParents()).toEqual([5]);
    await insertParent(6)(db);
    expect(await storedParents()).toEqual([5, 6]);
  });
});
