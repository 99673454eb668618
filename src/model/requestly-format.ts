// Our groups and rules in the shapes Requestly's app stores, so that Requestly itself can take an
// export back: Headers `modifications` as one object, Response and Request bodies nested under
// `response` and `request`, page URL filters as `pageUrl`, and the bookkeeping fields its records
// carry. Keys in the order its exports write them (alphabetical), so that such a file is stable too.
// Importing one gives back the same rules (the import reads all of these shapes).
//
// Checked against requestly/requestly at commit 3b60a3fe46f77b32b11cbcedae14617fe7d2466c: the fields
// its types require (shared/src/types/entities/rules/), and what its importer reads
// (app/src/features/rules/modals/ImportRulesModal/actions/index.js, app/src/utils/rules/ruleMigrations.js,
// app/src/modules/extension/utils.ts):
// - a Headers rule without `version` 2 is read as the pre-2018 flat format and its pairs rebuilt from
//   `target`, which ours do not have (its import then throws): `version: 2` is written;
// - a rule whose `schemaVersion` is below its type's latest is migrated on import (path sources and
//   page URL filters rewritten): each type's latest is written, so it is taken as it is;
// - its types require an `id` on every script, and a `value` on every header and query-parameter
//   change, Remove included (its app writes ""), a `param` on every query-parameter change, a Delay's `delay` and a Response's `statusCode` as strings.
import type { Group } from './group.js';
import type { Rule } from './rule.js';

type Json = Record<string, unknown>;

/** Requestly's LATEST_RULES_SCHEMA_VERSION (app/src/modules/extension/utils.ts): 3.0.0 but Replace's. */
const schemaVersion = (ruleType: string) => (ruleType === 'Replace' ? '3.0.2' : '3.0.0');

/** A change with the `value` Requestly's type requires (a Remove's is "", as its app writes it). */
const withValue = (change: Json): Json => (change.value === undefined ? { ...change, value: '' } : change);

const sorted = (value: Json): Json =>
  Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, value[key]]),
  );

function filterOf(filter: Json): Json {
  const { URL: pageUrl, ...rest } = filter;
  return sorted(pageUrl === undefined ? rest : { ...rest, pageUrl });
}

function sourceOf(source: Json): Json {
  const filters = (source.filters as Json[] | undefined) ?? [];
  return sorted({ ...source, filters: filters.map(filterOf) });
}

/** One set of header changes: what Requestly's Headers rules hold (several sets are joined in order). */
function headerSet(sets: Json[]): Json {
  const joined: Json = {};
  for (const target of ['Request', 'Response']) {
    const changes = sets.flatMap((set) => (set[target] as Json[] | undefined) ?? []);
    if (changes.length > 0) joined[target] = changes.map((change) => sorted(withValue(change)));
  }
  return joined;
}

/**
 * A body pair's fields under `response` or `request`. Requestly's type has a Response's status code as a
 * string (ResponseRule.Pair), and no status code as an empty one, as its app writes it.
 */
function nestedBody(pair: Json, name: 'response' | 'request'): Json {
  const { id, source, ...body } = pair;
  const nested =
    name === 'response'
      ? { ...body, statusCode: body.statusCode === undefined ? '' : String(body.statusCode) }
      : body;
  return { ...(id === undefined ? {} : { id }), source, [name]: sorted(nested) };
}

function pairOf(ruleType: string, pair: Json): Json {
  const converted: Json = { ...pair, source: sourceOf(pair.source as Json) };
  if (ruleType === 'Headers') converted.modifications = headerSet(pair.modifications as Json[]);
  // Requestly's DelayRule.Pair declares the delay a string ("Legacy issue", its type says).
  if (ruleType === 'Delay') converted.delay = String(pair.delay);
  // A Remove All names no parameter here; Requestly's type requires `param` (its app writes "").
  if (ruleType === 'QueryParam')
    converted.modifications = (pair.modifications as Json[]).map((change) =>
      sorted(withValue(change.param === undefined ? { ...change, param: '' } : change)),
    );
  // Its ScriptRule type requires an id on each script; one stored without is given one, stable
  // (from its place in the pair), so that a file exported twice is the same file.
  if (ruleType === 'Script')
    converted.scripts = (pair.scripts as Json[]).map((script, index) =>
      sorted(script.id === undefined ? { ...script, id: `${index}${String(pair.id)}`.slice(0, 32) } : script),
    );
  if (ruleType === 'Response') return sorted(nestedBody(converted, 'response'));
  if (ruleType === 'Request') return sorted(nestedBody(converted, 'request'));
  return sorted(converted);
}

export function toRequestlyRule(rule: Rule): Json {
  return sorted({
    creationDate: rule.creationDate,
    createdBy: rule.createdBy,
    currentOwner: rule.currentOwner,
    description: rule.description ?? '',
    groupId: rule.groupId ?? '',
    id: rule.id,
    isFavourite: rule.isFavourite,
    isSample: false,
    lastModified: rule.modificationDate,
    lastModifiedBy: rule.lastModifiedBy,
    modificationDate: rule.modificationDate,
    name: rule.name,
    objectType: 'rule',
    pairs: (rule.pairs as Json[]).map((pair) => pairOf(rule.ruleType, pair)),
    ruleType: rule.ruleType,
    schemaVersion: schemaVersion(rule.ruleType),
    status: rule.status,
    ...(rule.ruleType === 'Headers' ? { version: 2 } : {}),
    // ScriptRule.Record's own; Requestly reads it absent as true, so it is written either way.
    ...(rule.ruleType === 'Script' ? { removeCSPHeader: rule.removeCSPHeader !== false } : {}),
  });
}

export function toRequestlyGroup(group: Group): Json {
  return sorted({
    children: [],
    creationDate: group.creationDate,
    createdBy: group.createdBy,
    currentOwner: group.currentOwnerId,
    description: '',
    id: group.id,
    isFavourite: group.isFavourite,
    lastModifiedBy: group.lastModifiedBy,
    modificationDate: group.modificationDate,
    name: group.name,
    objectType: 'group',
    status: group.status,
  });
}
