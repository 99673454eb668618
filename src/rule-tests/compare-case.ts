// A case judged: what differs between its expectations and the trace of its request, worded alike
// for the server and local modes of the CLI and for rulekeeper/playwright's real pages.
import type { RuleTestCase } from './rule-test-file.js';

/** What a trace answered for a case (the `data` of POST /v1/trace). */
export interface CaseTrace {
  outcome: Record<string, unknown>;
  rules: { ruleId: string; name: string; acted: boolean }[];
}

const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));

/** Every place where `actual` does not hold `expected`: objects by the keys expected, arrays whole. */
function differences(expected: unknown, actual: unknown, path: string): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return [`${path}: expected ${show(expected)}, got ${show(actual)}`];
    }
    return expected.flatMap((item, i) => differences(item, actual[i], `${path}[${i}]`));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null)
      return [`${path}: expected ${show(expected)}, got ${show(actual)}`];
    return Object.entries(expected).flatMap(([key, value]) =>
      differences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`),
    );
  }
  return expected === actual ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

/** Header names in any case; `null` for a header that must be absent. */
function lowerCaseNames(headers: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries((headers ?? {}) as Record<string, unknown>).map(([name, value]) => [
      name.toLowerCase(),
      value,
    ]),
  );
}

/** What differs between a case's expectations and its trace; empty when the case passes. */
export function compareCase(testCase: RuleTestCase, trace: CaseTrace): string[] {
  const { acted, requestHeaders, ...expected } = testCase.expect;
  const found = differences(expected, trace.outcome, 'outcome');
  if (requestHeaders !== undefined) {
    const actual = lowerCaseNames(trace.outcome.requestHeaders);
    for (const [name, value] of Object.entries(lowerCaseNames(requestHeaders))) {
      found.push(
        ...differences(value === null ? undefined : value, actual[name], `outcome.requestHeaders.${name}`),
      );
    }
  }
  if (acted !== undefined) {
    const actedIds = trace.rules.filter((rule) => rule.acted).map((rule) => rule.ruleId);
    const wanted = Array.isArray(acted) ? [...acted].map(String).sort() : acted;
    if (JSON.stringify(wanted) !== JSON.stringify([...actedIds].sort())) {
      found.push(`acted: expected ${show(acted)}, got ${show(actedIds)}`);
    }
  }
  return found;
}

/** The evaluated rules that acted in no case, in the order first seen. */
export function unexercised(traces: CaseTrace[]): { ruleId: string; name: string }[] {
  const acted = new Set(traces.flatMap((t) => t.rules.filter((r) => r.acted).map((r) => r.ruleId)));
  const seen = new Map<string, string>();
  for (const rule of traces.flatMap((t) => t.rules))
    if (!acted.has(rule.ruleId)) seen.set(rule.ruleId, rule.name);
  return [...seen].map(([ruleId, name]) => ({ ruleId, name }));
}
