// A suite body as the service takes it: its name trimmed and bounded, its cases checked exactly as
// `rulekeeper test` checks a file's (rule-tests/rule-test-file.ts), each problem naming the case as
// people count them (case 1 is the first; the pointer /cases/0 counts from 0, as pointers do).
import { AppError, type ErrorDetail } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import { MAX_NAME_LENGTH } from '../../model/common.js';
import { checkCases, type RuleTestCase, RuleTestFileError } from '../../rule-tests/rule-test-file.js';
import { checkTestSuiteWrite } from './test-suites-schemas.js';

export interface TestSuiteWrite {
  name?: string;
  cases?: RuleTestCase[];
}

const invalid = (detail: ErrorDetail) => new AppError('TEST_SUITE_PAYLOAD_INVALID', [detail]);

/** The payload of a POST (`creating`: both fields needed) or PUT, or the error it deserves. */
export function readTestSuiteWrite(body: unknown, creating: boolean, maxCases: number): TestSuiteWrite {
  const payload = readPayload(body, checkTestSuiteWrite, 'TEST_SUITE_PAYLOAD_INVALID', new Set());
  const name = payload.name?.trim();
  if (name === '' || (creating && name === undefined))
    throw invalid({ path: '/name', message: 'a non-blank name is required' });
  if (name !== undefined && name.length > MAX_NAME_LENGTH)
    throw invalid({ path: '/name', message: `must be at most ${MAX_NAME_LENGTH} characters long` });
  if (creating && payload.cases === undefined)
    throw invalid({ path: '/cases', message: 'the cases are required (a list, which may be empty)' });
  const sent = payload.cases;
  // Counted before any case is looked at: a suite of 100,000 cases is refused at once.
  if (sent !== undefined && sent.length > maxCases)
    throw invalid({
      path: '/cases',
      message: `a suite holds at most ${maxCases} cases; this one has ${sent.length}`,
    });
  let cases: RuleTestCase[] | undefined;
  try {
    cases = sent === undefined ? undefined : checkCases(sent, 'cases');
  } catch (error) {
    if (!(error instanceof RuleTestFileError)) throw error;
    throw invalid({
      path: error.index === undefined ? '/cases' : `/cases/${error.index}`,
      message: error.message,
    });
  }
  return { ...(name === undefined ? {} : { name }), ...(cases === undefined ? {} : { cases }) };
}
