// The rules of variables (decisions §20): unique names per workspace, bounded counts and values, values
// only in environments that exist, secrets written but never read back (history keeps fingerprints),
// every write a change of the workspace. Also the seam the engine's callers use: the environment of an
// evaluation and its values, secrets resolved.
import type { Config } from '../../config.js';
import type { Db, VariableRow } from '../../db/tables.js';
import { AppError, pointerToken } from '../../errors.js';
import { checkIfMatch } from '../../http/etag.js';
import { readListQuery } from '../../http/list.js';
import type { Page } from '../../http/replies.js';
import { nextTimestamp } from '../../ids.js';
import {
  DEFAULT_ENVIRONMENT,
  ENVIRONMENT_NAME_PATTERN,
  VARIABLE_NAME_PATTERN,
} from '../../model/environment-names.js';
import type { Principal } from '../../model/principal.js';
import type { ChangesService, Recorded } from '../changes/changes-service.js';
import { readVariableWrite, type VariableWrite } from './variables-input.js';
import { toKept, toVariable } from './variables-objects.js';
import { checkListQuery, type EnvironmentValues, type Variable } from './variables-schemas.js';
import type { StoredValues, VariablesStore } from './variables-store.js';

/** A kept version of a variable, as GET /v1/variables/{name}/versions lists it. */
export interface VariableVersion {
  version: number;
  revision: number;
  change: 'created' | 'updated' | 'deleted';
  at: number;
  by: string;
  byName: string | null;
  object: unknown;
}

const notFound = () => new AppError('VARIABLE_NOT_FOUND');
const taken = (name: string) =>
  new AppError('VARIABLE_EXISTS', [
    { path: '/name', message: `the workspace has a variable named "${name}"` },
  ]);

