// `shadowed`: a rule that can never act, because an earlier rule always takes its effect first: an
// earlier rule of the same first-one-wins type, or an earlier Cancel, matches every request it matches.
// A pair of a first-one-wins rule behind an earlier pair of the same rule that covers it never acts either.
import { ruleEffects } from '../effects/index.js';
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

/**
 * Where the earlier rule may stand for each later one: after the last rule that changes the URL
 * before it, since that rule would make the later one see another URL than the earlier one saw (then
 * nothing is claimed). A Redirect between two Redirects changes nothing of that (when it acts, the
 * earlier one did not, and it takes the effect itself).
 */
function firstCandidates(active: LintRule[]): number[] {
  let chain = -1;
  let redirect = -1;
  return active.map((rule, index) => {
    const from = Math.max(chain, rule.ruleType === 'Redirect' ? -1 : redirect, 0);
    const url = effectOf(rule)?.url;
    if (url === 'chain') chain = index;
    if (url === 'redirect') redirect = index;
    return from;
  });
}

/** With `focus`, only the findings about that rule: shadowed by another, or shadowing another. */
function betweenRules(active: LintRule[], budget: Budget, focus?: string): Finding[] {
  const findings: Finding[] = [];
  const from = firstCandidates(active);
  const focusAt = focus === undefined ? -1 : active.findIndex((rule) => rule.id === focus);
  active.forEach((later, j) => {
    if (budget.exhausted) return;
    if (focus !== undefined && j !== focusAt) {
      // Later than the focus and covered by it, or nothing to say about the focus.
      const earlier = active[focusAt];
      if (!earlier || j < focusAt || (from[j] as number) > focusAt || !eligible(earlier, later)) return;
      if (!budget.spend(earlier.pairs.length * later.pairs.length) || !coveredPairs(earlier, later)) return;
    }
    for (let i = from[j] as number; i < j; i++) {
      const earlier = active[i] as LintRule;
      const kind = eligible(earlier, later);
      if (!kind) continue;
      if (!budget.spend(earlier.pairs.length * later.pairs.length)) return;
      const covered = coveredPairs(earlier, later);
      if (!covered) continue;
      const effect =
        kind === 'cancel'
          ? 'cancels every request it matches first'
          : `decides the ${later.ruleType} effect first for every request it matches`;
      findings.push({
        code: 'shadowed',
        severity: 'warning',
        ruleIds: [later.id, earlier.id],
        pointers: [
          ...later.pairs.map((_, k) => ({ ruleId: later.id, path: `/pairs/${k}/source` })),
          ...[...new Set(covered.at)].map((k) => ({ ruleId: earlier.id, path: `/pairs/${k}/source` })),
        ],
        message: `"${later.name}" can never act: "${earlier.name}" comes earlier and ${effect} (${how(covered.decided)}).`,
        hint: 'Narrow the earlier rule, move this rule before it, or delete this rule if it is no longer needed.',
      });
      return;
    }
  });
  return findings;
}

/** Within one first-one-wins rule (other than Cancel, whose pairs all do the same), pairs behind a covering pair. */
function withinRules(active: LintRule[], budget: Budget, focus?: string): Finding[] {
  const findings: Finding[] = [];
  for (const rule of active) {
    if (focus !== undefined && rule.id !== focus) continue;
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
          message: `Pair ${j} of "${rule.name}" can never act: pair ${i} of the same rule matches every request it matches, and only the first matching pair of a ${rule.ruleType} rule acts (${how(decided)}).`,
          hint: `Move pair ${j} before pair ${i}, or delete it.`,
        });
        return;
      }
    });
  }
  return findings;
}

/** `active`: the rules that act, in list order; with `focus`, only the findings about that rule. */
export function shadowed(active: LintRule[], budget: Budget, focus?: string): Finding[] {
  return [...betweenRules(active, budget, focus), ...withinRules(active, budget, focus)];
}
