// Rules stored before the search looked beyond names are found by their descriptions and source values
// once migration 0007 has run. Both databases.
import { type Kysely, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import * as initial from '../../src/db/migrations/0001-initial.js';
import * as idempotency from '../../src/db/migrations/0002-idempotency.js';
import * as changes from '../../src/db/migrations/0003-changes.js';
import * as keyScopes from '../../src/db/migrations/0005-key-scopes.js';
import * as idOwners from '../../src/db/migrations/0006-id-owners.js';
import type { Tables } from '../../src/db/tables.js';
import { createTestDatabase, TEST_POSTGRES_URL } from '../helpers/test-app.js';

const BEFORE = {
  '0001-initial': initial,
  '0002-idempotency': idempotency,
  '0003-changes': changes,
  '0005-key-scopes': keyScopes,
  '0006-id-owners': idOwners,
};

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_POSTGRES_URL)(kind, () => {
    it('fills the search text of every rule already stored', async () => {
      const created = await createTestDatabase(kind);
      const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
      try {
        const db = database.db as Kysely<Tables>;
        const old = new Migrator({ db, provider: { getMigrations: async () => BEFORE } });
        expect((await old.migrateToLatest()).error).toBeUndefined();
        await db.insertInto('users').values({ id: 'usr_1', name: 'u', created_at: 1 }).execute();
        await db
          .insertInto('workspaces')
          .values({ id: 'ws_a', name: 'ws_a', owner_user_id: 'usr_1', created_at: 1 })
          .execute();
        const rule = (id: string, name: string, description: string, values: string[]) => ({
          id,
          workspace_id: 'ws_a',
          name,
          name_search: name.toLowerCase(),
          description,
          status: 'Active',
          rule_type: 'Cancel',
          group_id: null,
          pairs: JSON.stringify(
            values.map((value) => ({ source: { key: 'host', operator: 'Equals', value } })),
          ),
          created_by: 'usr_1',
          last_modified_by: 'usr_1',
          creation_date: 1,
          modification_date: 1,
        });
        // More than one batch of the migration's.
        const rows = Array.from({ length: 620 }, (_, i) =>
          rule(`Cancel_${String(i).padStart(5, '0')}`, `Rule ${i}`, i === 610 ? 'Blocks ÄDS' : '', [
            `host-${i}.example.com`,
            'Second.Example.com',
          ]),
        );
        for (let i = 0; i < rows.length; i += 100)
          await db
            .insertInto('rules')
            .values(rows.slice(i, i + 100))
            .execute();

        await migrate(database);
        const text = async (id: string) =>
          (await db.selectFrom('rules').select('search_text').where('id', '=', id).executeTakeFirstOrThrow())
            .search_text;
        expect(await text('Cancel_00000')).toBe('rule 0\nhost-0.example.com\nsecond.example.com');
        expect(await text('Cancel_00610')).toBe(
          'rule 610\nblocks äds\nhost-610.example.com\nsecond.example.com',
        );
        expect(await text('Cancel_00619')).toBe('rule 619\nhost-619.example.com\nsecond.example.com');
        const empty = await db.selectFrom('rules').select('id').where('search_text', '=', '').execute();
        expect(empty).toEqual([]);
      } finally {
        await database.close();
        await created.drop();
      }
    });
  });
}
