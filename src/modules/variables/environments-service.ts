// The rules of environments (decisions §20): names unique per workspace, a bounded count, `default`
// kept, no deletion while a key is bound; creating and deleting one is a change of the workspace.
import type { Config } from '../../config.js';
import type { Db, EnvironmentRow, VariableRow } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readListQuery } from '../../http/list.js';
import { readPayload } from '../../http/payload.js';
import type { Page } from '../../http/replies.js';
import { nextTimestamp } from '../../ids.js';
import { DEFAULT_ENVIRONMENT, ENVIRONMENT_NAME_PATTERN } from '../../model/environment-names.js';
import type { Principal } from '../../model/principal.js';
import type { ChangeInput, ChangesService, Recorded } from '../changes/changes-service.js';
import type { EnvironmentsStore } from './environments-store.js';
import { toKept } from './variables-objects.js';
import { checkEnvironmentCreate, checkListQuery, type Environment } from './variables-schemas.js';
import type { VariablesStore } from './variables-store.js';

const toEnvironment = (row: EnvironmentRow): Environment => ({
  name: row.name,
  creationDate: Number(row.creation_date),
});

const NOTHING_IGNORED = new Set<string>();

export function createEnvironmentsService({
  db,
  store,
  variablesStore,
  changes,
  config,
  now = Date.now,
}: {
  db: Db;
  store: EnvironmentsStore;
  variablesStore: VariablesStore;
  changes: Pick<ChangesService, 'record'>;
  config: Pick<Config, 'maxEnvironments'>;
  now?: () => number;
}) {
  return {
    async list(principal: Principal, query: unknown): Promise<Page<Environment>> {
      const { offset, pageSize } = readListQuery(query, checkListQuery);
      const [rows, total] = await Promise.all([
        store.list(principal.workspaceId, offset, pageSize),
        store.count(db, principal.workspaceId),
      ]);
      return { items: rows.map(toEnvironment), total, offset };
    },

    async create(principal: Principal, body: unknown): Promise<Recorded<Environment>> {
      const { name } = readPayload(
        body,
        checkEnvironmentCreate,
        'ENVIRONMENT_PAYLOAD_INVALID',
        NOTHING_IGNORED,
      );
      if (!ENVIRONMENT_NAME_PATTERN.test(name))
        throw new AppError('ENVIRONMENT_PAYLOAD_INVALID', [
          {
            path: '/name',
            message: 'must be a letter or digit, then up to 63 letters, digits, "_", "." or "-"',
          },
        ]);
      const taken = new AppError('ENVIRONMENT_EXISTS', [
        { path: '/name', message: `the workspace has an environment named "${name}"` },
      ]);
      return db.transaction().execute(async (trx) => {
        const { workspaceId } = principal;
        await store.lockWorkspace(trx, workspaceId);
        if (await store.find(trx, workspaceId, name)) throw taken;
        if ((await store.count(trx, workspaceId)) >= config.maxEnvironments)
          throw new AppError('ENVIRONMENTS_FULL', [
            {
              path: '',
              message: `a workspace has at most ${config.maxEnvironments} environments; delete one first`,
            },
          ]);
        const row: EnvironmentRow = { workspace_id: workspaceId, name, creation_date: now() };
        if (!(await store.insert(trx, row))) throw taken;
        const environment = toEnvironment(row);
        const revision = await changes.record(trx, principal, [
          { objectType: 'environment', id: name, change: 'created', object: environment },
        ]);
        return { data: environment, revision };
      });
    },

    /** Deletes the environment with every value there; `default` and an environment a key uses stay. */
    async remove(principal: Principal, name: string): Promise<Recorded<undefined>> {
      return db.transaction().execute(async (trx) => {
        const { workspaceId } = principal;
        const row = ENVIRONMENT_NAME_PATTERN.test(name)
          ? await store.find(trx, workspaceId, name, true)
          : undefined;
        if (!row) throw new AppError('ENVIRONMENT_NOT_FOUND');
        if (name === DEFAULT_ENVIRONMENT)
          throw new AppError('ENVIRONMENT_IN_USE', [
            { path: '', message: 'every workspace keeps its default environment' },
          ]);
        const bound = await store.keysBound(trx, workspaceId, name, now());
        if (bound > 0)
          throw new AppError('ENVIRONMENT_IN_USE', [
            {
              path: '',
              message: `${bound} ${bound === 1 ? 'key is' : 'keys are'} bound to "${name}"; revoke ${bound === 1 ? 'it' : 'them'} first`,
            },
          ]);
        // Each variable that had a value there changes too (a new version without it): its ETag and
        // history must not hide that the value went.
        const touched = await variablesStore.withValueIn(trx, workspaceId, name);
        const before = await variablesStore.valuesOf(
          trx,
          workspaceId,
          touched.map((variable) => variable.name),
        );
        await store.remove(trx, workspaceId, name);
        const variableChanges: ChangeInput[] = [];
        for (const variable of touched) {
          const { [name]: _gone, ...values } = before.get(variable.name) ?? {};
          const updated: VariableRow = {
            ...variable,
            version: variable.version + 1,
            last_modified_by: principal.userId,
            modification_date: nextTimestamp(Number(variable.modification_date)),
          };
          await variablesStore.update(trx, updated);
          variableChanges.push({
            objectType: 'variable',
            id: variable.name,
            change: 'updated',
            object: toKept(updated, values),
            version: updated.version,
          });
        }
        const revision = await changes.record(trx, principal, [
          { objectType: 'environment', id: name, change: 'deleted', object: toEnvironment(row) },
          ...variableChanges,
        ]);
        return { data: undefined, revision };
      });
    },
  };
}

export type EnvironmentsService = ReturnType<typeof createEnvironmentsService>;
