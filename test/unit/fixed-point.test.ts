// The canonical form is a fixed point: a pair normalised once and normalised again gives the same
// bytes, key order included, for every rule type and whatever order and spelling the input came in
// (export, import, export yields identical files).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPairs, RULE_TYPES, ruleTypes } from '../../src/model/rule-types/index.js';

const ctx = { maxDelayMs: 10_000 };

/** `value` with the keys of every object in an order picked by `order` (the same order each time). */
function shuffled(value: unknown, order: number[]): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffled(item, order));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, item]) => [key, shuffled(item, order)] as const);
  const keyed = entries.map((entry, index) => ({ entry, rank: order[index % order.length] ?? 0 }));
  keyed.sort((a, b) => a.rank - b.rank);
  return Object.fromEntries(keyed.map(({ entry }) => entry));
}

/** Filters as Requestly writes them: a page URL filter as `pageUrl`, domains with a dot or capitals. */
const filter = fc.record(
  {
    pageUrl: fc.record({
      operator: fc.constantFrom('Contains', 'Equals'),
      value: fc.constantFrom('app', ''),
    }),
    pageDomains: fc.array(fc.constantFrom('.Example.com', 'example.com', 'A.b.ORG'), {
      minLength: 1,
      maxLength: 3,
    }),
    requestMethod: fc.constant(['GET']),
  },
  { requiredKeys: [] },
);

describe('normalisation is a fixed point', () => {
  for (const type of RULE_TYPES) {
    const { examples } = ruleTypes[type];
    const inputs = [...examples.valid.map((e) => e.pair), ...examples.variants.map((v) => v.input)];
    it(`${type}: normalised again gives the same bytes`, () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...inputs),
          fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 8 }),
          fc.option(filter, { nil: undefined }),
          (input, order, extra) => {
            const source = (input as { source?: Record<string, unknown> }).source;
            const withFilter =
              extra && source && Object.keys(extra).length > 0
                ? { ...input, source: { ...source, filters: [extra] } }
                : input;
            const sent = shuffled(withFilter, order);
            const once = checkPairs(type, [sent], ctx);
            if (once.details.length > 0) return; // only valid rules are stored and exported
            const twice = checkPairs(type, once.pairs, ctx);
            expect(twice.details).toEqual([]);
            expect(JSON.stringify(twice.pairs)).toBe(JSON.stringify(once.pairs));
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('a Response pair keeps statusCode where it is', () => {
    const pair = {
      source: { key: 'Url', operator: 'Contains', value: 'x' },
      type: 'static',
      statusCode: 201,
      value: '{}',
    };
    const [normalised] = checkPairs('Response', [pair], ctx).pairs;
    expect(Object.keys(normalised ?? {}).slice(0, 4)).toEqual(['source', 'type', 'statusCode', 'value']);
  });

  it('page domains are lower-cased without a leading dot; pageUrl becomes URL in its place', () => {
    const pair = {
      source: {
        key: 'Url',
        operator: 'Contains',
        value: 'x',
        filters: [
          { pageUrl: { operator: 'Contains', value: 'app' }, pageDomains: ['.Example.COM', 'a.org'] },
        ],
      },
    };
    const [normalised] = checkPairs('Cancel', [pair], ctx).pairs;
    expect(normalised?.source).toEqual({
      key: 'Url',
      operator: 'Contains',
      value: 'x',
      filters: [{ URL: { operator: 'Contains', value: 'app' }, pageDomains: ['example.com', 'a.org'] }],
    });
  });
});
