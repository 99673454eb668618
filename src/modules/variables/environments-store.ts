// SQL for a workspace's environments, and the keys bound to one; every query is of one workspace.
import type { DialectName } from '../../db/database.js';
import type { Db, EnvironmentRow } from '../../db/tables.js';
import { lockWorkspace } from '../shared/workspace-lock-store.js';
import { namedRowsStore } from './named-rows-store.js';

export function createEnvironmentsStore(db: Db, dialect: DialectName) {
  return {
    /** The workspace's environment of that name; locked for the transaction's write on PostgreSQL. */
    async find(
      trx: Db,
      workspaceId: string,
      name: string,
      lock = false,
    ): Promise<EnvironmentRow | undefined> {
      const query = trx
        .selectFrom('environments')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name);
      return (lock && dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    },

    ...namedRowsStore(db, 'environments'),

    /** The workspace's row locked until the transaction ends (shared/workspace-lock-store.ts). */
    lockWorkspace,

    /** Inserts the environment; false when the workspace has one of that name already. */
    async insert(trx: Db, row: EnvironmentRow): Promise<boolean> {
      const result = await trx
        .insertInto('environments')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) > 0;
    },

    /** Deletes the environment and every variable's value there. */
    async remove(trx: Db, workspaceId: string, name: string): Promise<void> {
      await trx
        .deleteFrom('variable_values')
        .where('workspace_id', '=', workspaceId)
        .where('environment_name', '=', name)
        .execute();
      await trx
        .deleteFrom('environments')
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name)
        .execute();
    },

    /** How many of the workspace's keys that still work (unrevoked, unexpired at `now`) are bound to it. */
    async keysBound(trx: Db, workspaceId: string, name: string, now: number): Promise<number> {
      const row = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('environment', '=', name)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type EnvironmentsStore = ReturnType<typeof createEnvironmentsStore>;
