// The fidelity points in the engine: each case of the shared table on rules normalised as stored,
// the indexed fast path checked against the trace (except where values are random).
import { describe, expect, it } from 'vitest';
import {
  compileRuleSet,
  type EngineRule,
  type TraceResult,
  toEngineRequest,
} from '../../src/engine/index.js';
import { checkPairs, type RuleType } from '../../src/model/rule-types/index.js';
import { expectCase, FIDELITY_CASES, type FidelityCase, REFUSAL_CASES } from '../helpers/fidelity-cases.js';
import { run } from './engine-helpers.js';

function engineRules(bodies: Record<string, unknown>[]): EngineRule[] {
  return bodies.map((body, index) => {
    const checked = checkPairs(body.ruleType as RuleType, body.pairs as unknown[], { maxDelayMs: 10_000 });
    expect(checked.details).toEqual([]);
    return {
      id: `inline:${index}`,
      name: body.name as string,
      ruleType: body.ruleType as string,
      status: 'Active',
      pairs: checked.pairs,
    };
  });
}

const random = (c: FidelityCase) => JSON.stringify(c.rules).includes('rq_rand');

describe('fidelity to the rules people have, in the engine', () => {
  it.each(FIDELITY_CASES.map((c) => [c.title, c] as const))('%s', (_title, c) => {
    const rules = engineRules(c.rules);
    let trace: TraceResult;
    if (random(c)) {
      const request = toEngineRequest(c.request);
      if ('details' in request) throw new Error('invalid request');
      trace = compileRuleSet(rules).trace(request);
    } else trace = run(rules, c.request);
    expectCase(c, trace);
  });

  it.each(REFUSAL_CASES.map((c) => [c.title, c] as const))('refuses %s', (_title, c) => {
    const { details } = checkPairs(c.rule.ruleType as RuleType, c.rule.pairs as unknown[], {
      maxDelayMs: 10_000,
    });
    expect(details).toEqual([{ path: c.path, message: expect.stringMatching(c.message) }]);
  });

  it('has at least 60 cases', () => {
    expect(FIDELITY_CASES.length + REFUSAL_CASES.length).toBeGreaterThanOrEqual(60);
  });
});
