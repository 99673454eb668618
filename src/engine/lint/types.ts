// The shapes of the lint: the rules and groups it reads; the findings it answers are declared in the model.
export {
  FINDING_CODES,
  type Finding,
  type FindingCode,
  SEVERITIES,
  type Severity,
} from '../../model/finding.js';

/** A rule as the lint reads it: stored fields, in list order (creationDate, then id). */
export interface LintRule {
  id: string;
  name: string;
  ruleType: string;
  status: string;
  /** "" or absent when ungrouped. */
  groupId?: string | null;
  pairs: Record<string, unknown>[];
}

export interface LintGroup {
  id: string;
  name: string;
  status: string;
}

/**
 * How many comparisons of a rule with another a lint may make. Comparing every rule with every other
 * grows with the square of the rules; past the budget, the checks that compare rules (shadowed,
 * redirect_loop) stop where they are and the answer says it is not complete.
 */
export class Budget {
  constructor(private left: number) {}

  /** Takes `cost` comparisons; false when there were not that many left. */
  spend(cost: number): boolean {
    this.left -= cost;
    return this.left >= 0;
  }

  get exhausted(): boolean {
    return this.left < 0;
  }
}

/**
 * Bounds a lint to a few seconds on a loaded two-core machine (a workspace of about 1,500 mixed
 * rules is compared in full); measured, not timed, so that the same rules give the same answer.
 */
export const DEFAULT_COMPARISONS = 250_000;
