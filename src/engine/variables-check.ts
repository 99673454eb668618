// The rule types' own checks, run again on a rule its variables resolved (variables.ts takes them as a
// PairsCheck): a header name must still be a name, a pattern must still compile. Apart from
// variables.ts because they compile schemas (TypeBox), which a browser service worker cannot do:
// the server, the proxy and the Playwright fixture pass them; the extension's runtime goes without.
import { checkPairs, type RuleType } from '../model/rule-types/index.js';
import type { PairsCheck } from './variables.js';

export const checkResolvedPairs: PairsCheck = (ruleType, pairs) =>
  // A Delay is never resolved (no field of it is listed): its configured maximum does not apply here.
  checkPairs(ruleType as RuleType, pairs, { maxDelayMs: Number.POSITIVE_INFINITY }).details;
