// PostgreSQL's group commit per workspace, on a real server: the writes of one workspace that arrive
// together share one transaction and one COMMIT, each in a savepoint of its own; one that fails rolls
// back alone; none is answered before the COMMIT; other workspaces and unbatched work keep their own.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Database, migrate, openDatabase } from '../../src/db/database.js';
import { batchedFor } from '../../src/db/postgres-write-batches.js';
import { createTestDatabase, TEST_POSTGRES_URL } from '../helpers/test-app.js';

describe.skipIf(!TEST_POSTGRES_URL)(
  TEST_POSTGRES_URL
    ? 'postgres write batches'
    : 'postgres write batches (skipped: set TEST_POSTGRES_URL to run)',
  () => {
    let database: Database;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const created = await createTestDatabase('postgres');
      drop = created.drop;
      database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
      await migrate(database);
      await sql`create table batch_probe (n integer primary key, workspace text, txid bigint)`.execute(
        database.db,
      );
    });
    afterAll(async () => {
      await database?.close();
      await drop?.();
    });

    /** One write of `n` in `workspace`, batched as an API write is; answers its transaction id. */
    const write = (workspace: string, n: number, fail = false) =>
      batchedFor(workspace, () =>
        database.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ txid: string }>`select txid_current()::text as txid`.execute(trx);
          const txid = rows[0]?.txid as string;
          await sql`insert into batch_probe values (${n}, ${workspace}, ${txid})`.execute(trx);
          if (fail) throw new Error(`member ${n} fails`);
          return txid;
        }),
      );
    const stored = async (workspace: string) =>
      (
        await sql<{ n: number }>`select n from batch_probe where workspace = ${workspace} order by n`.execute(
          database.db,
        )
      ).rows.map((row) => row.n);

    it('commits the concurrent writes of one workspace together, every one of them stored', async () => {
      const txids = await Promise.all(Array.from({ length: 40 }, (_, n) => write('w1', n)));
      expect(await stored('w1')).toEqual(Array.from({ length: 40 }, (_, n) => n));
      // Forty writes, far fewer PostgreSQL transactions: they waited for each other and joined.
      expect(new Set(txids).size).toBeLessThan(40);
    });

    it('rolls back a failing member alone; the others of its batch commit', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, n) => write('w2', 100 + n, n === 4)),
      );
      expect(results.map((result) => result.status)).toEqual(
        Array.from({ length: 10 }, (_, n) => (n === 4 ? 'rejected' : 'fulfilled')),
      );
      expect(await stored('w2')).toEqual([100, 101, 102, 103, 105, 106, 107, 108, 109]);
    });

    it('answers a member only once its batch is committed: a failed COMMIT fails every member', async () => {
      // A deferred constraint fails at COMMIT, not at the insert: the batch's COMMIT fails.
      await sql`create table batch_deferred (n integer, unique (n) deferrable initially deferred)`.execute(
        database.db,
      );
      const insert = (n: number) =>
        batchedFor('w3', () =>
          database.db
            .transaction()
            .execute((trx) => sql`insert into batch_deferred values (${n})`.execute(trx)),
        );
      const results = await Promise.allSettled([insert(1), insert(2), insert(1)]);
      expect(results.every((result) => result.status === 'rejected')).toBe(true);
      const { rows } = await sql<{
        count: string;
      }>`select count(*)::text as count from batch_deferred`.execute(database.db);
      expect(rows[0]?.count).toBe('0');
    });

    it('keeps workspaces apart, and work outside any request in a transaction of its own', async () => {
      const [a, b] = await Promise.all([write('w4', 200), write('w5', 201)]);
      expect(a).not.toBe(b);
      const alone = await database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ txid: string }>`select txid_current()::text as txid`.execute(trx);
        return rows[0]?.txid;
      });
      expect([a, b]).not.toContain(alone);
    });

    it('runs a transaction opened inside a batched one on its own, instead of waiting for itself', async () => {
      const nested = await batchedFor('w6', () =>
        database.db.transaction().execute(async (outer) => {
          await sql`insert into batch_probe values (300, 'w6', 0)`.execute(outer);
          return database.db.transaction().execute(async (inner) => {
            await sql`insert into batch_probe values (301, 'w6', 0)`.execute(inner);
            return 'done';
          });
        }),
      );
      expect(nested).toBe('done');
      expect(await stored('w6')).toEqual([300, 301]);
    });
  },
);
