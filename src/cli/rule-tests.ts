// Rule tests: a file of cases, each a request and what its outcome must hold, compared with what was
// answered, and the report; shared by the server and local modes and by rulekeeper/playwright's
// runRuleTests (a real page), so that all of them judge and word a case alike.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface RuleTestCase {
  name: string;
  request: Record<string, unknown>;
  expect: Record<string, unknown>;
}

/** What a trace answered for a case (the `data` of POST /v1/trace). */
export interface CaseTrace {
  outcome: Record<string, unknown>;
  rules: { ruleId: string; name: string; acted: boolean }[];
}

export class RuleTestFileError extends Error {}

/** The cases of a JSON or YAML file (YAML is a superset of JSON; `.json` files are read as JSON). */
export function readCases(file: string): RuleTestCase[] {
  const text = readFileSync(file, 'utf8');
  let cases: unknown;
  try {
    cases = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new RuleTestFileError(
      `${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  if (!Array.isArray(cases)) throw new RuleTestFileError(`${file} must hold a list of cases`);
  cases.forEach((item, index) => {
    const ok =
      typeof item === 'object' &&
      item !== null &&
      typeof item.name === 'string' &&
      typeof item.request === 'object' &&
      item.request !== null &&
      typeof item.expect === 'object' &&
      item.expect !== null;
    if (!ok)
      throw new RuleTestFileError(
        `case ${index + 1} must have a name, a request object and an expect object`,
      );
  });
  return cases as RuleTestCase[];
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

/** A case's request could not be put to the rules (the server refused it, the page load failed). */
export class CaseRefused extends Error {}

/** What a runner answered for one case. */
export interface CaseRun {
  trace: CaseTrace;
  /** The expectations to compare, when the runner cannot observe all of the case's (default: all). */
  expect?: Record<string, unknown>;
  /** The expectations left out of the comparison, each said (e.g. "not checked in a browser: …"). */
  unchecked?: string[];
}

export type CaseRunner = (testCase: RuleTestCase) => Promise<CaseRun>;

export interface CaseReport {
  name: string;
  /** `skip`: nothing the case expects could be checked by this runner. */
  status: 'ok' | 'FAIL' | 'skip';
  problems: string[];
  unchecked: string[];
}

export interface RuleTestsReport {
  cases: CaseReport[];
  passed: number;
  failed: number;
  skipped: number;
  /** The active rules no case made act. */
  unexercised: { ruleId: string; name: string }[];
}

/** Runs each case and prints the report as it goes: a line per case, what differed, the idle rules. */
export async function runCases(
  cases: RuleTestCase[],
  run: CaseRunner,
  out: (line: string) => void,
): Promise<RuleTestsReport> {
  const traces: CaseTrace[] = [];
  const reports: CaseReport[] = [];
  for (const testCase of cases) {
    let problems: string[];
    let unchecked: string[] = [];
    let compared = 0;
    try {
      const result = await run(testCase);
      traces.push(result.trace);
      unchecked = result.unchecked ?? [];
      const expect = result.expect ?? testCase.expect;
      compared = Object.keys(expect).length;
      problems = compareCase({ ...testCase, expect }, result.trace);
    } catch (error) {
      if (!(error instanceof CaseRefused)) throw error;
      problems = [error.message];
      compared = 1;
    }
    const status = problems.length > 0 ? 'FAIL' : compared === 0 && unchecked.length > 0 ? 'skip' : 'ok';
    reports.push({ name: testCase.name, status, problems, unchecked });
    out(`${status.padEnd(4)}  ${testCase.name}`);
    for (const line of [...problems, ...unchecked]) out(`        ${line}`);
  }
  const idle = unexercised(traces);
  if (idle.length > 0) {
    out('');
    out(`Active rules no case exercised (${idle.length}):`);
    for (const rule of idle) out(`  ${rule.ruleId}  ${rule.name}`);
  }
  const count = (status: CaseReport['status']) => reports.filter((r) => r.status === status).length;
  const report = {
    cases: reports,
    passed: count('ok'),
    failed: count('FAIL'),
    skipped: count('skip'),
    unexercised: idle,
  };
  out('');
  out(
    `${report.passed} passed, ${report.failed} failed${report.skipped > 0 ? `, ${report.skipped} not checked` : ''}`,
  );
  return report;
}
