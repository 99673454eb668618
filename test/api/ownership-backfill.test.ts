// The id owners of a database that predates them are backfilled by its migration: from the history
// (the first workspace that had an id keeps it, also where another took it over before) and from the
// live rules and groups. Both databases.
import { type Kysely, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import * as initial from '../../src/db/migrations/0001-initial.js';
import * as idempotency from '../../src/db/migrations/0002-idempotency.js';
import * as changes from '../../src/db/migrations/0003-changes.js';
import * as keyScopes from '../../src/db/migrations/0005-key-scopes.js';
import type { Tables } from '../../src/db/tables.js';
import { createTestDatabase, TEST_POSTGRES_URL } from '../helpers/test-app.js';

const BEFORE = {
  '0001-initial': initial,
  '0002-idempotency': idempotency,
  '0003-changes': changes,
  '0005-key-scopes': keyScopes,
};

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_POSTGRES_URL)(kind, () => {
    it('gives every id ever held to its first workspace', async () => {
      const created = await createTestDatabase(kind);
      const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
      try {
        const db = database.db as Kysely<Tables>;
        const old = new Migrator({ db, provider: { getMigrations: async () => BEFORE } });
        expect((await old.migrateToLatest()).error).toBeUndefined();

        await db.insertInto('users').values({ id: 'usr_1', name: 'u', created_at: 1 }).execute();
        for (const id of ['ws_a', 'ws_b'])
          await db
            .insertInto('workspaces')
            .values({ id, name: id, owner_user_id: 'usr_1', created_at: 1 })
            .execute();
        const row = { name: 'r', status: 'Active', created_by: 'usr_1', last_modified_by: 'usr_1' };
        await db
          .insertInto('groups')
          .values({
            ...row,
            id: 'Group_live1',
            workspace_id: 'ws_a',
            is_favourite: 0,
            creation_date: 1,
            modification_date: 1,
          })
          .execute();
        // Taken over before ownership existed: B had it (versions 1, 2), A imported it (version 3).
        await db
          .insertInto('rules')
          .values({
            ...row,
            id: 'Cancel_taken',
            workspace_id: 'ws_a',
            name_search: 'r',
            description: '',
            rule_type: 'Cancel',
            group_id: null,
            pairs: '[]',
            creation_date: 1,
            modification_date: 1,
          })
          .execute();
        const change = (
          workspace_id: string,
          object_id: string,
          version: number,
          kind: 'created' | 'deleted',
        ) => ({
          workspace_id,
          revision: version,
          seq: 0,
          object_type: object_id.startsWith('Group_') ? ('group' as const) : ('rule' as const),
          object_id,
          version,
          change: kind,
          at: version,
          by_user: 'usr_1',
          object: '{}',
        });
        await db
          .insertInto('changes')
          .values([
            change('ws_b', 'Cancel_taken', 1, 'created'),
            change('ws_b', 'Cancel_taken', 2, 'deleted'),
            change('ws_a', 'Cancel_taken', 3, 'created'),
            change('ws_b', 'Group_gone1', 4, 'created'),
            change('ws_b', 'Group_gone1', 5, 'deleted'),
          ])
          .execute();

        await migrate(database);
        const owners = await db.selectFrom('id_owners').selectAll().orderBy('id').execute();
        expect(owners).toEqual([
          { id: 'Cancel_taken', object_type: 'rule', workspace_id: 'ws_b' },
          { id: 'Group_gone1', object_type: 'group', workspace_id: 'ws_b' },
          { id: 'Group_live1', object_type: 'group', workspace_id: 'ws_a' },
        ]);
      } finally {
        await database.close();
        await created.drop();
      }
    });
  });
}
