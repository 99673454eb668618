// The stores that read some of a workspace's rules and groups by id (what a lint or trace job is sent
// after writes), on both databases: only the workspace's own, the rules in list order with their
// group's status, whatever other workspaces' ids are asked for.
import { beforeAll, expect, it } from 'vitest';
import { createLintStore } from '../../src/modules/lint/lint-store.js';
import { createListedRulesStore } from '../../src/modules/shared/listed-rules-store.js';
import { useRulesDatabase } from '../helpers/rules-database.js';
import { forEachDatabase } from '../helpers/test-app.js';

const cancel = (host: string) => ({
  name: `cancel ${host}`,
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: host } }],
});

forEachDatabase((kind) => {
  const rules = useRulesDatabase(kind);
  const group = (id: string, workspace_id: string, status: string) => ({
    id,
    workspace_id,
    name: `group ${id}`,
    status,
    is_favourite: 0,
    created_by: 'u',
    last_modified_by: 'u',
    creation_date: 1,
    modification_date: 1,
  });

  beforeAll(async () => {
    const { database, alice, carol, insertRule } = rules();
    await database.db
      .insertInto('groups')
      .values([group('g1', alice.workspaceId, 'Inactive'), group('g2', carol.workspaceId, 'Active')])
      .execute();
    // Many rules in Alice's workspace, so that reading its whole list would differ from reading the few asked for.
    for (let i = 0; i < 300; i++) await insertRule(alice, cancel(`r${i}.test`), `r${i}`, 1000 + i);
    await insertRule(alice, cancel('early.test'), 'early', 5);
    await insertRule(carol, cancel('theirs.test'), 'theirs', 7);
    await database.db.updateTable('rules').set({ group_id: 'g1' }).where('id', '=', 'early').execute();
    await database.db.updateTable('rules').set({ group_id: 'g2' }).where('id', '=', 'theirs').execute();
  });

  it('someRules answers the workspace’s rules among the ids, in list order, with their group’s status', async () => {
    const { database, alice, carol } = rules();
    const store = createListedRulesStore(database.db);
    const rows = await store.someRules(alice.workspaceId, ['r250', 'theirs', 'early', 'r3', 'nope']);
    expect(rows.map((row) => [row.id, row.groupStatus, row.creationDate])).toEqual([
      ['early', 'Inactive', 5],
      ['r3', null, 1003],
      ['r250', null, 1250],
    ]);
    expect(await store.someRules(carol.workspaceId, ['r1', 'early'])).toEqual([]);
  });

  it('rulesBefore answers the rules just before a rule, nearest first, of the workspace alone; ruleCount counts them', async () => {
    const { database, alice, carol } = rules();
    const store = createListedRulesStore(database.db);
    const before = await store.rulesBefore(alice.workspaceId, 3, { creationDate: 1002, id: 'r2' });
    expect(before.map((row) => [row.id, row.groupStatus])).toEqual([
      ['r1', null],
      ['r0', null],
      ['early', 'Inactive'],
    ]);
    expect(await store.rulesBefore(alice.workspaceId, 3, { creationDate: 5, id: 'early' })).toEqual([]);
    // Carol's rule stands before Alice's r0 in time, not in Alice's list.
    expect(await store.rulesBefore(carol.workspaceId, 5, { creationDate: 1000, id: 'r0' })).toEqual([
      expect.objectContaining({ id: 'theirs', groupStatus: 'Active' }),
    ]);
    expect(await store.ruleCount(alice.workspaceId)).toBe(301);
    expect(await store.ruleCount(carol.workspaceId)).toBe(1);
  });

  it('someGroups answers only the workspace’s groups among the ids', async () => {
    const { database, alice, carol } = rules();
    const store = createLintStore(database.db);
    expect(await store.someGroups(alice.workspaceId, ['g1', 'g2', 'nope'])).toEqual([
      { id: 'g1', name: 'group g1', status: 'Inactive' },
    ]);
    expect(await store.someGroups(carol.workspaceId, ['g1'])).toEqual([]);
  });
});
