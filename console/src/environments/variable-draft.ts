// A variable as its row is edited, and the body a save sends: what the person typed, never a secret
// read back (the API never gives one). Pure, so the rules of a save are tested on their own.
import type { ErrorDetail, Variable } from '../api.js';

export interface VariableDraft {
  name: string;
  description: string;
  secret: boolean;
  /** What each environment's box holds: a value typed (or shown, for a variable not secret). */
  values: Record<string, string>;
}

/** A new variable's row, or an existing one's: a secret's boxes start empty (its values are unknown). */
export function draftOf(variable: Variable | null): VariableDraft {
  if (!variable) return { name: '', description: '', secret: false, values: {} };
  const values: Record<string, string> = {};
  if (!variable.secret)
    for (const [environment, value] of Object.entries(variable.values))
      if (typeof value === 'string') values[environment] = value;
  return { name: variable.name, description: variable.description ?? '', secret: variable.secret, values };
}

/** The values typed: an empty box means no value in that environment. */
const typed = (draft: VariableDraft) =>
  Object.fromEntries(Object.entries(draft.values).filter(([, value]) => value !== ''));

/**
 * What to send. A variable not secret sends its values whole (an emptied box removes that value). A
 * secret sends what was typed, and null for each value it has where the box was left empty: the API
 * keeps that one (its value is never sent back, so it cannot be sent again); nothing typed, `values`
 * is left out and all are kept. A secret made plain sends only what was typed: hidden values are
 * never kept, since they would then be shown.
 */
export function bodyOf(draft: VariableDraft, original: Variable | null) {
  const common = { description: draft.description, secret: draft.secret };
  const values: Record<string, string | null> = typed(draft);
  if (original?.secret && draft.secret) {
    if (Object.keys(values).length === 0) return common;
    for (const environment of Object.keys(original.values))
      if (!Object.hasOwn(values, environment)) values[environment] = null;
  }
  return { ...common, values };
}

/** Whether saving drops a secret's hidden values: it is made plain, so only what was typed stays. */
export function dropsSecretValues(draft: VariableDraft, original: Variable | null): boolean {
  return original?.secret === true && !draft.secret;
}

/** Where a refusal of a save points, by its JSON Pointer: a cell of the row, or the row as a whole. */
export type Cell = 'name' | 'description' | 'secret' | { environment: string } | 'row';

export function cellOf(detail: ErrorDetail): Cell {
  const parts = detail.path.split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[1] === 'values' && parts[2] !== undefined) return { environment: parts[2] };
  if (parts[1] === 'name' || parts[1] === 'description' || parts[1] === 'secret') return parts[1];
  return 'row';
}

/** The refusal's messages at one cell. */
export function messagesAt(details: readonly ErrorDetail[], cell: Cell): string[] {
  const key = (c: Cell) => (typeof c === 'string' ? c : `values ${c.environment}`);
  return details.filter((detail) => key(cellOf(detail)) === key(cell)).map((detail) => detail.message);
}
