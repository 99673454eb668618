// The prepared-query layer, tested directly on both databases: a query compiled once answers each
// call with that call's parameters, wherever they stand in the SQL, on the database or in a transaction;
// and a locking find by id makes a second locking reader wait on PostgreSQL.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Database, type DialectName, migrate, openDatabase } from '../../src/db/database.js';
import { prepared, preparedFindById } from '../../src/db/prepared.js';
import { createTestDatabase, forEachDatabase } from '../helpers/test-app.js';

function useDatabase(kind: DialectName): () => Database {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createTestDatabase(kind, { migrated: true });
    drop = created.drop;
    database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
    await migrate(database);
    await database.db
      .insertInto('users')
      .values([
        { id: 'u1', name: 'ada', created_at: 10 },
        { id: 'u2', name: 'bob', created_at: 20 },
        { id: 'u3', name: 'cy', created_at: 30 },
      ])
      .execute();
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });
  return () => database;
}

forEachDatabase((kind) => {
  const database = useDatabase(kind);

  it('answers each call with its own parameters, named in any order, a name used twice filled twice', async () => {
    const { db } = database();
    const query = prepared<{ after: number; limit: number; name: string }, { id: string }>(
      db,
      ['limit', 'name', 'after'],
      (db, p) =>
        db
          .selectFrom('users')
          .select('id')
          .where((eb) => eb.or([eb('created_at', '>', p.after), eb('name', '=', p.name)]))
          .where('name', '<>', 'nobody') // a constant of the query, not a parameter
          .orderBy('created_at')
          .limit(p.limit),
    );

    expect(await query.all(db, { after: 15, limit: 10, name: 'none' })).toEqual([{ id: 'u2' }, { id: 'u3' }]);
    expect(await query.all(db, { after: 25, limit: 10, name: 'ada' })).toEqual([{ id: 'u1' }, { id: 'u3' }]);
    expect(await query.all(db, { after: 0, limit: 1, name: 'none' })).toEqual([{ id: 'u1' }]);
    expect(await query.first(db, { after: 99, limit: 10, name: 'none' })).toBeUndefined();

    const twice = prepared<{ name: string }, { id: string }>(db, ['name'], (db, p) =>
      db.selectFrom('users').select('id').where('name', '=', p.name).where('name', '>=', p.name),
    );
    expect(await twice.all(db, { name: 'cy' })).toEqual([{ id: 'u3' }]);
  });

  it('runs inside a transaction and sees its uncommitted writes', async () => {
    const { db } = database();
    const byName = prepared<{ name: string }, { id: string }>(db, ['name'], (db, p) =>
      db.selectFrom('users').select('id').where('name', '=', p.name),
    );
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values({ id: 'u9', name: 'eve', created_at: 90 }).execute();
        expect(await byName.first(trx, { name: 'eve' })).toEqual({ id: 'u9' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await byName.first(db, { name: 'eve' })).toBeUndefined();
  });

  it.runIf(kind === 'postgres')(
    'makes a second locking find of the same row wait for the first transaction',
    async () => {
      const { db } = database();
      await db
        .insertInto('workspaces')
        .values({ id: 'ws1', name: 'w', owner_user_id: 'u1', created_at: 1 })
        .execute();
      await db
        .insertInto('groups')
        .values({
          id: 'Group_lock1',
          workspace_id: 'ws1',
          name: 'g',
          status: 'Active',
          is_favourite: 0,
          created_by: 'u1',
          last_modified_by: 'u1',
          creation_date: 1,
          modification_date: 1,
        })
        .execute();
      const find = preparedFindById(db, 'postgres', 'groups');
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const firstHasLock = new Promise<void>((resolve) => {
        locked = resolve;
      });

      const first = db.transaction().execute(async (trx) => {
        await find(trx, 'Group_lock1', true);
        locked();
        await held;
        await trx.updateTable('groups').set({ name: 'renamed' }).where('id', '=', 'Group_lock1').execute();
        order.push('first wrote');
      });
      await firstHasLock;
      const second = db.transaction().execute(async (trx) => {
        const row = await find(trx, 'Group_lock1', true);
        order.push(`second read ${row?.name}`);
      });
      let secondDone = false;
      void second.then(() => {
        secondDone = true;
      });
      // Wait until PostgreSQL reports the second reader waiting on a lock (or it finished: then no lock held it).
      let waiting = false;
      for (const deadline = Date.now() + 10_000; !secondDone && !waiting && Date.now() < deadline; ) {
        const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
        waiting = (rows[0]?.n ?? 0) > 0;
      }
      const seen = { waiting, secondDone };
      release();
      await Promise.all([first, second]);
      expect(seen).toEqual({ waiting: true, secondDone: false });
      expect(order).toEqual(['first wrote', 'second read renamed']);
    },
  );
});
