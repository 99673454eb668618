// Our groups and rules in the shapes Requestly's app stores, so that Requestly itself can take an
// export back: Headers `modifications` as one object, Response and Request bodies nested under
// `response` and `request`, page URL filters as `pageUrl`, and the bookkeeping fields its records
// carry. Keys in the order its exports write them (alphabetical), so that such a file is stable too.
// Importing one gives back the same rules (the import reads all of these shapes).
import type { Group } from './group.js';
import type { Rule } from './rule.js';

type Json = Record<string, unknown>;

/** Requestly's rule records say which version of its schema wrote them. */
const SCHEMA_VERSION = '3.0.0';

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
    if (changes.length > 0) joined[target] = changes.map(sorted);
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
    isSample: false,
    lastModified: rule.modificationDate,
    lastModifiedBy: rule.lastModifiedBy,
    modificationDate: rule.modificationDate,
    name: rule.name,
    objectType: 'rule',
    pairs: (rule.pairs as Json[]).map((pair) => pairOf(rule.ruleType, pair)),
    ruleType: rule.ruleType,
    schemaVersion: SCHEMA_VERSION,
    status: rule.status,
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
