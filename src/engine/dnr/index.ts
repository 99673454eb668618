// Rules in the browser: the engine's rules compiled to Chrome declarativeNetRequest rules (MV3).
export {
  type BrowserRules,
  compileBrowserRules,
  createBrowserRuleCompiler,
  isActive,
  type RuleTranslation,
  translateRule,
} from './compile.js';
export { CHROME_REGEX_INSTRUCTIONS, MAX_DYNAMIC_RULES, MAX_REGEX_RULES, MAX_UNSAFE_RULES } from './limits.js';
export { regexProblem } from './url-condition.js';
