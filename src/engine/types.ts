// The shapes the engine reads and answers: rules as stored, checks, per-pair and per-rule verdicts,
// and the outcome for the request.
import type { HeaderMap } from './request.js';

/** A rule as the engine needs it: the stored rule, and the status of its group (absent: ungrouped). */
export interface EngineRule {
  id: string;
  name: string;
  ruleType: string;
  status: string;
  groupStatus?: string;
  pairs: Record<string, unknown>[];
  /**
   * A Script rule's `removeCSPHeader`: unless false, the Content-Security-Policy of the documents it acts
   * on is removed (absent is Requestly's default, true). Other types ignore it.
   */
  removeCSPHeader?: boolean;
  /**
   * Why the rule, resolved in the evaluation's environment, fails the checks a written rule passes
   * (variables.ts): it does not act there. Absent or empty: it may act.
   */
  environmentProblems?: { path: string; message: string }[];
}

export interface Check {
  check: string;
  passed: boolean;
  detail: string;
}

export interface PairVerdict {
  index: number;
  pairId?: string;
  matched: boolean;
  checks: Check[];
  captures: string[];
  effect: Record<string, unknown> | null;
}

export type Reason =
  | 'acted'
  | 'no_pair_matched'
  | 'inactive'
  | 'group_inactive'
  | 'overridden'
  | 'cancelled'
  | 'after_redirect'
  | 'no_change'
  | 'invalid_in_environment';

export interface RuleVerdict {
  ruleId: string;
  name: string;
  ruleType: string;
  acted: boolean;
  reason: Reason;
  overriddenBy?: string;
  /** With reason `invalid_in_environment`: what its variables broke (paths into the rule, no values). */
  problems?: { path: string; message: string }[];
  /** The variables whose values the rule took in this environment (set by the trace's caller). */
  variables?: string[];
  pairs: PairVerdict[];
}

export interface ResponseHeaderChange {
  header: string;
  type: string;
  value?: string;
  ruleId: string;
}

export interface BodyEffect {
  ruleId: string;
  type: string;
  value: string;
}

export interface ResponseEffect extends BodyEffect {
  statusCode: number;
  statusText?: string;
  serveWithoutRequest: boolean;
}

export interface ScriptEffect {
  ruleId: string;
  type: string;
  codeType: string;
  loadTime: string;
  value: string;
  fileName?: string;
  attributes?: { name: string; value: string }[];
}

/** What the rules did to the request, built up rule by rule. */
export interface EvaluationState {
  url: string;
  cancelled: boolean;
  requestHeaders: HeaderMap;
  responseHeaders: ResponseHeaderChange[];
  delayMs: number;
  requestBody: BodyEffect | null;
  response: ResponseEffect | null;
  scripts: ScriptEffect[];
}

export interface Outcome {
  cancelled: boolean;
  url: string;
  redirected: boolean;
  requestHeaders: Record<string, string | string[]>;
  responseHeaders: ResponseHeaderChange[];
  delayMs: number;
  requestBody: BodyEffect | null;
  response: ResponseEffect | null;
  scripts: ScriptEffect[];
}
