// Properties of the engine over generated rules and requests: it never throws, the indexed evaluate
// always agrees with the full trace, inactive rules never change the outcome, the literal the index
// files a regex under is in every text the regex matches, and patterns that backtrack exponentially
// in other engines answer correctly on 100,000-character inputs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EngineRule, type RequestInput, toEngineRequest } from '../../src/engine/index.js';
import { compileRegex, findMatch, requiredLiteral } from '../../src/engine/regex.js';
import { RULE_TYPES, ruleTypes } from '../../src/model/rule-types/index.js';
import { RESOURCE_TYPES } from '../../src/model/rule-types/source.js';
import { cancel, redirect, replace, run, src } from './engine-helpers.js';

/** Pieces of URLs and of patterns: sources built from them often match the generated URLs. */
const URL_PIECES = [
  'api',
  'shop',
  '.example.com',
  'example',
  ':8443',
  '/v1',
  '/users',
  '?id=7',
  '&x=1',
  '#top',
  'a',
  'b',
  '1',
];
const PATTERN_PIECES = [
  '*',
  '.',
  '?',
  '+',
  '(',
  ')',
  '(?:',
  '|',
  '^',
  '$',
  '\\d',
  '\\d{1,10}',
  '{2}',
  '[a-z]',
  '[[:alpha:]]',
  '\\pN',
  '\\p{Latin}',
  '\\x61',
  '\\141',
  '\\Q',
  '\\E',
  '(?i)',
  '(?si)',
  '(a+)+$',
  '\\1',
  '(?=a)',
  '$1',
  '${2}',
  '$$',
  '\\',
];
const text = (pieces: string[], maxLength = 5) =>
  fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(''));
/** Values that often match the generated URLs, for every operator. */
const LIKELY = [
  '',
  'example',
  'api',
  '/v1',
  'shop',
  'users',
  '*',
  '*example*',
  '*://*/*',
  '*/v1*',
  '.*',
  '/^https?:/',
  '(\\w+)\\.example',
  '/(V1)/i',
  '[a-z]+',
  '/(a)?(b)?/',
  'example\\.com\\/',
];
const value = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...LIKELY) },
  { weight: 2, arbitrary: text(URL_PIECES, 2) },
  { weight: 2, arbitrary: text([...URL_PIECES, ...PATTERN_PIECES], 3) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);
const operator = fc.constantFrom('Equals', 'Contains', 'Matches', 'Wildcard_Matches');

const filter = fc
  .record(
    {
      requestMethod: fc.subarray(['GET', 'POST', 'PUT'], { minLength: 1 }),
      resourceType: fc.subarray([...RESOURCE_TYPES], { minLength: 1 }),
      URL: fc.record({ operator, value }),
      pageDomains: fc.subarray(['example.com', 'shop.example.com', 'example.org'], { minLength: 1 }),
      requestPayload: fc.record({
        key: fc.constantFrom('a', 'a.b', 'items.0'),
        value: fc.constantFrom('1', 'x', 'true'),
      }),
    },
    { requiredKeys: [] },
  )
  .filter((f) => Object.keys(f).length > 0);

const source = fc
  .record({
    key: fc.constantFrom('Url', 'host', 'path'),
    operator,
    value,
    // Mostly none: a filter fails more often than not.
    filters: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      fc.array(filter, { minLength: 1, maxLength: 2 }),
    ),
  })
  .map(({ filters, ...rest }) => (filters.length > 0 ? { ...rest, filters } : rest));

/** A pair of the type as its examples write it, with a generated source (and URL-changing fields). */
const pair = (ruleType: (typeof RULE_TYPES)[number]) =>
  fc
    .record({
      example: fc.constantFrom(...ruleTypes[ruleType].examples.valid.map((e) => e.pair)),
      source,
      destination: fc.oneof(text([...URL_PIECES, ...PATTERN_PIECES, 'https://', 'file:', ' ']), fc.string()),
      destinationType: fc.constantFrom('url', 'map_local', 'mock_or_file_picker'),
      from: fc.oneof(
        text(URL_PIECES),
        text([...URL_PIECES, ...PATTERN_PIECES]).map((p) => `/${p}/g`),
        fc.string({ minLength: 1 }),
      ),
      to: fc.oneof(text([...URL_PIECES, ...PATTERN_PIECES]), fc.string()),
    })
    .map(({ example, source, destination, destinationType, from, to }) => ({
      ...example,
      source,
      ...(ruleType === 'Redirect' ? { destination, destinationType } : {}),
      ...(ruleType === 'Replace' ? { from, to } : {}),
    }));

const rule = fc.constantFrom(...RULE_TYPES).chain((ruleType) =>
  fc.record({
    ruleType: fc.constant(ruleType),
    pairs: fc.array(pair(ruleType), { minLength: 1, maxLength: 3 }),
    status: fc.constantFrom('Active', 'Active', 'Active', 'Inactive'),
    groupStatus: fc.constantFrom(undefined, 'Active', 'Inactive'),
  }),
);
const rules = fc.array(rule, { maxLength: 10 }).map((list) =>
  list.map(
    ({ groupStatus, ...r }, i): EngineRule => ({
      ...r,
      id: `${r.ruleType}_${i}`,
      name: `rule ${i}`,
      ...(groupStatus ? { groupStatus } : {}),
    }),
  ),
);

