// Examples every rule type shares, derived from one valid pair of the type: source errors and source variants.
import type { RuleTypeDefinition } from './rule-type.js';

type Examples = RuleTypeDefinition['examples'];
type Pair = Record<string, unknown>;

function withSource(pair: Pair, source: Pair): Pair {
  return { ...pair, source };
}

/** Invalid pairs any type must reject, each at the path its error must name. */
export function sourceInvalidExamples(valid: Pair): Examples['invalid'] {
  const source = valid.source as Pair;
  const { source: _source, ...withoutSource } = valid;
  const changed = (changes: Pair) => withSource(valid, { ...source, ...changes });
  const badUrlPattern = [{ URL: { operator: 'Matches', value: '[a-' } }];
  return [
    { title: 'source missing', pair: withoutSource, path: '/source' },
    { title: 'source key not allowed', pair: changed({ key: 'domain' }), path: '/source/key' },
    {
      title: 'source operator not allowed',
      pair: changed({ operator: 'StartsWith' }),
      path: '/source/operator',
    },
    { title: 'source value too long', pair: changed({ value: 'a'.repeat(8193) }), path: '/source/value' },
    {
      title: 'Matches pattern that does not compile',
      pair: changed({ operator: 'Matches', value: '/(unclosed/i' }),
      path: '/source/value',
    },
    {
      title: 'Matches pattern with a backreference (RE2 has none)',
      pair: changed({ operator: 'Matches', value: '/(a)\\1/' }),
      path: '/source/value',
    },
    {
      title: 'filter URL Matches pattern that does not compile',
      pair: changed({ filters: badUrlPattern }),
      path: '/source/filters/0/URL/value',
    },
    {
      title: 'filter request method not allowed',
      pair: changed({ filters: [{ requestMethod: ['GET', 'FETCH'] }] }),
      path: '/source/filters/0/requestMethod/1',
    },
    {
      title: 'unknown field in the source',
      pair: changed({ unknownField: 1 }),
      path: '/source/unknownField',
    },
    { title: 'unknown field in the pair', pair: { ...valid, unknownField: true }, path: '/unknownField' },
    { title: 'pair id not letters and digits', pair: { ...valid, id: 'pair-1' }, path: '/id' },
  ];
}

/** The source variants real Requestly clients send, applied to a valid pair (its filters, if any, are dropped first). */
export function sourceVariants(valid: Pair): Examples['variants'] {
  const { filters: _filters, ...source } = valid.source as Pair;
  const canonical = withSource(valid, source);
  const filter = { requestMethod: ['GET'] };
  const pageUrl = { operator: 'Contains', value: 'example.com' };
  return [
    {
      title: 'source key in another letter case',
      input: withSource(valid, { ...source, key: String(source.key).toUpperCase() }),
      canonical,
    },
    {
      title: 'filters as one object',
      input: withSource(valid, { ...source, filters: filter }),
      canonical: withSource(valid, { ...source, filters: [filter] }),
    },
    { title: 'filters null', input: withSource(valid, { ...source, filters: null }), canonical },
    {
      title: 'filters of empty objects only',
      input: withSource(valid, { ...source, filters: [{}] }),
      canonical,
    },
    {
      title: 'filters holding nulls, and a source requestType (ignored)',
      input: withSource(valid, { ...source, requestType: 'xmlhttprequest', filters: [null, filter, null] }),
      canonical: withSource(valid, { ...source, filters: [filter] }),
    },
    {
      title: 'filters with empty objects and a pageUrl',
      input: withSource(valid, { ...source, filters: [{}, { pageUrl }, {}] }),
      canonical: withSource(valid, { ...source, filters: [{ URL: pageUrl }] }),
    },
  ];
}
