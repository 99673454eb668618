// Requestly's pre-2018 record formats, converted to today's before the normal checks (an import's
// records and a trace's unsaved rules alike). Values inside a parsed record are plain JSON, so a plain
// object is a record (isRecord); only a whole body can be a MalformedBody.

import { PathMap } from './path-map.js';
import { isRecord } from './rule-types/schema-helpers.js';
import { canonicalDomain } from './rule-types/source.js';

type Json = Record<string, unknown>;

export interface Converted {
  record: Json;
  /** What was converted, for the record's report. */
  warnings: string[];
  /** Where the converted fields were in the record as sent. */
  paths: PathMap;
}

/** Today's shape of a record of an older format; other records are returned as they are. */
export function convertOlderFormats(record: Json): Converted {
  const paths = new PathMap();
  const warnings: string[] = [];
  let converted = record;
  if (record.ruleType === 'Headers' && Array.isArray(record.pairs)) {
    const flat = record.pairs
      .map((pair, index) => (isFlatHeaderPair(pair) ? index : -1))
      .filter((i) => i >= 0);
    if (flat.length > 0) {
      converted = { ...record, pairs: record.pairs.map((pair, index) => headerPair(pair, index, paths)) };
      warnings.push(
        `converted from the older Headers format: pair${flat.length === 1 ? '' : 's'} ${flat.join(', ')} ` +
          '(header, target, type, value) now hold modifications',
      );
    }
  }
  const source = record.source;
  if (record.ruleType === 'Redirect' && !Object.hasOwn(record, 'pairs') && isRecord(source)) {
    if (Array.isArray(source.values)) {
      converted = redirectRecord(record, source, source.values, paths);
      warnings.push(
        `converted from the older Redirect format: source.values became ${source.values.length} ` +
          `pair${source.values.length === 1 ? '' : 's'}`,
      );
    }
  }
  const domains = respelledDomains(converted);
  if (domains.length > 0) {
    warnings.push(
      `page domains read as ${domains.map(([from, to]) => `${JSON.stringify(to)} (written ${JSON.stringify(from)})`).join(', ')}: ` +
        'a domain always covers its subdomains',
    );
  }
  return { record: converted, warnings, paths };
}

/** Page domains written with a leading `.` or capitals, which the rule's normal form respells. */
function respelledDomains(record: Json): [string, string][] {
  const found: [string, string][] = [];
  if (!Array.isArray(record.pairs)) return found;
  for (const pair of record.pairs) {
    const source = isRecord(pair) ? pair.source : undefined;
    const filters = isRecord(source) ? source.filters : undefined;
    for (const filter of Array.isArray(filters) ? filters : [filters]) {
      const domains = isRecord(filter) ? filter.pageDomains : undefined;
      if (!Array.isArray(domains)) continue;
      for (const domain of domains) {
        if (
          typeof domain === 'string' &&
          canonicalDomain(domain) !== domain &&
          canonicalDomain(domain) !== ''
        )
          found.push([domain, canonicalDomain(domain)]);
      }
    }
  }
  return found;
}

/** `{source, header, target, type, value}`: one header change per pair, before modifications existed. */
function isFlatHeaderPair(pair: unknown): pair is Json {
  return (
    isRecord(pair) &&
    !Object.hasOwn(pair, 'modifications') &&
    (pair.target === 'Request' || pair.target === 'Response') &&
    Object.hasOwn(pair, 'header')
  );
}

function headerPair(pair: unknown, index: number, paths: PathMap): unknown {
  if (!isFlatHeaderPair(pair)) return pair;
  const { header, target, type, value, ...rest } = pair;
  const at = `/pairs/${index}`;
  const set = `${at}/modifications/0/${target}`;
  paths.moved(`${at}/modifications`, at);
  paths.moved(set, `${at}/target`);
  for (const field of ['header', 'type', 'value']) paths.moved(`${set}/0/${field}`, `${at}/${field}`);
  // Older files carry `value: ""` on removals, which means no value.
  const keepValue = value !== undefined && !(type === 'Remove' && value === '');
  const modification = { header, type, ...(keepValue ? { value } : {}) };
  return { ...rest, modifications: [{ [target as string]: [modification] }] };
}

/** `{source: {key, operator, values}, destination}`: one pair per value, all to the same destination. */
function redirectRecord(record: Json, source: Json, values: unknown[], paths: PathMap): Json {
  const { source: _source, destination, ...rest } = record;
  const { values: _values, ...common } = source;
  paths.moved('/pairs', '/source/values');
  const pairs = values.map((value, index) => {
    paths.moved(`/pairs/${index}/source/value`, `/source/values/${index}`);
    paths.moved(`/pairs/${index}/source`, '/source');
    paths.moved(`/pairs/${index}/destination`, '/destination');
    return { source: { ...common, value }, destination, destinationType: 'url' };
  });
  return { ...rest, pairs };
}
