// A new rule's id is claimed for its workspace in the statement that inserts the rule (one round trip
// on PostgreSQL): an id any workspace ever had is drawn again, and nothing is written under it. The
// suffixes are given here, so that the draw meets a taken id for certain. Both databases.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RuleRow } from '../../src/db/tables.js';
import { createRulesStore } from '../../src/modules/rules/rules-store.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const given: string[] = [];
vi.mock('../../src/ids.js', async (original) => {
  const real = await original<typeof import('../../src/ids.js')>();
  return { ...real, randomSuffix: (length?: number) => given.shift() ?? real.randomSuffix(length) };
});

afterEach(() => {
  given.length = 0;
});

const row = (workspaceId: string, userId: string, name: string): RuleRow => ({
  id: '',
  workspace_id: workspaceId,
  name,
  name_search: name,
  search_text: name,
  description: '',
  status: 'Active',
  rule_type: 'Cancel',
  group_id: null,
  pairs: '[{"id":"p1","source":{"key":"Url","operator":"Contains","value":"x.example"}}]',
  is_favourite: 0,
  remove_csp_header: null,
  created_by: userId,
  last_modified_by: userId,
  creation_date: 1,
  modification_date: 1,
});

forEachDatabase((db) => {
  describe('the id of a new rule', () => {
    const t = useTestApp({ db });

    it('is drawn again when another workspace ever had it; nothing is written under the taken one', async () => {
      const { db: kysely, dialect } = t.database;
      const store = createRulesStore(kysely, dialect);
      const other = t.outsider;
      const mine = t.owner;
      given.push('taken');
      const first = await kysely
        .transaction()
        .execute((trx) => store.insertNew(trx, row(other.workspaceId, other.userId, 'theirs')));
      expect(first).toBe('Cancel_taken');
      given.push('taken', 'fresh');
      const second = await kysely
        .transaction()
        .execute((trx) => store.insertNew(trx, row(mine.workspaceId, mine.userId, 'mine')));
      expect(second).toBe('Cancel_fresh');
      const rows = await kysely
        .selectFrom('rules')
        .select(['id', 'workspace_id', 'name'])
        .where('id', 'in', ['Cancel_taken', 'Cancel_fresh'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'Cancel_fresh', workspace_id: mine.workspaceId, name: 'mine' },
        { id: 'Cancel_taken', workspace_id: other.workspaceId, name: 'theirs' },
      ]);
      const owners = await kysely
        .selectFrom('id_owners')
        .select(['id', 'workspace_id'])
        .where('id', 'in', ['Cancel_taken', 'Cancel_fresh'])
        .orderBy('id')
        .execute();
      expect(owners).toEqual([
        { id: 'Cancel_fresh', workspace_id: mine.workspaceId },
        { id: 'Cancel_taken', workspace_id: other.workspaceId },
      ]);
    });
  });
});
