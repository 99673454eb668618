// Running a file's cases through a runner (the server's trace, the local engine, a real page) and the
// report: a line per case as it goes, what differed, the active rules no case made act.
import { type CaseTrace, compareCase, unexercised } from './compare-case.js';
import type { RuleTestCase } from './rule-test-file.js';

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
