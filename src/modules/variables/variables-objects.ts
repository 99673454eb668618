// A variable as the API reads it (a secret's values never in it) and as its change record keeps it (a
// secret's values as fingerprints): the one mapping, used by every write and read.
import { createHash } from 'node:crypto';
import type { VariableRow } from '../../db/tables.js';
import type { Variable } from './variables-schemas.js';
import type { StoredValues } from './variables-store.js';

/**
 * What history keeps of a secret value: enough to tell two versions apart, salted with the workspace
 * and the variable so that equal values elsewhere do not look alike; never the value.
 */
export function fingerprint(workspaceId: string, name: string, value: string): string {
  const digest = createHash('sha256')
    .update(`rulekeeper variable\0${workspaceId}\0${name}\0${value}`)
    .digest('hex');
  return `sha256:${digest.slice(0, 16)}`;
}

/** The values as read: a secret's replaced by null (the key stays: a value is set there). */
function readableValues(secret: boolean, values: StoredValues): Record<string, string | null> {
  if (!secret) return { ...values };
  return Object.fromEntries(Object.keys(values).map((environment) => [environment, null]));
}

export function toVariable(row: VariableRow, values: StoredValues): Variable {
  return {
    name: row.name,
    description: row.description,
    secret: row.secret === 1,
    values: readableValues(row.secret === 1, values),
    version: row.version,
    creationDate: Number(row.creation_date),
    modificationDate: Number(row.modification_date),
  };
}

/** The variable as its change record keeps it: a secret's values as fingerprints. */
export function toKept(row: VariableRow, values: StoredValues) {
  const variable = toVariable(row, values);
  if (!variable.secret) return variable;
  const kept = Object.fromEntries(
    Object.entries(values).map(([environment, value]) => [
      environment,
      fingerprint(row.workspace_id, row.name, value),
    ]),
  );
  return { ...variable, values: kept };
}
