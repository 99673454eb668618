// A migrated database of one kind for tests of the rules' store and read model: two workspaces with a
// key each, and rows of rules written straight through the store (no HTTP, no service).
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Database, type DialectName, migrate, openDatabase } from '../../src/db/database.js';
import type { RuleRow } from '../../src/db/tables.js';
import type { Principal } from '../../src/model/principal.js';
import { cspColumn } from '../../src/model/rule.js';
import { ruleSearchText } from '../../src/model/rule-search.js';
import { createKeysService } from '../../src/modules/keys/keys-service.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';
import { readRule } from '../../src/modules/rules/rules-input.js';
import { createRulesStore, type RulesStore } from '../../src/modules/rules/rules-store.js';
import { createTestDatabase } from './test-app.js';

export interface RulesDatabase {
  database: Database;
  rulesStore: RulesStore;
  /** Alice's workspace and Carol's, each its owner's. */
  alice: Principal;
  carol: Principal;
  /** Inserts a rule of `principal`'s workspace from a POST body (read as the service reads it). */
  insertRule(principal: Principal, body: Record<string, unknown>, id: string, at: number): Promise<RuleRow>;
}

export function useRulesDatabase(kind: DialectName): () => RulesDatabase {
  let built: RulesDatabase;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createTestDatabase(kind, { migrated: true });
    drop = created.drop;
    const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
    await migrate(database);
    const keys = createKeysService({
      db: database.db,
      keysStore: createKeysStore(database.db),
      cacheTtlMs: 0,
    });
    const principal = async (workspace: string, user: string): Promise<Principal> => {
      const issued = await keys.issue(workspace, user);
      return { ...issued, via: 'key', ownerUserId: issued.userId };
    };
    const rulesStore = createRulesStore(database.db, database.dialect);
    built = {
      database,
      rulesStore,
      alice: await principal('acme', 'alice'),
      carol: await principal('other', 'carol'),
      async insertRule(principal, body, id, at) {
        const { write, pairs } = readRule(body, { creating: true, maxDelayMs: 60_000 });
        const row: RuleRow = {
          id,
          workspace_id: principal.workspaceId,
          name: write.name ?? '',
          name_search: (write.name ?? '').toLowerCase(),
          search_text: ruleSearchText(write.name ?? '', write.description ?? '', pairs ?? []),
          description: write.description ?? '',
          status: write.status ?? 'Inactive',
          rule_type: write.ruleType as string,
          group_id: null,
          pairs: JSON.stringify(pairs),
          is_favourite: write.isFavourite ? 1 : 0,
          remove_csp_header: cspColumn(write.ruleType as string, write.removeCSPHeader),
          created_by: principal.userId,
          last_modified_by: principal.userId,
          creation_date: at,
          modification_date: at,
        };
        if (!(await rulesStore.insert(database.db, row))) throw new Error(`rule id ${id} is taken`);
        return row;
      },
    };
  });
  afterAll(async () => {
    await built?.database.close();
    await drop?.();
  });
  return () => built;
}
