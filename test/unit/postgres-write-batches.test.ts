// PostgreSQL's group commit per workspace, on a real server: the writes of one workspace that arrive
// together share one transaction and one COMMIT, each in a savepoint of its own; one that fails rolls
// back alone; none is answered before the COMMIT; other workspaces and unbatched work keep their own.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CHANGES_CHANNEL } from '../../src/db/change-signals.js';
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
    let url: string;
    beforeAll(async () => {
      const created = await createTestDatabase('postgres', { migrated: true });
      drop = created.drop;
      url = created.url;
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

    it("announces a batch's changes with its COMMIT, and never those of a member that rolled back", async () => {
      const listener = new pg.Client({ connectionString: url });
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      await listener.connect();
      try {
        await listener.query(`listen ${CHANGES_CHANNEL}`);
        /** A write that announces its workspace's change, as every writer does. */
        const announcing = (workspace: string, n: number, fail = false) =>
          batchedFor(workspace, () =>
            database.db.transaction().execute(async (trx) => {
              await database.signals.announce(trx, workspace);
              await sql`insert into batch_probe values (${n}, ${workspace}, 0)`.execute(trx);
              if (fail) throw new Error(`member ${n} fails`);
            }),
          );
        await Promise.allSettled([announcing('ws_a1', 400), announcing('ws_a1', 401, true)]);
        await Promise.allSettled([announcing('ws_a2', 410, true)]);
        // An id not written as a literal is announced all the same.
        await Promise.allSettled([announcing("it's", 420), announcing("it's", 421)]);
        // A transaction opened alone inside a batched one announces its own change, which commits
        // even though the batched one rolls back.
        await batchedFor('ws_a3', () =>
          database.db
            .transaction()
            .execute(async () => {
              await database.db.transaction().execute(async (inner) => {
                await database.signals.announce(inner, 'ws_a3');
                await sql`insert into batch_probe values (430, 'ws_a3', 0)`.execute(inner);
              });
              throw new Error('the batched one fails');
            })
            .catch(() => {}),
        );
        await announcing('ws_a4', 440);
        // Notifications arrive in the order of their commits: once the last is heard, all are.
        await vi.waitFor(() => expect(heard).toContain('ws_a4'), { timeout: 10_000 });
        expect(heard).toEqual(['ws_a1', "it's", 'ws_a3', 'ws_a4']);
        expect(await stored('ws_a1')).toEqual([400]);
        expect(await stored('ws_a2')).toEqual([]);
        expect(await stored('ws_a3')).toEqual([430]);
      } finally {
        await listener.end();
      }
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