export function createVariablesService({
  db,
  store,
  changes,
  config,
}: {
  db: Db;
  store: VariablesStore;
  changes: Pick<ChangesService, 'record'>;
  config: Pick<Config, 'maxEnvironments' | 'maxVariables' | 'maxVariableValueChars'>;
}) {
  const read = (body: unknown, creating: boolean): VariableWrite => readVariableWrite(body, creating, config);

  /** The workspace's variable; any other name (of no variable, or not a name) is not found. */
  async function found(trx: Db, principal: Principal, name: string, lock = false): Promise<VariableRow> {
    const row = VARIABLE_NAME_PATTERN.test(name)
      ? await store.find(trx, principal.workspaceId, name, lock)
      : undefined;
    if (!row) throw notFound();
    return row;
  }

  /**
   * The values to store: those written, a null keeping the one set there (`current`); every environment
   * named must exist (step 8: references last).
   */
  async function valuesToStore(
    trx: Db,
    principal: Principal,
    written: Record<string, string | null>,
    current: StoredValues,
    secretMadePlain: boolean,
  ): Promise<StoredValues> {
    const details = [];
    const out: StoredValues = {};
    for (const [environment, value] of Object.entries(written)) {
      const path = `/values/${pointerToken(environment)}`;
      if (value !== null) out[environment] = value;
      else if (secretMadePlain)
        details.push({ path, message: 'a secret made plain needs its values given again, not null' });
      else if (current[environment] === undefined)
        details.push({ path, message: 'null keeps the value set there, and none is set' });
      else out[environment] = current[environment];
    }
    if (details.length > 0) throw new AppError('VARIABLE_PAYLOAD_INVALID', details);
    const missing = await store.missingEnvironments(trx, principal.workspaceId, Object.keys(written));
    if (missing.length > 0)
      throw new AppError(
        'VARIABLE_PAYLOAD_INVALID',
        missing.map((environment) => ({
          path: `/values/${pointerToken(environment)}`,
          message: `the workspace has no environment "${environment}"`,
        })),
      );
    return out;
  }

  return {
    async list(principal: Principal, query: unknown): Promise<Page<Variable>> {
      const { offset, pageSize } = readListQuery(query, checkListQuery);
      const [rows, total] = await Promise.all([
        store.list(principal.workspaceId, offset, pageSize),
        store.count(db, principal.workspaceId),
      ]);
      const values = await store.valuesOf(
        db,
        principal.workspaceId,
        rows.map((row) => row.name),
      );
      return { items: rows.map((row) => toVariable(row, values.get(row.name) ?? {})), total, offset };
    },

    async get(principal: Principal, name: string): Promise<Variable> {
      const row = await found(db, principal, name);
      const values = await store.valuesOf(db, principal.workspaceId, [name]);
      return toVariable(row, values.get(name) ?? {});
    },

    async create(principal: Principal, body: unknown): Promise<Recorded<Variable>> {
      const input = read(body, true);
      const name = input.name as string;
      return db.transaction().execute(async (trx) => {
        const { workspaceId } = principal;
        await store.lockWorkspace(trx, workspaceId);
        if (await store.find(trx, workspaceId, name)) throw taken(name);
        const count = await store.count(trx, workspaceId);
        if (count >= config.maxVariables)
          throw new AppError('VARIABLES_FULL', [
            {
              path: '',
              message: `a workspace has at most ${config.maxVariables} variables; delete one first`,
            },
          ]);
        const values = await valuesToStore(trx, principal, input.values ?? {}, {}, false);
        const now = Date.now();
        const row: VariableRow = {
          workspace_id: workspaceId,
          name,
          description: input.description ?? '',
          secret: input.secret ? 1 : 0,
          // Its versions go on from those the change log keeps of a variable of that name deleted before.
          version: (await store.lastKeptVersion(trx, workspaceId, name)) + 1,
          created_by: principal.userId,
          last_modified_by: principal.userId,
          creation_date: now,
          modification_date: now,
        };
        if (!(await store.insert(trx, row))) throw taken(name);
        await store.setValues(trx, workspaceId, name, values);
        const revision = await changes.record(trx, principal, [
          {
            objectType: 'variable',
            id: name,
            change: 'created',
            object: toKept(row, values),
            version: row.version,
          },
        ]);
        return { data: toVariable(row, values), revision };
      });
    },

    async update(
      principal: Principal,
      name: string,
      body: unknown,
      ifMatch?: string,
    ): Promise<Recorded<Variable>> {
      return db.transaction().execute(async (trx) => {
        const { workspaceId } = principal;
        const row = await found(trx, principal, name, true);
        checkIfMatch(ifMatch, { modificationDate: Number(row.modification_date) });
        const input = read(body, false);
        if (input.name !== undefined && input.name !== name)
          throw new AppError('VARIABLE_PAYLOAD_INVALID', [
            { path: '/name', message: `a variable is not renamed: this one is "${name}"` },
          ]);
        const current = (await store.valuesOf(trx, workspaceId, [name])).get(name) ?? {};
        const secret = input.secret ?? row.secret === 1;
        const madePlain = row.secret === 1 && !secret;
        // Made plain, a secret's values would be read back: they must be given again (or none kept).
        if (madePlain && input.values === undefined && Object.keys(current).length > 0)
          throw new AppError('VARIABLE_PAYLOAD_INVALID', [
            {
              path: '/values',
              message: 'a secret made plain needs its values given again in the same request',
            },
          ]);
        const values =
          input.values === undefined
            ? current
            : await valuesToStore(trx, principal, input.values, current, madePlain);
        const updated: VariableRow = {
          ...row,
          description: input.description ?? row.description,
          secret: secret ? 1 : 0,
          version: row.version + 1,
          last_modified_by: principal.userId,
          modification_date: nextTimestamp(Number(row.modification_date)),
        };
        await store.update(trx, updated);
        if (input.values !== undefined) await store.setValues(trx, workspaceId, name, values);
        const revision = await changes.record(trx, principal, [
          {
            objectType: 'variable',
            id: name,
            change: 'updated',
            object: toKept(updated, values),
            version: updated.version,
          },
        ]);
        return { data: toVariable(updated, values), revision };
      });
    },

    async remove(principal: Principal, name: string, ifMatch?: string): Promise<Recorded<string>> {
      const revision = await db.transaction().execute(async (trx) => {
        const { workspaceId } = principal;
        const row = await found(trx, principal, name, true);
        checkIfMatch(ifMatch, { modificationDate: Number(row.modification_date) });
        const values = (await store.valuesOf(trx, workspaceId, [name])).get(name) ?? {};
        await store.remove(trx, workspaceId, name);
        return changes.record(trx, principal, [
          {
            objectType: 'variable',
            id: name,
            change: 'deleted',
            object: toKept(row, values),
            version: row.version + 1,
          },
        ]);
      });
      return { data: 'Variable deleted', revision };
    },

    /** Every kept version, newest first (also of a deleted variable); a secret's values as fingerprints. */
    async versions(principal: Principal, name: string): Promise<VariableVersion[]> {
      if (!VARIABLE_NAME_PATTERN.test(name)) throw notFound();
      const rows = await store.versions(principal.workspaceId, name);
      if (rows.length === 0) throw notFound();
      return rows.map((row) => ({
        version: Number(row.version),
        revision: Number(row.revision),
        change: row.change,
        at: Number(row.at),
        by: row.by_user,
        byName: row.by_name,
        object: JSON.parse(row.object),
      }));
    },

    /**
     * The environment an evaluation uses: the one it names, else the key's bound one, else `default`.
     * Whether it exists is for `valuesFor` to say.
     */
    environmentFor(principal: Principal, explicit?: string | null): string {
      return explicit ?? principal.environment ?? DEFAULT_ENVIRONMENT;
    },

    /**
     * Every variable's value in the workspace's environment, secrets resolved (what traces, browser
     * rules and runtimes act with); null when the workspace has no such environment.
     */
    async valuesFor(
      workspaceId: string,
      environment: string,
      trx: Db = db,
    ): Promise<Map<string, string> | null> {
      if (!ENVIRONMENT_NAME_PATTERN.test(environment)) return null;
      return (await store.valuesIn(trx, workspaceId, environment)) ?? null;
    },

    /**
     * GET /v1/environments/{name}/values: for a runtime's key only. A person's session is refused, so
     * that no page of the console can ever show a secret.
     */
    async values(principal: Principal, environment: string, revision: number): Promise<EnvironmentValues> {
      if (principal.via === 'session')
        throw new AppError('UNAUTHORIZED_ACTION', [
          { path: '', message: 'values are read by runtimes with an API key, not with a signed-in session' },
        ]);
      const values = ENVIRONMENT_NAME_PATTERN.test(environment)
        ? await store.valuesIn(db, principal.workspaceId, environment)
        : undefined;
      if (!values) throw new AppError('ENVIRONMENT_NOT_FOUND');
      return { environment, revision, values: Object.fromEntries(values) };
    },
  };
}

export type VariablesService = ReturnType<typeof createVariablesService>;
