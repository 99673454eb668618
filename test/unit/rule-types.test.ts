// Every rule type's own examples, run through checkPairs, plus the cases that cut across types.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPairs, RULE_TYPES, ruleTypes } from '../../src/model/rule-types/index.js';
import { MAX_DETAILS } from '../../src/validation.js';

const ctx = { maxDelayMs: 60000 };
const source = { key: 'Url', operator: 'Contains', value: 'example.com' };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe.each(RULE_TYPES)('%s', (ruleType) => {
  const { name, examples, normalise } = ruleTypes[ruleType];

  it('is listed under its own name, with enough examples', () => {
    expect(name).toBe(ruleType);
    expect(examples.valid.length).toBeGreaterThanOrEqual(2);
    expect(examples.invalid.length).toBeGreaterThanOrEqual(3);
  });

  it.each(examples.valid)('accepts $title unchanged', ({ pair }) => {
    expect(checkPairs(ruleType, [pair], ctx)).toEqual({ pairs: [pair], details: [] });
  });

  // Exactly one detail: each example breaks one thing, and nothing else may add noise.
  it.each(examples.invalid)('rejects $title at $path', ({ pair, path }) => {
    const { details } = checkPairs(ruleType, [pair], ctx);
    expect(details).toEqual([{ path: `/pairs/0${path}`, message: expect.stringMatching(/\w/) }]);
  });

  it.each(examples.variants)('normalises $title', ({ input, canonical }) => {
    expect(normalise(input)).toEqual(canonical);
    expect(normalise(canonical)).toEqual(canonical);
    expect(checkPairs(ruleType, [input], ctx)).toEqual({ pairs: [canonical], details: [] });
  });

  it('never throws on arbitrary JSON, bare or as a pair field', () => {
    const field = fc.record({ key: fc.string(), value: fc.jsonValue() });
    fc.assert(
      fc.property(fc.jsonValue(), field, (json, { key, value }) => {
        const result = checkPairs(ruleType, [json, { source, [key]: value }, { source: json }], ctx);
        expect(Array.isArray(result.details)).toBe(true);
      }),
    );
  });
});

