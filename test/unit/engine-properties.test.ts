// Properties of the rule engine over generated rules and requests: it never throws, the indexed fast
// path always agrees with the full trace, and patterns that backtrack exponentially elsewhere stay linear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRuleSet, type EngineRule, toEngineRequest } from '../../src/engine/index.js';
import { RULE_TYPES, ruleTypes } from '../../src/modules/rules/rule-types/index.js';

const hosts = ['api.example.com', 'shop.example.com', 'cdn.example.net', 'a.b.example.com:8443'];
const pieces = [
  'api',
  'shop',
  'example',
  '.com',
  '/v1',
  '/users',
  'x=1',
  '*',
  '(a+)+$',
  '\\d+',
  '[a-z]',
  '?',
  '.',
];

const text = fc.array(fc.constantFrom(...pieces, ...hosts), { maxLength: 4 }).map((parts) => parts.join(''));
const source = fc.record({
  key: fc.constantFrom('Url', 'host', 'path'),
  operator: fc.constantFrom('Equals', 'Contains', 'Matches', 'Wildcard_Matches'),
  value: fc.oneof(text, fc.string({ maxLength: 12 })),
});

/** A valid pair of a type with a generated source (examples give the rest of the pair). */
const rule = fc
  .record({
    ruleType: fc.constantFrom(...RULE_TYPES),
    example: fc.nat(),
    sources: fc.array(source, { minLength: 1, maxLength: 3 }),
    status: fc.constantFrom('Active', 'Active', 'Inactive'),
    groupStatus: fc.constantFrom(undefined, 'Active', 'Inactive'),
  })
  .map(({ ruleType, example, sources, status, groupStatus }): Omit<EngineRule, 'id'> => {
    const valid = ruleTypes[ruleType].examples.valid;
    const base = valid[example % valid.length]?.pair as Record<string, unknown>;
    return {
      name: ruleType,
      ruleType,
      status,
      ...(groupStatus ? { groupStatus } : {}),
      pairs: sources.map((s) => ({ ...base, source: s })),
    };
  });
const rules = fc
  .array(rule, { maxLength: 12 })
  .map((list) => list.map((r, i): EngineRule => ({ ...r, id: `${r.ruleType}_${i}` })));

const request = fc.record({
  url: fc.oneof(
    fc
      .tuple(
        fc.constantFrom('http', 'https', 'ws'),
        fc.constantFrom(...hosts),
        text,
        fc.string({ maxLength: 8 }),
      )
      .map(([scheme, host, path, query]) => `${scheme}://${host}/${path}?${query}`),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
  ),
  method: fc.constantFrom('GET', 'POST', 'delete'),
  resourceType: fc.constantFrom(undefined, 'main_frame', 'script', 'xmlhttprequest'),
  pageUrl: fc.constantFrom(undefined, 'https://shop.example.com/cart'),
  body: fc.constantFrom(undefined, '{"operationName":"GetUser"}', 'not json'),
});

describe('the engine over generated rules and requests', () => {
  it('never throws, and the indexed fast path agrees with the full trace', () => {
    fc.assert(
      fc.property(rules, request, (list, input) => {
        const parsed = toEngineRequest({
          url: input.url,
          method: input.method,
          ...(input.resourceType ? { resourceType: input.resourceType as never } : {}),
          ...(input.pageUrl ? { pageUrl: input.pageUrl } : {}),
          ...(input.body ? { body: input.body } : {}),
        });
        if ('details' in parsed) return;
        const set = compileRuleSet(list);
        const traced = set.trace(parsed);
        const fast = set.evaluate(parsed);
        expect(fast.outcome).toEqual(traced.outcome);
        expect(fast.acted).toEqual(traced.rules.filter((r) => r.acted).map((r) => r.ruleId));
        expect(set.trace(parsed, true).outcome).toEqual(traced.outcome);
      }),
      { numRuns: 1500 },
    );
  });

  it.each(['(a+)+$', '(a|a)+$', '(a*)*b', '^(a|aa)+$', '(.*a){12}'])(
    'answers %s on 100,000 characters (RE2: linear, no backtracking)',
    (pattern) => {
      const set = compileRuleSet([
        {
          id: 'Cancel_1',
          name: 'c',
          ruleType: 'Cancel',
          status: 'Active',
          pairs: [{ source: { key: 'path', operator: 'Matches', value: pattern } }],
        },
      ]);
      const request = toEngineRequest({ url: `https://x.example/${'a'.repeat(100_000)}!` });
      if ('details' in request) throw new Error('bad request');
      const expected = new RegExp(pattern).test(`/${'a'.repeat(20)}!`);
      expect(set.evaluate(request).outcome.cancelled).toBe(expected);
    },
  );
});
