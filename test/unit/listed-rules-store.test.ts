// The stores that read some of a workspace's rules and groups by id (what a lint or trace job is sent
// after writes), on both databases: only the workspace's own, the rules in list order with their
// group's status, whatever other workspaces' ids are asked for.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Database, migrate, openDatabase } from '../../src/db/database.js';
import { createLintStore } from '../../src/modules/lint/lint-store.js';
import { createListedRulesStore } from '../../src/modules/shared/listed-rules-store.js';
import { createTestDatabase, forEachDatabase } from '../helpers/test-app.js';

const group = (id: string, workspace_id: string, status: string) => ({
  id,
  workspace_id,
  name: `group ${id}`,
  status,
  is_favourite: 0,
  created_by: 'u1',
  last_modified_by: 'u1',
  creation_date: 1,
  modification_date: 1,
});

const rule = (id: string, workspace_id: string, creation_date: number, group_id: string | null = null) => ({
  id,
  workspace_id,
  name: `rule ${id}`,
  name_search: `rule ${id}`,
  description: '',
  status: 'Active',
  rule_type: 'Cancel',
  group_id,
  pairs: '[]',
  created_by: 'u1',
  last_modified_by: 'u1',
  creation_date,
  modification_date: creation_date,
});

forEachDatabase((kind) => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createTestDatabase(kind);
    drop = created.drop;
    database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
    await migrate(database);
    const { db } = database;
    await db.insertInto('users').values({ id: 'u1', name: 'ada', created_at: 1 }).execute();
    await db
      .insertInto('workspaces')
      .values(['w1', 'w2'].map((id) => ({ id, name: id, owner_user_id: 'u1', created_at: 1 })))
      .execute();
    await db
      .insertInto('groups')
      .values([group('g1', 'w1', 'Inactive'), group('g2', 'w2', 'Active')])
      .execute();
    // Many rules in w1, so that reading its whole list would differ from reading the few asked for.
    const many = Array.from({ length: 300 }, (_, i) => rule(`r${i}`, 'w1', 1000 + i));
    await db.insertInto('rules').values(many).execute();
    await db
      .insertInto('rules')
      .values([rule('early', 'w1', 5, 'g1'), rule('theirs', 'w2', 7, 'g2')])
      .execute();
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  it('someRules answers the workspace’s rules among the ids, in list order, with their group’s status', async () => {
    const rows = await createListedRulesStore(database.db).someRules('w1', [
      'r250',
      'theirs',
      'early',
      'r3',
      'nope',
    ]);
    expect(rows.map((row) => [row.id, row.groupStatus, row.creationDate])).toEqual([
      ['early', 'Inactive', 5],
      ['r3', null, 1003],
      ['r250', null, 1250],
    ]);
    expect(await createListedRulesStore(database.db).someRules('w2', ['r1', 'early'])).toEqual([]);
  });

  it('someGroups answers only the workspace’s groups among the ids', async () => {
    const store = createLintStore(database.db);
    expect(await store.someGroups('w1', ['g1', 'g2', 'nope'])).toEqual([
      { id: 'g1', name: 'group g1', status: 'Inactive' },
    ]);
    expect(await store.someGroups('w2', ['g1'])).toEqual([]);
  });
});
