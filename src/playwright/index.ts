// `import { applyRules, runRuleTests } from 'rulekeeper/playwright'`: a workspace's rules applied to a
// Playwright browser context (route-rules.ts), and `rulekeeper test` case files run in its real pages
// (rule-tests.ts). Playwright is the caller's: only its types are used.

export type { CaseReport, RuleTestCase, RuleTestsReport } from '../cli/rule-tests.js';
export { type AppliedRules, type ApplyRulesOptions, applyRules } from './route-rules.js';
export { type RunRuleTestsOptions, runRuleTests } from './rule-tests.js';
