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
