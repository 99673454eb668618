// Source and Filter, the matching condition every pair carries: schemas, input variants, regex check, pair id.
import { type Static, Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import type { PathMap } from '../path-map.js';
import { regexProblem } from '../patterns.js';
import { RESOURCE_TYPES } from '../resource-types.js';
import { isRecord, oneOf, patternString } from './schema-helpers.js';

export { RESOURCE_TYPES, type ResourceType } from '../resource-types.js';

export const PairId = Type.Optional(
  patternString('pairId', {
    description: 'Pair id: 1 to 32 letters or digits. Kept when sent, generated (5 characters) when not.',
    examples: ['a1b2c'],
  }),
);

const SOURCE_KEYS = ['Url', 'host', 'path'] as const;
// A Map, not an object literal: a key such as "__proto__" must not find Object.prototype.
const KEY_BY_LOWER_CASE = new Map(SOURCE_KEYS.map((key) => [key.toLowerCase(), key]));

const Operator = oneOf(['Equals', 'Contains', 'Matches', 'Wildcard_Matches'], {
  description: 'How `value` is compared. With `Matches`, `value` is a regular expression.',
  examples: ['Contains'],
});

const MatchValue = Type.String({
  maxLength: 8192,
  description:
    'What to compare with; empty allowed. With `Matches`: `/pattern/flags` or bare; flags `i`, `m`, `s` ' +
    'change what matches, `u` or `v` reads the pattern in Unicode mode, `d`, `g`, `y` change nothing.',
  examples: ['example.com', '/^https?:\\/\\/api\\./i'],
});

const UrlFilter = Type.Object(
  { operator: Operator, value: MatchValue },
  { additionalProperties: false, description: 'Condition on the URL of the page that sent the request.' },
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'CONNECT'] as const;

export const Filter = Type.Object(
  {
    requestMethod: Type.Optional(
      Type.Array(oneOf(METHODS), { description: 'HTTP methods to match.', examples: [['GET', 'POST']] }),
    ),
    resourceType: Type.Optional(
      Type.Array(oneOf(RESOURCE_TYPES), {
        description: 'Kinds of request to match.',
        examples: [['xmlhttprequest', 'script']],
      }),
    ),
    URL: Type.Optional(UrlFilter),
    pageDomains: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        description: 'Host names of the pages whose requests match.',
        examples: [['example.com']],
      }),
    ),
    requestPayload: Type.Optional(
      Type.Object(
        {
          key: Type.String({ description: 'Field of the request body.', examples: ['operationName'] }),
          value: Type.String({ description: 'Value that field must have.', examples: ['GetUser'] }),
          operator: Type.Optional(oneOf(['Equals', 'Contains'])),
        },
        { additionalProperties: false, description: 'Condition on the request body (e.g. GraphQL).' },
      ),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Narrows which requests the source matches.',
  },
);

export const Source = Type.Object(
  {
    key: oneOf(SOURCE_KEYS, {
      description: 'Which part of the request URL is compared.',
      examples: ['host'],
    }),
    operator: Operator,
    value: MatchValue,
    filters: Type.Optional(Type.Array(Filter, { description: 'Further conditions on the request.' })),
  },
  { additionalProperties: false, description: 'Which requests the pair applies to.' },
);

export type SourceValue = Static<typeof Source>;

/**
 * Decision 7: key in any letter case; filters as one object, null, or holding empty objects or nulls;
 * `pageUrl`; `requestType` ignored. Records in `paths` where each kept filter was sent.
 */
export function normaliseSource(source: unknown, paths?: PathMap): unknown {
  if (!isRecord(source)) return source;
  const { filters, requestType: _ignored, ...normalised } = source;
  if (typeof normalised.key === 'string') {
    normalised.key = KEY_BY_LOWER_CASE.get(normalised.key.toLowerCase()) ?? normalised.key;
  }
  if (!Object.hasOwn(source, 'filters')) return normalised;
  const single = isRecord(filters);
  const list = filters === null ? [] : single ? [filters] : filters;
  if (!Array.isArray(list)) return { ...normalised, filters };
  const kept: unknown[] = [];
  list.forEach((filter: unknown, index) => {
    if (filter === null || (isRecord(filter) && Object.keys(filter).length === 0)) return;
    const sent = single ? '/source/filters' : `/source/filters/${index}`;
    paths?.moved(`/source/filters/${kept.length}`, sent);
    kept.push(renamePageUrl(filter, `/source/filters/${kept.length}`, sent, paths));
  });
  return kept.length > 0 ? { ...normalised, filters: kept } : normalised;
}

/**
 * A page domain as it is compared: lower-case, without the leading `.` Requestly's users write for
 * "this domain and its subdomains" (which is what every domain means here).
 */
export function canonicalDomain(domain: string): string {
  return domain.toLowerCase().replace(/^\./, '');
}

/**
 * Requestly writes the page filter as `pageUrl`: read as `URL`, the contract's name, in its place
 * among the filter's fields. Page domains in their canonical spelling.
 */
function renamePageUrl(filter: unknown, at: string, sent: string, paths?: PathMap): unknown {
  if (!isRecord(filter)) return filter;
  let renamed = filter;
  if (Object.hasOwn(filter, 'pageUrl') && !Object.hasOwn(filter, 'URL')) {
    paths?.moved(`${at}/URL`, `${sent}/pageUrl`);
    renamed = Object.fromEntries(
      Object.entries(filter).map(([key, value]) => [key === 'pageUrl' ? 'URL' : key, value]),
    );
  }
  const domains = renamed.pageDomains;
  if (!Array.isArray(domains) || !domains.every((d) => typeof d === 'string' && canonicalDomain(d) !== '')) {
    return renamed;
  }
  return { ...renamed, pageDomains: domains.map(canonicalDomain) };
}

/**
 * A `Matches` value must compile with RE2 (linear time), here rather than at run time, where a bad rule
 * would never match and fail silently.
 */
export function checkSource(source: SourceValue): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const checkPattern = (operator: string, value: string, at: string) => {
    const problem = operator === 'Matches' ? regexProblem(value) : undefined;
    if (problem) details.push({ path: at, message: `regular expression cannot be used: ${problem}` });
  };
  checkPattern(source.operator, source.value, '/source/value');
  source.filters?.forEach((filter, index) => {
    if (filter.URL) checkPattern(filter.URL.operator, filter.URL.value, `/source/filters/${index}/URL/value`);
  });
  return details;
}
