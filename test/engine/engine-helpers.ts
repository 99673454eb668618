// Shared by the engine's table tests: rule builders, and a runner that traces a request and checks
// that the indexed fast path (evaluate) says exactly what the full trace says.
import { expect } from 'vitest';
import {
  compileRuleSet,
  type EngineRule,
  type RequestInput,
  type TraceResult,
  toEngineRequest,
} from '../../src/engine/index.js';

export type Json = Record<string, unknown>;

export const src = (key: string, operator: string, value: string, filters?: Json[]): Json => ({
  key,
  operator,
  value,
  ...(filters ? { filters } : {}),
});

/** Any URL matches: for cases about filters and effects rather than sources. */
export const ANY = src('Url', 'Contains', '');

export function rule(
  id: string,
  ruleType: string,
  pairs: Json[],
  fields: Partial<EngineRule> = {},
): EngineRule {
  return { id, name: `rule ${id}`, ruleType, status: 'Active', pairs, ...fields };
}

export const cancel = (id: string, source: Json, fields?: Partial<EngineRule>) =>
  rule(id, 'Cancel', [{ source }], fields);
export const redirect = (id: string, source: Json, destination: string, destinationType = 'url') =>
  rule(id, 'Redirect', [{ source, destinationType, destination }]);
export const replace = (id: string, source: Json, from: string, to: string) =>
  rule(id, 'Replace', [{ source, from, to }]);
export const queryParam = (id: string, source: Json, modifications: Json[]) =>
  rule(id, 'QueryParam', [{ source, modifications }]);
export const headers = (id: string, source: Json, request: Json[], response: Json[] = []) =>
  rule(id, 'Headers', [{ source, modifications: [{ Request: request, Response: response }] }]);

/**
 * Traces `rules` on `input` and checks the fast path against it: the same outcome as a trace
 * without inactive rules, and `acted` exactly the rules whose verdict is acted, in order.
 */
export function run(rules: EngineRule[], input: RequestInput, includeInactive = false): TraceResult {
  const request = toEngineRequest(input);
  if ('details' in request) throw new Error(`invalid request: ${JSON.stringify(request.details)}`);
  const set = compileRuleSet(rules);
  const traced = set.trace(request, includeInactive);
  const plain = includeInactive ? set.trace(request) : traced;
  const fast = set.evaluate(request);
  expect(fast.outcome, 'evaluate and trace disagree on the outcome').toEqual(plain.outcome);
  expect(fast.acted, 'evaluate and trace disagree on the rules that acted').toEqual(
    plain.rules.filter((verdict) => verdict.reason === 'acted').map((verdict) => verdict.ruleId),
  );
  // Inactive rules are explained with includeInactive, and never change the outcome.
  expect(traced.outcome).toEqual(plain.outcome);
  return traced;
}

/** The verdict of one rule in a trace. */
export function verdict(trace: TraceResult, ruleId: string) {
  const found = trace.rules.find((r) => r.ruleId === ruleId);
  if (!found) throw new Error(`rule ${ruleId} is not in the trace`);
  return found;
}
