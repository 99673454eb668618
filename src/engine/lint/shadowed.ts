// `shadowed`: a rule that can never act, because an earlier rule always takes its effect first: an
// earlier rule of the same first-one-wins type, or an earlier Cancel, matches every request it matches.
// A pair of a first-one-wins rule behind an earlier pair of the same rule that covers it never acts either.
import { ruleEffects } from '../effects/index.js';
import { covers, type Decided, SAMPLES, type Source } from './sources.js';
import type { Finding, LintRule } from './types.js';

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

/**
 * A rule between the two that changes the URL would make the later one see another URL than the
 * earlier one saw: then nothing is claimed. A Redirect between two Redirects changes nothing of that
 * (when it acts, the earlier one did not, and it takes the effect itself).
 */
function urlChangesBetween(active: LintRule[], from: number, to: number, type: string): boolean {
  return active
    .slice(from + 1, to)
    .some(
      (rule) =>
        effectOf(rule)?.url === 'chain' || (effectOf(rule)?.url === 'redirect' && type !== 'Redirect'),
    );
}

function betweenRules(active: LintRule[]): Finding[] {
  const findings: Finding[] = [];
  active.forEach((later, j) => {
    const firstWins = effectOf(later)?.combine === 'first';
    for (let i = 0; i < j; i++) {
      const earlier = active[i] as LintRule;
      const sameSlot = firstWins && earlier.ruleType === later.ruleType;
      const cancels = earlier.ruleType === 'Cancel' && later.ruleType !== 'Cancel';
      if (!sameSlot && !cancels) continue;
      if (urlChangesBetween(active, i, j, later.ruleType)) continue;
      const covered = coveredPairs(earlier, later);
      if (!covered) continue;
      const effect = cancels
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
function withinRules(active: LintRule[]): Finding[] {
  const findings: Finding[] = [];
  for (const rule of active) {
    if (effectOf(rule)?.combine !== 'first' || rule.ruleType === 'Cancel') continue;
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

/** `active`: the rules that act, in list order. */
export function shadowed(active: LintRule[]): Finding[] {
  return [...betweenRules(active), ...withinRules(active)];
}
