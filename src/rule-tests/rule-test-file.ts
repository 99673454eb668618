// A `rulekeeper test` file: a list of cases, each a request and what its outcome must hold, read from
// JSON or YAML and checked for its shape. The CLI, rulekeeper/playwright and the suites a workspace
// keeps (/v1/test-suites) check cases here, so that a file and a stored suite take the same cases.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface RuleTestCase {
  name: string;
  request: Record<string, unknown>;
  expect: Record<string, unknown>;
}

export class RuleTestFileError extends Error {
  /** The 0-based index of the case at fault; undefined when the list itself is. */
  readonly index?: number;

  constructor(message: string, index?: number) {
    super(message);
    if (index !== undefined) this.index = index;
  }
}

/** `cases` as a list of cases, or the error naming the first that is not one (counted from 1). */
export function checkCases(cases: unknown, what = 'the file'): RuleTestCase[] {
  if (!Array.isArray(cases)) throw new RuleTestFileError(`${what} must hold a list of cases`);
  cases.forEach((item, index) => {
    // A list is not the object a request or an expectation is (the trace would refuse it anyway).
    const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
    const ok =
      isObject(item) && typeof item.name === 'string' && isObject(item.request) && isObject(item.expect);
    if (!ok)
      throw new RuleTestFileError(
        `case ${index + 1} must have a name, a request object and an expect object`,
        index,
      );
  });
  return cases as RuleTestCase[];
}

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
  return checkCases(cases, file);
}
