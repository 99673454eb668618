// The rule lint: what a workspace's rules do wrong as a whole (rules that can never act, loop, or
// change nothing), before a request finds out. Pure: rules and groups in, findings out.
import { noOps } from './no-op.js';
import { extendPositions, madePositionMap, positionMapOf, positionsIn } from './positions.js';
import { extendLoops, redirectLoops } from './redirect-loop.js';
import {
  browserUnsupported,
  codeNeedsAllow,
  duplicates,
  extendKinds,
  groupStatus,
  matchesEverythingFindings,
} from './rule-checks.js';
import { extendLayout, shadowed } from './shadowed.js';
import {
  Budget,
  DEFAULT_COMPARISONS,
  FINDING_CODES,
  type Finding,
  type LintGroup,
  type LintRule,
  SEVERITIES,
} from './types.js';

export { CHROME_REGEX_BYTES, estimatedProgramBytes } from './rule-checks.js';
export { boundsNeighbourhood } from './shadowed.js';
export * from './types.js';
export { invalidInEnvironment, type LintVariables, undefinedVariables } from './variables.js';

/**
 * Every finding about `rules` (in list order) and their `groups`. Rules that act (active, in no group
 * or an active one) are checked together (shadowed, redirect_loop); every rule is checked alone.
 * Findings come errors first, then by code, then by rule. With `focus` (a rule id), only the findings
 * about that rule, at the cost of one rule against the others rather than all against all.
 */
export function lint(
  rules: readonly LintRule[],
  groups: readonly LintGroup[],
  options: { focus?: string; comparisons?: number } = {},
): { findings: Finding[]; complete: boolean } {
  return preparedLint(rules, groups)(options);
}

/**
 * `lint` of one workspace, to be run for several focuses (a batch of writes' rules, each against the
 * others): what the checks read of the whole list (the rules that act, where they stand, their forms,
 * the rule sets redirects are followed through) is made once, when first needed, instead of once per
 * rule. Each run answers what `lint` would, with a budget of its own.
 */
export function preparedLint(
  rules: readonly LintRule[],
  groups: readonly LintGroup[],
): (options?: { focus?: string; comparisons?: number }) => { findings: Finding[]; complete: boolean } {
  const byId = new Map(groups.map((group) => [group.id, group]));
  const active = actingRules(rules, groups);
  const loops = redirectLoops(active);
  const shadows = shadowed(active);
  const same = duplicates(rules);
  const positionOf = positionsIn(rules);
  let runs = 0;
  let positions: Map<string, number> | undefined;

  return (options = {}) => {
    const { focus } = options;
    const budget = new Budget(options.comparisons ?? DEFAULT_COMPARISONS);
    const focused = focus === undefined ? undefined : rules[positionOf(focus)];
    const alone = focus === undefined ? rules : focused ? [focused] : [];
    const findings = [
      ...loops(budget, focus),
      ...shadows(budget, focus),
      ...same(focus),
      ...alone.flatMap((rule) => [
        ...noOps(rule),
        ...matchesEverythingFindings(rule),
        ...browserUnsupported(rule),
        ...codeNeedsAllow(rule),
        ...groupStatus(rule, byId),
      ]),
    ];
    // Where the rules findings start with stand: a lint of one rule scans for its few, unless the list
    // has its map already (the worker's list carries it from write to write); a batch's maps all.
    runs++;
    if (runs > 1) positions ??= positionMapOf(rules);
    const position =
      positions ??
      madePositionMap(rules) ??
      positionsOf(rules, new Set(findings.map((f) => f.ruleIds[0] as string)));
    const order = (f: Finding) => [
      SEVERITIES.indexOf(f.severity),
      FINDING_CODES.indexOf(f.code),
      position.get(f.ruleIds[0] as string) ?? 0,
    ];
    findings.sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return (
        (x[0] as number) - (y[0] as number) ||
        (x[1] as number) - (y[1] as number) ||
        (x[2] as number) - (y[2] as number)
      );
    });
    return { findings, complete: !budget.exhausted };
  };
}

/** Where the rules `ids` stand in the list: only those a finding starts with (a write's lint has few). */
function positionsOf(rules: readonly LintRule[], ids: Set<string>): Map<string, number> {
  const position = new Map<string, number>();
  if (ids.size === 0) return position;
  rules.forEach((rule, index) => {
    if (ids.has(rule.id)) position.set(rule.id, index);
  });
  return position;
}

/** The rules that act, per list, with the groups they were picked with (by their inactive ones). */
const acting = new WeakMap<readonly LintRule[], { inactive: Set<string>; key: string; active: LintRule[] }>();

const acts = (rule: LintRule, inactive: Set<string>) =>
  rule.status === 'Active' && !(rule.groupId && inactive.has(rule.groupId));

/** The rules that act (active, in no group or an active one), in list order: picked once per list. */
function actingRules(rules: readonly LintRule[], groups: readonly LintGroup[]): LintRule[] {
  const inactive = new Set(groups.filter((group) => group.status === 'Inactive').map((group) => group.id));
  const key = [...inactive].sort().join(' ');
  const kept = acting.get(rules);
  if (kept?.key === key) return kept.active;
  const active = rules.filter((rule) => acts(rule, inactive));
  acting.set(rules, { inactive, key, active });
  return active;
}

/**
 * Says that `longer` is `shorter` with rules added at its end (a workspace after creates): what the
 * lint made of `shorter` that only grows with the list (where rules stand, the rules that act, the
 * rule sets and layout made of those) is carried over instead of made again. Had a group changed
 * meanwhile, the rules that act are picked again (and the rest made again) when next asked.
 */
export function extendList(shorter: readonly LintRule[], longer: readonly LintRule[]): void {
  extendPositions(shorter, longer);
  extendKinds(shorter, longer);
  const kept = acting.get(shorter);
  if (!kept) return;
  acting.delete(shorter);
  const added = longer.slice(shorter.length).filter((rule) => acts(rule, kept.inactive));
  const active = added.length > 0 ? kept.active.concat(added) : kept.active;
  if (active !== kept.active) {
    extendPositions(kept.active, active);
    extendLoops(kept.active, active);
    extendLayout(kept.active, active);
  }
  acting.set(longer, { ...kept, active });
}

/** Every finding (see lint), with the default budget. */
export function lintWorkspace(rules: readonly LintRule[], groups: readonly LintGroup[]): Finding[] {
  return lint(rules, groups).findings;
}

/** The findings that concern one rule (it is among their rules): what a write of that rule answers. */
export function lintRule(
  rules: readonly LintRule[],
  groups: readonly LintGroup[],
  ruleId: string,
): Finding[] {
  return findingsOf(lint(rules, groups, { focus: ruleId }).findings, ruleId);
}

/** The findings among `findings` that concern one rule (it is among their rules). */
export function findingsOf(findings: readonly Finding[], ruleId: string): Finding[] {
  return findings.filter((finding) => finding.ruleIds.includes(ruleId));
}
