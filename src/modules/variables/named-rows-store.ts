// A workspace's environments and variables are both rows named within it, paged by name and counted
// against a limit the same way: one query for both tables.
import type { Db, EnvironmentRow, VariableRow } from '../../db/tables.js';

interface Rows {
  environments: EnvironmentRow;
  variables: VariableRow;
}

export function namedRowsStore<T extends keyof Rows>(db: Db, table: T) {
  // Both tables have workspace_id and name; Kysely types a query of a union of tables column by
  // column, so the query is written for one and its rows read as the table's own.
  return {
    /** A page of the workspace's rows, by name. */
    async list(workspaceId: string, offset: number, limit: number): Promise<Rows[T][]> {
      const rows = await db
        .selectFrom(table as 'variables')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('name')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows as Rows[T][];
    },

    async count(trx: Db, workspaceId: string): Promise<number> {
      const row = await trx
        .selectFrom(table as 'variables')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