describe('checkPairs', () => {
  it('reports a pair that is not an object once, at the pair', () => {
    const { pairs, details } = checkPairs('Cancel', [{ source }, null, [], 7, 'x', { source }], ctx);
    expect(details).toEqual([1, 2, 3, 4].map((i) => ({ path: `/pairs/${i}`, message: 'must be an object' })));
    expect(pairs).toEqual([{ source }, {}, {}, {}, {}, { source }]);
  });

  it('reports a __proto__ or constructor key as an unknown field, without polluting prototypes', () => {
    const pair = JSON.parse(
      `{"source":${JSON.stringify(source)},"__proto__":{"polluted":1},"constructor":{}}`,
    );
    const { details } = checkPairs('Cancel', [pair], ctx);
    expect(details).toEqual([
      { path: '/pairs/0/__proto__', message: 'unknown field "__proto__"' },
      { path: '/pairs/0/constructor', message: 'unknown field "constructor"' },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names the allowed values, a missing field and an unknown field, once per location', () => {
    const pair = { source: { ...source, operator: 'Is' }, from: 'x', foo: 1 };
    expect(checkPairs('Replace', [pair], ctx).details).toEqual([
      { path: '/pairs/0/to', message: 'required field missing' },
      { path: '/pairs/0/foo', message: 'unknown field "foo"' },
      {
        path: '/pairs/0/source/operator',
        message: 'must be one of Equals, Contains, Matches, Wildcard_Matches',
      },
    ]);
  });

  it('says why a Matches pattern does not compile', () => {
    const pair = { source: { ...source, operator: 'Matches', value: '/a(/' } };
    const [detail] = checkPairs('Cancel', [pair], ctx).details;
    expect(detail?.path).toBe('/pairs/0/source/value');
    // JavaScript's own reading of the text says what is wrong with it.
    expect(detail?.message).toBe('regular expression cannot be used: Unterminated group');
  });

  it.each([
    ['/(a)\\1/', /^regular expression cannot be used: backreference \\1 at 4 cannot be run in linear time$/],
    ['(?<year>\\d+)-\\k<year>', /backreference \\k<year> at 13 cannot be run in linear time/],
    ['/foo(?=bar)/', /lookahead \(\?=…\) at 4 cannot be run in linear time/],
    ['/(?<!x)y/i', /negative lookbehind \(\?<!…\) at 1 cannot be run in linear time/],
  ])('refuses %s, which RE2 cannot run, naming the construct', (value, message) => {
    const pair = { source: { ...source, operator: 'Matches', value } };
    const [detail] = checkPairs('Cancel', [pair], ctx).details;
    expect(detail).toEqual({ path: '/pairs/0/source/value', message: expect.stringMatching(message) });
  });

  it('accepts Matches patterns bare or with flags', () => {
    const values = ['^https?://', '/^api\\./gi', '/static/app/1', '/a/', '/a/dgimsuy', '[\\d.-\\w]+'];
    const pairs = values.map((value) => ({ source: { ...source, operator: 'Matches', value } }));
    expect(checkPairs('Cancel', pairs, ctx).details).toEqual([]);
  });

  it('refuses /pattern/ followed by letters that are not all flags, never reading it as bare', () => {
    const values = ['/static/app', '/a/x', '/a/gg'];
    const pairs = values.map((value) => ({ source: { ...source, operator: 'Matches', value } }));
    expect(checkPairs('Cancel', pairs, ctx).details).toEqual([
      { path: '/pairs/0/source/value', message: expect.stringMatching(/unknown flags a, p \(flags are/) },
      { path: '/pairs/1/source/value', message: expect.stringMatching(/unknown flag x /) },
      { path: '/pairs/2/source/value', message: 'regular expression cannot be used: flag g is given twice' },
    ]);
  });

  it('holds Delay to the configured maximum', () => {
    const pair = { source, delay: 5000 };
    expect(checkPairs('Delay', [pair], { maxDelayMs: 1000 }).details).toEqual([
      { path: '/pairs/0/delay', message: 'must be at most 1000 (milliseconds)' },
    ]);
    expect(checkPairs('Delay', [pair], { maxDelayMs: 5000 }).details).toEqual([]);
  });

  it('reports every error of every pair together', () => {
    const pairs = [
      { source, delay: -1 },
      { source },
      { source: { ...source, key: 'domain' }, delay: 10, extra: true },
    ];
    expect(checkPairs('Delay', pairs, ctx).details.map((detail) => detail.path)).toEqual([
      '/pairs/0/delay',
      '/pairs/1/delay',
      '/pairs/2/extra',
      '/pairs/2/source/key',
    ]);
  });

  it('escapes unknown field names in paths and bounds them in messages', () => {
    const long = 'k'.repeat(10000);
    const { details } = checkPairs('Cancel', [{ source, 'a/b~c': 1, [long]: 2 }], ctx);
    expect(details[0]).toEqual({ path: '/pairs/0/a~1b~0c', message: 'unknown field "a/b~c"' });
    expect(details[1]?.path).toBe(`/pairs/0/${long}`);
    expect(details[1]?.message.length).toBeLessThan(100);
  });

  it('survives deep nesting and many unknown fields', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100000; i += 1) deep = [deep];
    const many = Object.fromEntries(Array.from({ length: 200000 }, (_, i) => [`f${i}`, i]));
    const pairs = [
      { source: { ...source, filters: deep } },
      { source, ...many },
      { source: { ...source, value: deep } },
    ];
    const { details } = checkPairs('Cancel', pairs, ctx);
    // Each pair reports at most MAX_DETAILS problems: the first ones, without computing the rest.
    expect(details).toHaveLength(1 + MAX_DETAILS + 1);
    expect(details[1]).toEqual({ path: '/pairs/1/f0', message: 'unknown field "f0"' });
  });

  it('does not mutate its input', () => {
    const input = deepFreeze([
      {
        source: { key: 'HOST', operator: 'Equals', value: 'a.com', filters: [{}, { pageUrl: source }] },
        delay: '9',
      },
      { source: { ...source, filters: null }, delay: 'x' },
    ]);
    const snapshot = structuredClone(input);
    const { pairs } = checkPairs('Delay', input, ctx);
    expect(input).toEqual(snapshot);
    expect(pairs[0]).toEqual({
      source: { key: 'host', operator: 'Equals', value: 'a.com', filters: [{ URL: source }] },
      delay: 9,
    });
  });

  it('rejects a header name that is not an HTTP token, with a message that says so, where it was sent', () => {
    const pair = { source, modifications: { Request: [{ header: 'Bad:Name', type: 'Remove' }] } };
    expect(checkPairs('Headers', [pair], ctx).details).toEqual([
      {
        path: '/pairs/0/modifications/Request/0/header',
        message:
          "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only, or {{NAME}} of a variable",
      },
    ]);
    // A variable may stand in a name (decisions §20); braces that are not a reference may not.
    const named = (header: string) => ({ source, modifications: { Request: [{ header, type: 'Remove' }] } });
    expect(checkPairs('Headers', [named('X-{{TENANT}}-Id')], ctx).details).toEqual([]);
    expect(checkPairs('Headers', [named('X-{{ TENANT }}')], ctx).details).toHaveLength(1);
    expect(checkPairs('Headers', [named('X-{TENANT}')], ctx).details).toHaveLength(1);
  });
});
