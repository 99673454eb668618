// SQL for a workspace's variables and their values per environment; every query is of one workspace.
import type { DialectName } from '../../db/database.js';
import type { Db, VariableRow } from '../../db/tables.js';
import { lockWorkspace } from '../shared/workspace-lock-store.js';
import { namedRowsStore } from './named-rows-store.js';

/** A variable's values by environment name. */
export type StoredValues = Record<string, string>;

export function createVariablesStore(db: Db, dialect: DialectName) {
  /** Every value of the named variables, by variable then environment. */
  async function valuesOf(trx: Db, workspaceId: string, names: string[]): Promise<Map<string, StoredValues>> {
    const out = new Map<string, StoredValues>(names.map((name) => [name, {}]));
    if (names.length === 0) return out;
    // At most MAX_VARIABLES names (a page): well within either database's bound parameters.
    const rows = await trx
      .selectFrom('variable_values')
      .select(['variable_name', 'environment_name', 'value'])
      .where('workspace_id', '=', workspaceId)
      .where('variable_name', 'in', names)
      .orderBy('variable_name')
      .orderBy('environment_name')
      .execute();
    for (const row of rows) {
      const values = out.get(row.variable_name);
      if (values) values[row.environment_name] = row.value;
    }
    return out;
  }

  return {
    /** The workspace's variable of that name; locked for the transaction's write on PostgreSQL. */
    async find(trx: Db, workspaceId: string, name: string, lock = false): Promise<VariableRow | undefined> {
      const query = trx
        .selectFrom('variables')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name);
      return (lock && dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    },

    valuesOf,

    /** The workspace's row locked until the transaction ends (shared/workspace-lock-store.ts). */
    lockWorkspace,

    ...namedRowsStore(db, 'variables'),

    /** Inserts the variable; false when the workspace has one of that name already. */
    async insert(trx: Db, row: VariableRow): Promise<boolean> {
      const result = await trx
        .insertInto('variables')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) > 0;
    },

    async update(trx: Db, row: VariableRow): Promise<void> {
      const { description, secret, version, last_modified_by, modification_date } = row;
      await trx
        .updateTable('variables')
        .set({ description, secret, version, last_modified_by, modification_date })
        .where('workspace_id', '=', row.workspace_id)
        .where('name', '=', row.name)
        .execute();
    },

    /** Replaces every value of the variable by `values`. */
    async setValues(trx: Db, workspaceId: string, name: string, values: StoredValues): Promise<void> {
      await trx
        .deleteFrom('variable_values')
        .where('workspace_id', '=', workspaceId)
        .where('variable_name', '=', name)
        .execute();
      const rows = Object.entries(values).map(([environment, value]) => ({
        workspace_id: workspaceId,
        variable_name: name,
        environment_name: environment,
        value,
      }));
      // At most MAX_ENVIRONMENTS rows of four parameters.
      if (rows.length > 0) await trx.insertInto('variable_values').values(rows).execute();
    },

    /** Deletes the variable (its values go with it: the foreign key cascades). */
    async remove(trx: Db, workspaceId: string, name: string): Promise<void> {
      await trx
        .deleteFrom('variable_values')
        .where('workspace_id', '=', workspaceId)
        .where('variable_name', '=', name)
        .execute();
      await trx
        .deleteFrom('variables')
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name)
        .execute();
    },

    /**
     * Every value in one environment, by variable name (secrets too: what runtimes act with); undefined
     * when the workspace has no such environment.
     */
    async valuesIn(
      trx: Db,
      workspaceId: string,
      environment: string,
    ): Promise<Map<string, string> | undefined> {
      const found = await trx
        .selectFrom('environments')
        .select('name')
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', environment)
        .executeTakeFirst();
      if (!found) return undefined;
      const rows = await trx
        .selectFrom('variable_values')
        .select(['variable_name', 'value'])
        .where('workspace_id', '=', workspaceId)
        .where('environment_name', '=', environment)
        .orderBy('variable_name')
        .execute();
      return new Map(rows.map((row) => [row.variable_name, row.value]));
    },

    /** The workspace's variables with a value in the environment, by name (locked on PostgreSQL). */
    async withValueIn(trx: Db, workspaceId: string, environment: string): Promise<VariableRow[]> {
      const query = trx
        .selectFrom('variables')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('variable_values as v')
              .select('v.value')
              .whereRef('v.workspace_id', '=', 'variables.workspace_id')
              .whereRef('v.variable_name', '=', 'variables.name')
              .where('v.environment_name', '=', environment),
          ),
        )
        .orderBy('name');
      return (dialect === 'postgres' ? query.forUpdate() : query).execute();
    },

    /** The names among `names` the workspace has no environment of. */
    async missingEnvironments(trx: Db, workspaceId: string, names: string[]): Promise<string[]> {
      if (names.length === 0) return [];
      const rows = await trx
        .selectFrom('environments')
        .select('name')
        .where('workspace_id', '=', workspaceId)
        .where('name', 'in', names)
        .execute();
      const found = new Set(rows.map((row) => row.name));
      return names.filter((name) => !found.has(name));
    },

    /** The last version the change log keeps of the workspace's variable (0: none). */
    async lastKeptVersion(trx: Db, workspaceId: string, name: string): Promise<number> {
      const row = await trx
        .selectFrom('changes')
        .select((eb) => eb.fn.max('version').as('version'))
        .where('object_type', '=', 'variable')
        .where('object_id', '=', name)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return Number(row?.version ?? 0);
    },

    /** Every kept version of the workspace's variable, newest first, with who made it. */
    async versions(workspaceId: string, name: string) {
      return db
        .selectFrom('changes')
        .leftJoin('users', 'users.id', 'changes.by_user')
        .select([
          'changes.version',
          'changes.revision',
          'changes.change',
          'changes.at',
          'changes.by_user',
          'users.name as by_name',
          'changes.object',
        ])
        .where('changes.object_type', '=', 'variable')
        .where('changes.object_id', '=', name)
        .where('changes.workspace_id', '=', workspaceId)
        .orderBy('changes.version', 'desc')
        .execute();
    },
  };
}

export type VariablesStore = ReturnType<typeof createVariablesStore>;