const request: fc.Arbitrary<RequestInput> = fc.record(
  {
    url: fc
      .tuple(
        fc.constantFrom('http://', 'https://', 'ws://', 'wss://', 'HTTPS://'),
        fc.constantFrom(
          'api.example.com',
          'shop.example.com',
          'api.example.com:8443',
          'Example.com',
          '127.0.0.1:80',
        ),
        fc.oneof(
          fc.constantFrom('v1/users?id=7#top', 'a/b', '', 'v1/ab?x=1&x=2'),
          text([...URL_PIECES, ...PATTERN_PIECES, ' ', '%', '$']),
        ),
      )
      .map(([scheme, host, rest]) => `${scheme}${host}/${rest}`),
    method: fc.constantFrom('GET', 'post', 'PUT'),
    resourceType: fc.constantFrom(...RESOURCE_TYPES),
    pageUrl: fc.constantFrom(
      'https://shop.example.com/cart',
      'https://notexample.com/',
      'HTTPS://Example.COM',
    ),
    headers: fc.dictionary(
      fc.constantFrom('Accept', 'User-Agent', 'x-a', 'X-A'),
      fc.string({ maxLength: 5 }),
    ),
    body: fc.constantFrom('{"a":{"b":1},"items":["x"]}', '{"a":true}', 'not json', ''),
  },
  { requiredKeys: ['url'] },
);

describe('engine properties', () => {
  it('never throws; evaluate agrees with trace; inactive rules never change the outcome', () => {
    fc.assert(
      fc.property(rules, request, (list, input) => {
        const traced = run(list, input, true); // run() compares evaluate with trace
        const active = list.filter((r) => r.status === 'Active' && r.groupStatus !== 'Inactive');
        expect(traced.rules.map((r) => r.ruleId)).toEqual(list.map((r) => r.id));
        expect(run(active, input).outcome).toEqual(traced.outcome);
        for (const verdict of traced.rules) {
          const inactive = verdict.reason === 'inactive' || verdict.reason === 'group_inactive';
          expect(inactive).toBe(!active.some((r) => r.id === verdict.ruleId));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a regex never matches text without the literal the index files it under', () => {
    const pattern = text(PATTERN_PIECES.concat(['a', 'b', 'ab', 'abc', 'A', '1', '-']));
    const subject = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'A', '1', '-', '/', '.'),
      maxLength: 16,
    });
    fc.assert(
      fc.property(pattern, fc.constantFrom('', 'i', 's', 'm'), subject, (body, flags, input) => {
        const written = flags ? `/${body}/${flags}` : body;
        const compiled = compileRegex(written);
        const literal = requiredLiteral(written);
        if (compiled.ok && literal !== undefined && findMatch(compiled.regex, input) !== undefined) {
          expect(input).toContain(literal);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the literal of a regex is found for plain text patterns (the index is used)', () => {
    expect(requiredLiteral('/api\\.example\\.com\\/v1/')).toBe('api.example.com/v1');
    expect(requiredLiteral('^https://shop\\.')).toBe('https://shop.');
  });
});

describe('linear time on long inputs', () => {
  const A = 'a'.repeat(100_000);
  const url = (path: string) => `https://example.com/${path}`;
  it.each([
    ['(a+)+$ against a…ab', '(a+)+$', `${A}b`, false],
    ['(a+)+$ against a…a', '(a+)+$', A, true],
    ['(a|aa)+$ against a…ab', '/(a|aa)+$/', `${A}b`, false],
    ['(a*)*b against a…a', '(a*)*b', A, false],
    ['(.*a){20} against a…a', '(.*a){20}', A, true],
    ['^(\\w+\\s?)*$ against a…a!', '^/(\\w+\\s?)*$', `${A}!`, false],
    ['(x+x+)+y against x…x', '(x+x+)+y', 'x'.repeat(100_000), false],
  ])('%s', (_title, pattern, path, matched) => {
    expect(run([cancel('c', src('path', 'Matches', pattern))], { url: url(path) }).outcome.cancelled).toBe(
      matched,
    );
  });

  it('wildcards with many stars against a…a', () => {
    const stars = src('path', 'Wildcard_Matches', '/*a*a*a*a*a*a*a*a*b');
    expect(run([cancel('c', stars)], { url: url(A) }).outcome.cancelled).toBe(false);
    expect(run([cancel('c', stars)], { url: url(`${A}b`) }).outcome.cancelled).toBe(true);
  });

  it('a global Replace and a Redirect with captures on a long URL', () => {
    const replaced = run([replace('p', src('path', 'Matches', '^/(a+)$'), '/aa/g', 'b')], { url: url(A) });
    expect(replaced.outcome.url).toBe(url('b'.repeat(50_000)));
    const redirected = run(
      [redirect('r', src('path', 'Wildcard_Matches', '/*'), 'https://mirror.example.net/$1')],
      {
        url: url(A),
      },
    );
    expect(redirected.outcome.url).toBe(`https://mirror.example.net/${A}`);
  });
});

describe('toEngineRequest', () => {
  it('never throws on any string URL, page URL or method', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        (url, pageUrl, method) => {
          const result = toEngineRequest({ url, method, ...(pageUrl === undefined ? {} : { pageUrl }) });
          if (!('details' in result)) expect(result.url).toMatch(/^(https?|wss?):\/\//);
        },
      ),
    );
  });
});
