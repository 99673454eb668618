// The environment an evaluation uses (decisions §20): the one it names (a trace's `environment`, a
// read's `?environment=`), else its key's, else `default`; with that environment's values (secrets
// resolved: the engine acts with them). Traces, browser rules, the lint and exports all take it here.

import type { Db } from '../../db/tables.js';
import { AppError, type ErrorCode } from '../../errors.js';
import { DEFAULT_ENVIRONMENT, ENVIRONMENT_NAME_PATTERN } from '../../model/environment-names.js';
import type { Principal } from '../../model/principal.js';
import { createVariablesCatalogStore, type VariablesCatalogStore } from './variables-catalog-store.js';

export interface EvaluationEnvironment {
  name: string;
  /** Where its name came from. */
  from: 'request' | 'key' | 'default';
  /** Every variable's value there, by name (secrets too). */
  values: Map<string, string>;
}

/** The variables module's seam (variables-service.ts valuesFor): null for an environment the workspace lacks. */
export type ValuesFor = (workspaceId: string, environment: string) => Promise<Map<string, string> | null>;

/**
 * Where the evaluation names its environment: a query parameter (an unknown one is 404, a malformed
 * one 400 Invalid query), or a body field (400 with `code`, pointing at `path`).
 */
export type Named = { query: true } | { body: { code: ErrorCode; path: string } };

/** The environment of a key's evaluations when it names none. */
export function defaultEnvironmentOf(principal: Principal): string {
  return principal.environment ?? DEFAULT_ENVIRONMENT;
}

/** The name an evaluation uses, before it is looked up (for ETags, read before the answer). */
export function environmentNameOf(principal: Principal, explicit: string | undefined): string {
  return explicit ?? defaultEnvironmentOf(principal);
}

export function createEvaluationEnvironments(valuesFor: ValuesFor) {
  return async function choose(
    principal: Principal,
    explicit: string | undefined,
    named: Named,
  ): Promise<EvaluationEnvironment> {
    const name = environmentNameOf(principal, explicit);
    const from = explicit !== undefined ? 'request' : principal.environment ? 'key' : 'default';
    const refuse = (message: string): never => {
      if ('body' in named) throw new AppError(named.body.code, [{ path: named.body.path, message }]);
      if (!ENVIRONMENT_NAME_PATTERN.test(name))
        throw new AppError('INVALID_QUERY', [{ path: '/environment', message }]);
      throw new AppError('ENVIRONMENT_NOT_FOUND', [{ path: '/environment', message }]);
    };
    if (!ENVIRONMENT_NAME_PATTERN.test(name))
      refuse('must be an environment name: a letter or digit, then up to 63 letters, digits, _ . or -');
    const values = await valuesFor(principal.workspaceId, name);
    if (!values) refuse(`the workspace has no environment "${name}"`);
    return { name, from, values: values as Map<string, string> };
  };
}

export type ChooseEnvironment = ReturnType<typeof createEvaluationEnvironments>;

/** What an evaluating service needs of the variables: the environment chooser and the names' catalog. */
export interface EvaluationVariables {
  choose: ChooseEnvironment;
  catalog: VariablesCatalogStore;
}

/**
 * Without variables wired (a CLI command on a database before them): `default`, with no values, so
 * every `{{NAME}}` stays as written.
 */
export const NO_VARIABLES: EvaluationVariables = {
  choose: async (principal, explicit) => ({
    name: environmentNameOf(principal, explicit),
    from: explicit !== undefined ? 'request' : principal.environment ? 'key' : 'default',
    values: new Map(),
  }),
  catalog: {
    catalog: async () => ({ environments: [DEFAULT_ENVIRONMENT], secrets: new Set(), defined: new Map() }),
    secretsAmong: async () => new Set(),
    valuesIn: async () => new Map(),
  },
};

/** The variables of the workspaces of `db`, read there directly: for the CLI's commands, which have no service. */
export function evaluationVariablesOn(db: Db): EvaluationVariables {
  const catalog = createVariablesCatalogStore(db);
  return { choose: createEvaluationEnvironments(catalog.valuesIn), catalog };
}
