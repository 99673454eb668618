// `import { applyRules, runRuleTests } from 'rulekeeper/playwright'`: a workspace's rules applied to a
// Playwright browser context (route-rules.ts), and `rulekeeper test` case files run in its real pages
// (rule-tests.ts). Playwright is the caller's: only its types are used.

export type { RuleTestCase } from '../rule-tests/rule-test-file.js';
export type { CaseReport, RuleTestsReport } from '../rule-tests/run-cases.js';
export { type AppliedRules, type ApplyRulesOptions, applyRules } from './route-rules.js';
export { type RunRuleTestsOptions, runRuleTests } from './rule-tests.js';
