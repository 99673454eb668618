// The shapes of the lint: the rules and groups it reads, and the findings it answers.

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

export const FINDING_CODES = [
  'redirect_loop',
  'shadowed',
  'no_op',
  'matches_everything',
  'inactive_in_active',
  'active_in_inactive_group',
  'duplicate',
  'browser_unsupported',
  'code_needs_allow',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Where in a rule a finding points: a JSON Pointer into that rule (`/pairs/0/source/value`). */
export interface FindingPointer {
  ruleId: string;
  path: string;
}

export interface Finding {
  code: FindingCode;
  severity: Severity;
  /** The rules concerned, the one the finding is about first. */
  ruleIds: string[];
  pointers: FindingPointer[];
  message: string;
  hint: string;
}
