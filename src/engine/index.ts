// The rule engine: what a workspace's rules do to a request, and why. Pure functions, no I/O; the
// trace endpoint, `rulekeeper test` and the proxy all call it.
export { substituteCaptures } from './captures.js';
export type { TraceResult } from './evaluate.js';
export { type EngineRequest, parseUrl, type RequestInput, toEngineRequest } from './request.js';
export { compileRuleSet, type RuleSet } from './rule-set.js';
export type { EngineRule, Outcome, Reason, RuleVerdict } from './types.js';
