// `shadowed`: a rule that can never act, because an earlier rule always takes its effect first: an
// earlier rule of the same first-one-wins type, or an earlier Cancel, matches every request it matches.
// A pair of a first-one-wins rule behind an earlier pair of the same rule that covers it never acts either.
import { ruleEffects } from '../effects/index.js';
import { positionsIn } from './positions.js';
import { covers, type Decided, SAMPLES, type Source } from './sources.js';
import type { Budget, Finding, LintRule } from './types.js';

const effectOf = (rule: LintRule) => ruleEffects[rule.ruleType as keyof typeof ruleEffects];
const sourceOf = (pair: Record<string, unknown>) => pair.source as Source;

const how = (decided: Decided) =>
  decided === 'exact'
    ? 'decided exactly from the sources'
    : `decided by sampling: every text generated from the later source (up to ${SAMPLES}) is matched by the earlier one`;

/** For each pair of `later`, a pair of `earlier` covering it; undefined when one is not covered. */
function coveredPairs(earlier: LintRule, later: LintRule): { at: number[]; decided: Decided } | undefined {
  const at: number[] = [];
  let decided: Decided = 'exact';
  for (const pair of later.pairs) {
    let found = -1;
    for (const [index, candidate] of earlier.pairs.entries()) {
      const result = covers(sourceOf(candidate), sourceOf(pair));
      if (result === undefined) continue;
      found = index;
      if (result === 'sampled') decided = 'sampled';
      break;
    }
    if (found < 0) return undefined;
    at.push(found);
  }
  return { at, decided };
}

function eligible(earlier: LintRule, later: LintRule): 'slot' | 'cancel' | undefined {
  if (effectOf(later)?.combine === 'first' && earlier.ruleType === later.ruleType) return 'slot';
  return earlier.ruleType === 'Cancel' && later.ruleType !== 'Cancel' ? 'cancel' : undefined;
}

interface Shadower {
  rule: LintRule;
  kind: 'slot' | 'cancel' | 'later cancel';
  covered: { at: number[]; decided: Decided };
}

function finding(later: LintRule, { rule, kind, covered }: Shadower): Finding {
  const effect =
    kind === 'slot'
      ? `comes earlier and decides the ${later.ruleType} effect first for every request it matches`
      : kind === 'cancel'
        ? 'comes earlier and cancels every request it matches'
        : 'cancels every request it matches, and a Cancel wins over every rule before it too';
  return {
    code: 'shadowed',
    severity: 'warning',
    ruleIds: [later.id, rule.id],
    pointers: [
      ...later.pairs.map((_, k) => ({ ruleId: later.id, path: `/pairs/${k}/source` })),
      ...[...new Set(covered.at)].map((k) => ({ ruleId: rule.id, path: `/pairs/${k}/source` })),
    ],
    message: `"${later.name}" can never act: "${rule.name}" ${effect} (${how(covered.decided)}).`,
    hint: 'Narrow that rule, or delete this one if it is no longer needed.',
  };
}

/**
 * Where each rule's candidates stand in the list of rules that act: the same for every focus of a lint,
 * and grown, not made again, as creates extend the list.
 *
 * `from`: where the earlier rule may stand for each later one: after the last rule that changes the URL
 * before it, since that rule would make the later one see another URL than the earlier one saw (then
 * nothing is claimed). A Redirect between two Redirects changes nothing of that (when it acts, the
 * earlier one did not, and it takes the effect itself). `lastChange`: the position of the last rule
 * before each that changes the URL (Replace, QueryParam, Redirect).
 */
interface Layout {
  from: number[];
  lastChange: number[];
  cancels: number[];
  /** The last rule so far that chains a URL change, that redirects, that changes the URL at all. */
  chain: number;
  redirect: number;
  last: number;
}

const layouts = new WeakMap<readonly LintRule[], Layout>();

/** Lays out the rules of `active` after those `layout` holds. */
function grow(layout: Layout, active: readonly LintRule[]): void {
  for (let index = layout.from.length; index < active.length; index++) {
    const rule = active[index] as LintRule;
    layout.from.push(Math.max(layout.chain, rule.ruleType === 'Redirect' ? -1 : layout.redirect, 0));
    layout.lastChange.push(layout.last);
    const url = effectOf(rule)?.url;
    if (url === 'chain') layout.chain = index;
    if (url === 'redirect') layout.redirect = index;
    if (url) layout.last = index;
    if (rule.ruleType === 'Cancel') layout.cancels.push(index);
  }
}

/**
 * Whether a rule that acts bounds what the lint of one rule reads around it: a rule is compared only
 * with rules from the last rule before it that changes the URL for every later rule (a Replace or
 * QueryParam: `from` above), so the rules from the last such rule before a written rule to the first
 * after it (both included) hold every rule it can shadow or be shadowed by.
 */
export const boundsNeighbourhood = (ruleType: string): boolean =>
  ruleEffects[ruleType as keyof typeof ruleEffects]?.url === 'chain';

function layoutOf(active: readonly LintRule[]): Layout {
  let layout = layouts.get(active);
  if (!layout) {
    layout = { from: [], lastChange: [], cancels: [], chain: -1, redirect: -1, last: -1 };
    grow(layout, active);
    layouts.set(active, layout);
  }
  return layout;
}

