// The findings about one rule alone (matches_everything, code_needs_allow, browser_unsupported), about
// a rule and its group (inactive_in_active, active_in_inactive_group), and about rules that are the
// same (duplicate).
import { isPatternLiteral } from '../../model/patterns.js';
import { compileRegex } from '../regex.js';
import { positionsIn } from './positions.js';
import { matchesEverything, type Source } from './sources.js';
import type { Finding, LintGroup, LintRule } from './types.js';

const DECISIVE = new Set(['Cancel', 'Redirect', 'Response']);
const CUT = {
  Cancel: 'cancels every request',
  Redirect: 'redirects every request',
  Response: 'answers every request with its response',
} as Record<string, string>;

export function matchesEverythingFindings(rule: LintRule): Finding[] {
  if (!DECISIVE.has(rule.ruleType)) return [];
  return rule.pairs.flatMap((pair, index) => {
    const source = pair.source as Source;
    if (!matchesEverything(source)) return [];
    const shown =
      source.value === ''
        ? 'an empty value'
        : `${source.key} ${source.operator} ${JSON.stringify(source.value)}`;
    return [
      {
        code: 'matches_everything' as const,
        severity: 'warning' as const,
        ruleIds: [rule.id],
        pointers: [{ ruleId: rule.id, path: `/pairs/${index}/source/value` }],
        message: `Pair ${index + 1} of "${rule.name}" matches every request (${shown}, no filter), so it ${CUT[rule.ruleType]}.`,
        hint: 'Give the source the host or path it is meant for, or add a filter (page domains, resource type).',
      },
    ];
  });
}

export function codeNeedsAllow(rule: LintRule): Finding[] {
  if (rule.ruleType !== 'Response' && rule.ruleType !== 'Request') return [];
  return rule.pairs.flatMap((pair, index) =>
    pair.type === 'code'
      ? [
          {
            code: 'code_needs_allow' as const,
            severity: 'info' as const,
            ruleIds: [rule.id],
            pointers: [{ ruleId: rule.id, path: `/pairs/${index}/value` }],
            message: `Pair ${index + 1} of "${rule.name}" builds its ${rule.ruleType === 'Response' ? 'response' : 'request body'} with code, which the proxy runs only when started with --allow-code (traces report it, never run it).`,
            hint: 'Start the proxy with --allow-code where this rule must act, or use a static value.',
          },
        ]
      : [],
  );
}

export function groupStatus(rule: LintRule, groups: Map<string, LintGroup>): Finding[] {
  const group = rule.groupId ? groups.get(rule.groupId) : undefined;
  if (!group) return [];
  const pointers = [{ ruleId: rule.id, path: '/status' }];
  if (group.status === 'Active' && rule.status !== 'Active') {
    return [
      {
        code: 'inactive_in_active',
        severity: 'info',
        ruleIds: [rule.id],
        pointers,
        message: `"${rule.name}" is inactive in the active group "${group.name}": it does not act with the rest of its group.`,
        hint: 'Activate the rule if it should act with its group, or move it out of the group.',
      },
    ];
  }
  if (group.status !== 'Active' && rule.status === 'Active') {
    return [
      {
        code: 'active_in_inactive_group',
        severity: 'info',
        ruleIds: [rule.id],
        pointers,
        message: `"${rule.name}" is active but its group "${group.name}" is inactive, so it does not act.`,
        hint: 'Activate the group, or move the rule out of it, if it should act.',
      },
    ];
  }
  return [];
}

/** The pairs as they act: without the ids of pairs and modifications, keys in one order. */
function actingForm(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(actingForm);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'id')
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, inner]) => [key, actingForm(inner)]),
  );
}

/**
 * A rule's type and acting form as one text, made once per rule object: a write's lint compares its
 * rule with every rule of the same type, and the lint service hands the same (never changed) rule
 * objects to write after write.
 */
const forms = new WeakMap<LintRule, string>();
function formOf(rule: LintRule): string {
  let form = forms.get(rule);
  if (form === undefined) {
    form = JSON.stringify([rule.ruleType, actingForm(rule.pairs)]);
    forms.set(rule, form);
  }
  return form;
}

/**
 * The rules that are the same: each later copy against the first of them in the list, as `shadowed`
 * names a rule and the earlier one it stands behind. A finding so stays one size however many copies a
 * workspace holds (a write of a copy answers one). With `focus`, the findings it is among: its own as
 * a copy, or every copy's as the first. Only rules of its type and number of pairs can be the same:
 * the first focus of a lint compares with every rule; from the second (a batch of writes linted
 * together), the rules are grouped by that kind once per list (kept as creates extend the list) and
 * each focus compares with its kind only.
 */
