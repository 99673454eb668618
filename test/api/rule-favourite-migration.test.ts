// Rules stored before migration 0012 come out of it unpinned, and their Script rules removing their
// documents' Content-Security-Policy, as the proxy and the fixture already did (Requestly's default);
// the API then answers both fields. Both databases.
import { type Kysely, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MIGRATIONS, migrate, openDatabase } from '../../src/db/database.js';
import type { Tables } from '../../src/db/tables.js';
import { toRule } from '../../src/model/rule.js';
import { createTestDatabase, TEST_POSTGRES_URL } from '../helpers/test-app.js';

/** Every migration before 0012. */
const BEFORE = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0012'));

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_POSTGRES_URL)(kind, () => {
    it('leaves stored rules unpinned, and stored Script rules removing the policy', async () => {
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
        const source = { key: 'host', operator: 'Equals', value: 'a.example.com' };
        const rule = (id: string, ruleType: string, pair: Record<string, unknown>) => ({
          id,
          workspace_id: 'ws_a',
          name: id,
          name_search: id.toLowerCase(),
          search_text: id.toLowerCase(),
          description: '',
          status: 'Active',
          rule_type: ruleType,
          group_id: null,
          pairs: JSON.stringify([{ id: 'p1', source, ...pair }]),
          created_by: 'usr_1',
          last_modified_by: 'usr_1',
          creation_date: 1,
          modification_date: 1,
        });
        await db
          .insertInto('rules')
          .values([
            rule('Script_old01', 'Script', {
              scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: '1' }],
            }),
            rule('Cancel_old01', 'Cancel', {}),
          ])
          .execute();

        await migrate(database);
        const rows = await db.selectFrom('rules').selectAll().orderBy('id').execute();
        expect(rows.map((r) => [r.id, r.is_favourite, r.remove_csp_header])).toEqual([
          ['Cancel_old01', 0, null],
          ['Script_old01', 0, 1],
        ]);
        const principal = { userId: 'usr_1', ownerUserId: 'usr_1', workspaceId: 'ws_a' } as Parameters<
          typeof toRule
        >[1];
        const [cancel, script] = rows.map((row) => toRule(row, principal));
        expect(cancel).toMatchObject({ isFavourite: false });
        expect(cancel).not.toHaveProperty('removeCSPHeader');
        expect(script).toMatchObject({ isFavourite: false, removeCSPHeader: true });
      } finally {
        await database.close();
        await created.drop();
      }
    });
  });
}
