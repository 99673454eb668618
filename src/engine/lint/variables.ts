// undefined_variable: a `{{NAME}}` in a rule's destination or source that looks meant (where a rule
// writes a URL, a template of another language is unlikely) but that some environment has no value
// for: there it stays as written and the rule matches or goes somewhere nobody meant.
import { variableReferences } from '../variables.js';
import type { Finding, LintRule } from './types.js';

/** The workspace's variables as the lint reads them: names only, never a value (a value may be secret). */
export interface LintVariables {
  /** Every environment of the workspace, in the order they are listed. */
  environments: readonly string[];
  /** Each variable's name, with the environments that have a value of it. */
  defined: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A destination, or a source value (or a filter's page URL value): where a reference looks meant. */
const MEANT = /^\/pairs\/\d+\/(?:destination|source\/value|source\/filters\/\d+\/URL\/value)$/;

const listed = (names: readonly string[]) => names.join(', ');

export function undefinedVariables(rule: LintRule, variables: LintVariables | undefined): Finding[] {
  if (!variables) return [];
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const { name, path } of variableReferences(rule)) {
    if (!MEANT.test(path) || seen.has(`${name}\u0000${path}`)) continue;
    seen.add(`${name}\u0000${path}`);
    const having = variables.defined.get(name);
    const missing = variables.environments.filter((environment) => !having?.has(environment));
    if (missing.length === 0) continue;
    const where = path.endsWith('/destination') ? 'destination' : 'source';
    const pair = Number(path.split('/')[2]) + 1;
    const message = having
      ? `Pair ${pair} of "${rule.name}" writes {{${name}}} in its ${where}, but the variable ${name} has no value in ${missing.length === 1 ? 'the environment' : 'the environments'} ${listed(missing)}: there it stays as written.`
      : `Pair ${pair} of "${rule.name}" writes {{${name}}} in its ${where}, but the workspace has no variable ${name}: it stays as written in every environment.`;
    findings.push({
      code: 'undefined_variable',
      severity: 'warning',
      ruleIds: [rule.id],
      pointers: [{ ruleId: rule.id, path }],
      message,
      hint: having
        ? `Give ${name} a value in ${listed(missing)}, or keep the rule out of ${missing.length === 1 ? 'that environment' : 'those environments'}.`
        : `Create the variable ${name} (POST /v1/variables), or correct the name.`,
    });
  }
  return findings;
}

/**
 * invalid_in_environment: resolved in the environment linted, the rule fails the checks a written rule
 * passes (variables.ts), so it does not act there. The problems name paths, never a value.
 */
export function invalidInEnvironment(
  rule: LintRule & { environmentProblems?: { path: string; message: string }[] },
  environment: string,
): Finding[] {
  const problems = rule.environmentProblems;
  if (!problems?.length) return [];
  return [
    {
      code: 'invalid_in_environment',
      severity: 'warning',
      ruleIds: [rule.id],
      pointers: problems.map((problem) => ({ ruleId: rule.id, path: problem.path })),
      message: `"${rule.name}" does not act in the environment ${environment}: its variables make it invalid there (${problems.map((p) => `${p.path} ${p.message}`).join('; ')}).`,
      hint: `Correct the values of its variables in ${environment}, or the rule's text around them.`,
    },
  ];
}
