// SQL for import and export: lookups of many ids, the import's writes in batches, the export's pages.
import type { Selectable } from 'kysely';
import type { Db, GroupRow, RuleRow, Tables } from '../../db/tables.js';

/**
 * Rows per statement. Small enough that no statement runs long (PostgreSQL's statement timeout) or
 * passes a driver's parameter limit (14 columns × 500 rows), large enough that a 100,000-record
 * import is a few hundred statements.
 */
const BATCH = 500;

/** Everything one import writes, applied by `applyImportWrites` in the import's transaction. */
export interface ImportWrites {
  groupInserts: GroupRow[];
  groupUpdates: GroupRow[];
  ruleInserts: RuleRow[];
  ruleUpdates: RuleRow[];
}

export interface ExistingRow {
  id: string;
  workspace_id: string;
  /** Rules only: a rule's type cannot change. */
  rule_type?: string;
  creation_date: number;
  modification_date: number;
  created_by: string;
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += BATCH) out.push(items.slice(start, start + BATCH));
  return out;
}

export function createTransferStore() {
  return {
    /** The rows with these ids, in any workspace. */
    async existingRules(trx: Db, ids: Iterable<string>): Promise<Map<string, ExistingRow>> {
      const found = new Map<string, ExistingRow>();
      for (const chunk of batches([...new Set(ids)])) {
        const rows = await trx
          .selectFrom('rules')
          .select(['id', 'workspace_id', 'rule_type', 'creation_date', 'modification_date', 'created_by'])
          .where('id', 'in', chunk)
          .execute();
        for (const row of rows) found.set(row.id, row);
      }
      return found;
    },

    /** The workspace's rules with one of these names: their type and pairs, to tell a likely duplicate. */
    async rulesNamed(
      trx: Db,
      workspaceId: string,
      names: Iterable<string>,
    ): Promise<{ id: string; name: string; rule_type: string; pairs: string }[]> {
      const found: { id: string; name: string; rule_type: string; pairs: string }[] = [];
      for (const chunk of batches([...new Set(names)])) {
        const rows = await trx
          .selectFrom('rules')
          .select(['id', 'name', 'rule_type', 'pairs'])
          .where('workspace_id', '=', workspaceId)
          .where('name', 'in', chunk)
          .execute();
        found.push(...rows);
      }
      return found;
    },

    async existingGroups(trx: Db, ids: Iterable<string>): Promise<Map<string, ExistingRow>> {
      const found = new Map<string, ExistingRow>();
      for (const chunk of batches([...new Set(ids)])) {
        const rows = await trx
          .selectFrom('groups')
          .select(['id', 'workspace_id', 'creation_date', 'modification_date', 'created_by'])
          .where('id', 'in', chunk)
          .execute();
        for (const row of rows) found.set(row.id, row);
      }
      return found;
    },

    /**
     * Every write of an import, in one place and in order (groups before the rules that point at
     * them), inside the caller's transaction: all of it is committed, or none.
     */
    async applyImportWrites(trx: Db, writes: ImportWrites): Promise<void> {
      for (const chunk of batches(writes.groupInserts))
        await trx.insertInto('groups').values(chunk).execute();
      for (const row of writes.groupUpdates) {
        const { name, status, is_favourite, last_modified_by, modification_date } = row;
        await trx
          .updateTable('groups')
          .set({ name, status, is_favourite, last_modified_by, modification_date })
          .where('id', '=', row.id)
          .execute();
      }
      for (const chunk of batches(writes.ruleInserts)) await trx.insertInto('rules').values(chunk).execute();
      for (const row of writes.ruleUpdates) {
        const { id, workspace_id, rule_type, created_by, creation_date, ...changes } = row;
        await trx.updateTable('rules').set(changes).where('id', '=', id).execute();
      }
    },

    /**
     * The workspace's groups or rules, oldest first as lists are, a page at a time: the export never
     * holds the whole workspace in memory. Keyset paging stays in place while rows are added.
     */
    async *pages<T extends 'groups' | 'rules'>(
      db: Db,
      table: T,
      workspaceId: string,
    ): AsyncGenerator<Selectable<Tables[T]>[]> {
      let after: [number, string] = [-1, ''];
      for (;;) {
        // One table of the two; Kysely cannot type a query over a table chosen at run time.
        const rows = await db
          .selectFrom(table as 'rules')
          .selectAll()
          .where('workspace_id', '=', workspaceId)
          // A row-value comparison, which seeks the index (an OR scanned from the first row each page).
          .where((eb) => eb(eb.refTuple('creation_date', 'id'), '>', eb.tuple(after[0], after[1])))
          .orderBy('creation_date')
          .orderBy('id')
          .limit(BATCH)
          .execute();
        const last = rows[rows.length - 1];
        if (!last) return;
        yield rows as unknown as Selectable<Tables[T]>[];
        after = [last.creation_date, last.id];
      }
    },
  };
}

export type TransferStore = ReturnType<typeof createTransferStore>;
