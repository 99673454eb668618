// fast-check arbitraries for whole requests of the fuzz suite: bodies that are not JSON, content types,
// list queries (percent-encoded or raw).
import fc from 'fast-check';
import { oddString } from './fuzz-arbitraries.js';

/** Text that is not a JSON object: garbage, truncated or decorated JSON, JSON5-isms, BOMs, nothing. */
export const nonJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.tuple(fc.json(), fc.nat()).map(([json, cut]) => json.slice(0, cut % (json.length + 1))),
  fc.tuple(fc.json(), oddString).map(([json, tail]) => json + tail),
  // biome-ignore format: a list of odd values reads best as a block
  fc.constantFrom('', ' ', '\ufeff{"name":"x"}', "{'name':'x'}", '{name:"x"}', '{"name":"x",}', '{"a":NaN}', '[1,]',
    '{"a":1}/*c*/', '\u0000', 'null', 'undefined'),
);

export const jsonContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
);

export const otherContentType = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'text/json',
  'application/xml',
);

/** `s` with lone surrogates replaced (they cannot be percent-encoded). */
export function wellFormed(s: string): string {
  return s.replace(/\p{Surrogate}/gu, '\ufffd');
}

const QUERY_KEYS = ['offset', 'pageSize', 'status', 'ruleType', 'groupId', 'search'];
// biome-ignore format: a list of odd values reads best as a block
const QUERY_VALUES = ['0', '1', '-1', '1000', '1001', '1e3', '0x10', ' 1', '99999999999', 'Active', 'Inactive', 'Redirect', ''];

/** One query parameter: its key and value, and whether both were percent-encoded (else sent raw). */
export type QueryPart = { key: string; value: string; encoded: boolean };

export const listQuery: fc.Arbitrary<QueryPart[]> = fc.array(
  fc.record({
    key: fc.oneof(
      fc.constantFrom(...QUERY_KEYS),
      oddString.map((s) => s.slice(0, 50)),
    ),
    value: fc.oneof(
      fc.constantFrom(...QUERY_VALUES),
      oddString.map((s) => s.slice(0, 300)),
    ),
    encoded: fc.boolean(),
  }),
  { maxLength: 5 },
);

/** The query text; raw parts keep only printable ASCII other than '#' so the URL stays one request. */
export function queryText(parts: QueryPart[]): string {
  const raw = (s: string) => s.replace(/[^\x21-\x7e]|#/g, '');
  const encode = (s: string) => encodeURIComponent(wellFormed(s));
  return parts
    .map(({ key, value, encoded }) =>
      encoded ? `${encode(key)}=${encode(value)}` : `${raw(key)}=${raw(value)}`,
    )
    .join('&');
}
