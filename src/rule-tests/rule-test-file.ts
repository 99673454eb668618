// A `rulekeeper test` file: a list of cases, each a request and what its outcome must hold, read from
// JSON or YAML and checked for its shape. The CLI and rulekeeper/playwright read the same files.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface RuleTestCase {
  name: string;
  request: Record<string, unknown>;
  expect: Record<string, unknown>;
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
