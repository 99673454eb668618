// What evaluations read of a workspace's variables besides one environment's values (which the
// variables module's valuesFor answers): its environments, which variables are secret, and which
// environments have a value of each. Names only: never a value.
import type { Db } from '../../db/tables.js';

export interface VariablesCatalog {
  /** Every environment of the workspace, by name. */
  environments: string[];
  /** The names of its secret variables. */
  secrets: Set<string>;
  /** Each variable's name, with the environments that have a value of it. */
  defined: Map<string, Set<string>>;
}

export function createVariablesCatalogStore(db: Db) {
  return {
    async catalog(workspaceId: string): Promise<VariablesCatalog> {
      const [environments, variables, values] = await Promise.all([
        db
          .selectFrom('environments')
          .select('name')
          .where('workspace_id', '=', workspaceId)
          .orderBy('name')
          .execute(),
        db
          .selectFrom('variables')
          .select(['name', 'secret'])
          .where('workspace_id', '=', workspaceId)
          .execute(),
        db
          .selectFrom('variable_values')
          .select(['variable_name', 'environment_name'])
          .where('workspace_id', '=', workspaceId)
          .execute(),
      ]);
      const defined = new Map(variables.map((row) => [row.name, new Set<string>()]));
      for (const row of values) defined.get(row.variable_name)?.add(row.environment_name);
      return {
        environments: environments.map((row) => row.name),
        secrets: new Set(variables.filter((row) => row.secret === 1).map((row) => row.name)),
        defined,
      };
    },

    /**
     * One environment's values, secrets too (null: no such environment): what variables-service.ts's
     * valuesFor answers, for the commands that run without the service (the CLI's lint and export).
     */
    async valuesIn(workspaceId: string, environment: string): Promise<Map<string, string> | null> {
      const found = await db
        .selectFrom('environments')
        .select('name')
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', environment)
        .executeTakeFirst();
      if (!found) return null;
      const rows = await db
        .selectFrom('variable_values')
        .select(['variable_name', 'value'])
        .where('workspace_id', '=', workspaceId)
        .where('environment_name', '=', environment)
        .execute();
      return new Map(rows.map((row) => [row.variable_name, row.value]));
    },

    /** The names among `names` of the workspace's secret variables. */
    async secretsAmong(workspaceId: string, names: readonly string[]): Promise<Set<string>> {
      if (names.length === 0) return new Set();
      const rows = await db
        .selectFrom('variables')
        .select('name')
        .where('workspace_id', '=', workspaceId)
        .where('secret', '=', 1)
        .where('name', 'in', [...names])
        .execute();
      return new Set(rows.map((row) => row.name));
    },
  };
}

export type VariablesCatalogStore = ReturnType<typeof createVariablesCatalogStore>;