/** As extendLoops (redirect-loop.ts), for the layout. */
export function extendLayout(shorter: readonly LintRule[], longer: readonly LintRule[]): void {
  const layout = layouts.get(shorter);
  if (!layout) return;
  layouts.delete(shorter);
  grow(layout, longer);
  layouts.set(longer, layout);
}

/** With `focus`, only the findings about that rule: shadowed by another, or shadowing another. */
function betweenRules(
  active: readonly LintRule[],
  layout: Layout,
  at: (id: string) => number,
  budget: Budget,
  focus?: string,
): Finding[] {
  const { from, lastChange, cancels } = layout;
  const compare = (wide: LintRule, narrow: LintRule) =>
    budget.spend(wide.pairs.length * narrow.pairs.length) ? coveredPairs(wide, narrow) : undefined;

  /**
   * What shadows the rule at `j`: the first earlier rule that decides its effect first, else the first
   * later Cancel that covers it (a Cancel that acts wins over every rule, before or after it), when
   * nothing between them changes the URL (the Cancel would see another URL than the rule saw).
   */
  function shadowerOf(j: number): Shadower | undefined {
    const later = active[j] as LintRule;
    for (let i = from[j] as number; i < j; i++) {
      const rule = active[i] as LintRule;
      const kind = eligible(rule, later);
      const covered = kind && compare(rule, later);
      if (kind && covered) return { rule, kind, covered };
    }
    if (later.ruleType === 'Cancel') return undefined;
    for (const c of cancels) {
      if (c <= j) continue;
      if ((lastChange[c] as number) >= j) break;
      const rule = active[c] as LintRule;
      const covered = compare(rule, later);
      if (covered) return { rule, kind: 'later cancel', covered };
    }
    return undefined;
  }

  /** With a focus, only the rules the focus covers are looked at, besides the focus itself. */
  function mayConcernFocus(j: number, focusAt: number): boolean {
    const focused = active[focusAt];
    const later = active[j] as LintRule;
    if (!focused) return false;
    const placed =
      j > focusAt
        ? (from[j] as number) <= focusAt && eligible(focused, later) !== undefined
        : focused.ruleType === 'Cancel' && later.ruleType !== 'Cancel' && (lastChange[focusAt] as number) < j;
    // Covered by the focus (one comparison): only then is the rule's whole search worth making.
    return placed && compare(focused, later) !== undefined;
  }

  const findings: Finding[] = [];
  const check = (j: number) => {
    const shadower = shadowerOf(j);
    if (shadower) findings.push(finding(active[j] as LintRule, shadower));
  };
  if (focus === undefined) {
    for (let j = 0; j < active.length && !budget.exhausted; j++) check(j);
    return findings;
  }
  const focusAt = at(focus);
  if (focusAt < 0) return findings;
  const focused = active[focusAt] as LintRule;
  // Rules before the focus can be shadowed by it only when it is a Cancel (a create's rule is last).
  const firstConcerned = focused.ruleType === 'Cancel' ? 0 : focusAt;
  for (let j = firstConcerned; j < active.length && !budget.exhausted; j++) {
    if (j === focusAt || mayConcernFocus(j, focusAt)) check(j);
  }
  return findings;
}

/** Within one first-one-wins rule (other than Cancel, whose pairs all do the same), pairs behind a covering pair. */
function withinRules(rules: readonly LintRule[], budget: Budget): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    if (effectOf(rule)?.combine !== 'first' || rule.ruleType === 'Cancel') continue;
    if (!budget.spend((rule.pairs.length * (rule.pairs.length - 1)) / 2)) break;
    rule.pairs.forEach((pair, j) => {
      for (let i = 0; i < j; i++) {
        const decided = covers(sourceOf(rule.pairs[i] as Record<string, unknown>), sourceOf(pair));
        if (decided === undefined) continue;
        findings.push({
          code: 'shadowed',
          severity: 'warning',
          ruleIds: [rule.id],
          pointers: [
            { ruleId: rule.id, path: `/pairs/${j}/source` },
            { ruleId: rule.id, path: `/pairs/${i}/source` },
          ],
          message: `Pair ${j + 1} of "${rule.name}" can never act: pair ${i + 1} of the same rule matches every request it matches, and only the first matching pair of a ${rule.ruleType} rule acts (${how(decided)}).`,
          hint: `Move pair ${j + 1} before pair ${i + 1}, or delete it.`,
        });
        return;
      }
    });
  }
  return findings;
}

/**
 * `active`: the rules that act, in list order. The answer finds the shadowed rules; with `focus`, only
 * the findings about that rule. Where the rules stand is worked out once for every focus of one lint.
 */
export function shadowed(active: readonly LintRule[]): (budget: Budget, focus?: string) => Finding[] {
  const at = positionsIn(active);
  return (budget, focus) => {
    const layout = layoutOf(active);
    const focusAt = focus === undefined ? -1 : at(focus);
    const within = focus === undefined ? active : focusAt < 0 ? [] : [active[focusAt] as LintRule];
    return [...betweenRules(active, layout, at, budget, focus), ...withinRules(within, budget)];
  };
}
