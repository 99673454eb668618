// What changed between two versions of a rule, field by field, in words a person reads
// ("pair 1 › source › value"), leaving out what the service sets on every write (ids, dates, users).
const BOOKKEEPING = new Set([
  'id',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'modificationDate',
  'currentOwner',
  'objectType',
]);

export interface FieldChange {
  field: string;
  before?: string;
  after?: string;
}

type Leaves = Map<string, string>;

function leaves(value: unknown, path: string[], out: Leaves): Leaves {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(path.join(' › '), '(none)');
    value.forEach((item, index) => {
      leaves(item, [...path, path.at(-1) === 'pairs' ? `pair ${index + 1}` : `${index + 1}`], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      // A pair's id is the service's too: a pair written without one gets a new one.
      if ((path.length === 0 && BOOKKEEPING.has(key)) || key === 'id') continue;
      leaves(item, [...path.filter((part) => part !== 'pairs'), key], out);
    }
  } else {
    out.set(path.join(' › '), typeof value === 'string' ? value : JSON.stringify(value));
  }
  return out;
}

export function versionDiff(before: unknown, after: unknown): FieldChange[] {
  const old = leaves(before, [], new Map());
  const now = leaves(after, [], new Map());
  const changes: FieldChange[] = [];
  for (const [field, value] of now) {
    const was = old.get(field);
    if (was === undefined) changes.push({ field, after: value });
    else if (was !== value) changes.push({ field, before: was, after: value });
  }
  for (const [field, value] of old) if (!now.has(field)) changes.push({ field, before: value });
  return changes;
}