export function duplicates(rules: readonly LintRule[]): (focus?: string) => Finding[] {
  const positionOf = positionsIn(rules);
  let asked = 0;
  const sameKind = (target: LintRule): readonly LintRule[] => {
    const byKind = ++asked > 1 ? kindsOf(rules) : kinds.get(rules);
    if (byKind) return byKind.get(kindOf(target)) ?? [];
    return rules.filter(
      (rule) => rule.ruleType === target.ruleType && rule.pairs.length === target.pairs.length,
    );
  };
  return (focus) => {
    if (focus === undefined) return [...groupedBy(rules, formOf).values()].flatMap(copiesFound);
    const target = rules[positionOf(focus)];
    if (!target) return [];
    const form = formOf(target);
    const same = sameKind(target).filter((rule) => formOf(rule) === form);
    if (same[0] === target) return copiesFound(same);
    return same.length > 1 ? [duplicateFinding(target, same[0] as LintRule)] : [];
  };
}

/** What rules can be the same: their type and number of pairs. */
const kindOf = (rule: LintRule) => `${rule.ruleType} ${rule.pairs.length}`;

/** The rules of each list by kind, made once per list. */
const kinds = new WeakMap<readonly LintRule[], Map<string, LintRule[]>>();

function kindsOf(rules: readonly LintRule[]): Map<string, LintRule[]> {
  let byKind = kinds.get(rules);
  if (!byKind) {
    byKind = groupedBy(rules, kindOf);
    kinds.set(rules, byKind);
  }
  return byKind;
}

/** As extendPositions (positions.ts), for the rules by kind. */
export function extendKinds(shorter: readonly LintRule[], longer: readonly LintRule[]): void {
  const byKind = kinds.get(shorter);
  if (!byKind) return;
  kinds.delete(shorter);
  for (const rule of longer.slice(shorter.length)) {
    const same = byKind.get(kindOf(rule));
    if (same) same.push(rule);
    else byKind.set(kindOf(rule), [rule]);
  }
  kinds.set(longer, byKind);
}

/** `rules` by `key`, each list in the order of `rules`. */
function groupedBy(rules: readonly LintRule[], key: (rule: LintRule) => string): Map<string, LintRule[]> {
  const groups = new Map<string, LintRule[]>();
  for (const rule of rules) {
    const k = key(rule);
    const same = groups.get(k);
    if (same) same.push(rule);
    else groups.set(k, [rule]);
  }
  return groups;
}

/** The findings of rules that are the same, in list order: each copy against the first. */
function copiesFound(same: readonly LintRule[]): Finding[] {
  const [first, ...copies] = same as [LintRule, ...LintRule[]];
  return copies.map((copy) => duplicateFinding(copy, first));
}

function duplicateFinding(copy: LintRule, first: LintRule): Finding {
  return {
    code: 'duplicate',
    severity: 'warning',
    ruleIds: [copy.id, first.id],
    pointers: [
      { ruleId: copy.id, path: '/pairs' },
      { ruleId: first.id, path: '/pairs' },
    ],
    message: `"${copy.name}" has the same type and pairs as "${first.name}", earlier in the list.`,
    hint: 'Keep one of them (activate it where needed) and delete the other.',
  };
}

/**
 * Chrome's declarativeNetRequest compiles a regexFilter with RE2 limited to 2 KB of memory. The lint
 * estimates a pattern's program from the instructions RE2 (as re2js builds it: programSize, the
 * measure the engine's own limit uses) needs, at 16 bytes each:
 * an estimate, since Chrome's RE2 works on bytes and needs more instructions for `.` and non-ASCII classes.
 */
export const CHROME_REGEX_BYTES = 2048;
const BYTES_PER_INSTRUCTION = 16;

export function estimatedProgramBytes(value: string): number | undefined {
  const compiled = compileRegex(value);
  if (!compiled.ok) return undefined;
  return compiled.regex.programSize() * BYTES_PER_INSTRUCTION;
}

export function browserUnsupported(rule: LintRule): Finding[] {
  const patterns: { path: string; value: string }[] = [];
  rule.pairs.forEach((pair, index) => {
    const source = pair.source as Source;
    if (source.operator === 'Matches')
      patterns.push({ path: `/pairs/${index}/source/value`, value: source.value });
    source.filters?.forEach((filter, f) => {
      if (filter.URL?.operator === 'Matches')
        patterns.push({ path: `/pairs/${index}/source/filters/${f}/URL/value`, value: filter.URL.value });
    });
    if (rule.ruleType === 'Replace' && isPatternLiteral(pair.from as string))
      patterns.push({ path: `/pairs/${index}/from`, value: pair.from as string });
  });
  return patterns.flatMap(({ path, value }) => {
    const bytes = estimatedProgramBytes(value);
    if (bytes === undefined || bytes <= CHROME_REGEX_BYTES) return [];
    return [
      {
        code: 'browser_unsupported' as const,
        severity: 'warning' as const,
        ruleIds: [rule.id],
        pointers: [{ ruleId: rule.id, path }],
        message: `The pattern ${JSON.stringify(value)} of "${rule.name}" compiles to about ${bytes} bytes, over the ${CHROME_REGEX_BYTES} bytes Chrome allows a regular expression of a browser rule: a browser extension cannot use it.`,
        hint: 'Shorten the pattern: bounded repeats ({0,100}) and long alternations cost the most; a wildcard or Contains often does the same.',
      },
    ];
  });
}
