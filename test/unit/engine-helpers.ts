// Shared by the engine's table tests: rule builders, a runner that traces a request and checks that
// the indexed fast path (evaluate) says exactly what the full trace says, and the checks of a table row.
import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';
import { expect } from 'vitest';
import {
  compileRuleSet,
  type EngineRule,
  type Outcome,
  type Reason,
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
 * With TABLE_CASES_FILE set, every case the tables run is also written there, a JSON line each: the
 * browser parity test (test/system/dnr-parity.test.ts) asks Chromium the same questions.
 */
function recordCase(rules: EngineRule[], request: RequestInput): void {
  const file = process.env.TABLE_CASES_FILE;
  if (!file) return;
  const { currentTestName, testPath } = expect.getState();
  const table = basename(testPath ?? '').replace(/\.test\.ts$/, '');
  appendFileSync(file, `${JSON.stringify({ table, title: currentTestName, rules, request })}\n`);
}

/**
 * Traces `rules` on `input` and checks the fast path against it: the same outcome as a trace
 * without inactive rules, and `acted` exactly the rules whose verdict is acted, in order.
 */
export function run(rules: EngineRule[], input: RequestInput, includeInactive = false): TraceResult {
  recordCase(rules, input);
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
  // Tracing only the rules that acted explains them exactly as the full trace does.
  expect(set.traceActed(request), 'traceActed and trace disagree').toEqual({
    outcome: plain.outcome,
    rules: plain.rules.filter((verdict) => verdict.reason === 'acted'),
  });
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

export const userAgent = (id: string, source: Json, value: string) =>
  rule(id, 'UserAgent', [{ source, userAgent: value }]);
export const delay = (id: string, source: Json, ms: number) => rule(id, 'Delay', [{ source, delay: ms }]);
export const body = (id: string, source: Json, type: string, value: string) =>
  rule(id, 'Request', [{ source, type, value }]);
export const respond = (id: string, source: Json, fields: Json) =>
  rule(id, 'Response', [{ source, ...fields }]);
export const JS = { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'window.a = 1' };
export const script = (id: string, source: Json, scripts: Json[] = [JS], fields?: Partial<EngineRule>) =>
  rule(id, 'Script', [{ source, scripts }], fields);

/** The request of the matching tables: every part of a URL differs from the others. */
export const API = 'https://api.example.com:8443/v1/users?id=7#top';

/** `expected`: false (no match), true (a match), or the captures of a match. */
export type MatchCase = [
  title: string,
  source: Json,
  request: string | RequestInput,
  expected: boolean | string[],
];

/** One Cancel rule with `source`: whether its pair matched (and with which captures). */
export function checkMatch(source: Json, request: string | RequestInput, expected: boolean | string[]) {
  const input = typeof request === 'string' ? { url: request } : request;
  const trace = run([cancel('c', source)], input);
  expect(trace.outcome.cancelled).toBe(expected !== false);
  const pair = verdict(trace, 'c').pairs[0];
  expect(pair?.matched).toBe(expected !== false);
  if (Array.isArray(expected)) expect(pair?.captures).toEqual(expected);
}

/** The request of the effect tables. */
export const URL_A = 'https://shop.example.com/a/a?x=1#f';

/** The outcome of a request no rule acted on. */
export const CLEAN: Outcome = {
  cancelled: false,
  url: URL_A,
  redirected: false,
  requestHeaders: {},
  responseHeaders: [],
  delayMs: 0,
  requestBody: null,
  response: null,
  scripts: [],
};

export interface EffectCase {
  title: string;
  rules: EngineRule[];
  request?: RequestInput;
  includeInactive?: boolean;
  outcome?: Partial<Outcome>;
  /** Reason of each rule listed in the trace, in trace order. */
  reasons?: [string, Reason][];
  overriddenBy?: Record<string, string>;
}

/** Traces the case's rules (on URL_A unless it says) and checks what it expects. */
export function checkEffect({
  rules,
  request = { url: URL_A },
  includeInactive,
  outcome,
  reasons,
  overriddenBy,
}: EffectCase) {
  const trace = run(rules, request, includeInactive);
  // Each part of the outcome a case names is compared whole: `requestHeaders: {}` means none.
  for (const [part, value] of Object.entries(outcome ?? {})) {
    expect(trace.outcome[part as keyof Outcome], part).toEqual(value);
  }
  if (reasons) expect(trace.rules.map((r) => [r.ruleId, r.reason])).toEqual(reasons);
  for (const r of trace.rules) {
    expect(r.acted).toBe(r.reason === 'acted');
    if (r.reason !== 'overridden' && r.reason !== 'cancelled') expect(r.overriddenBy).toBeUndefined();
    if (r.reason === 'cancelled') expect(r.overriddenBy).toBeDefined();
  }
  for (const [ruleId, by] of Object.entries(overriddenBy ?? {})) {
    expect(verdict(trace, ruleId).overriddenBy).toBe(by);
  }
}
