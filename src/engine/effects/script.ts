// What a Script rule does to a request: its scripts go into the document, and unless the rule says
// `removeCSPHeader: false` the document's Content-Security-Policy header is removed, so that a policy
// forbidding inline or foreign scripts does not stop them (what Requestly's extension does too: a
// header rule removing it on main and sub frames, app/src/modules/extension/mv3RuleParser/parseScriptRule.ts).
import type { ScriptPair } from '../../model/rule-types/script.js';
import { isDocument } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

/** The header removed, as Requestly names it (only the enforcing policy: a Report-Only one blocks nothing). */
export const CSP_HEADER = 'Content-Security-Policy';

export const scriptEffect: RuleEffect<ScriptPair> = {
  combine: 'all',
  condition: isDocument,
  apply: (pair, _captures, state, ruleId, _request, rule) => {
    for (const script of pair.scripts) state.scripts.push({ ruleId, ...script });
    if (rule.removeCSPHeader === false) return { scripts: pair.scripts.length };
    // Once per rule, however many of its pairs match: the outcome lists each change once.
    const asked = state.responseHeaders.some(
      (change) => change.ruleId === ruleId && change.header === CSP_HEADER,
    );
    if (!asked) state.responseHeaders.push({ header: CSP_HEADER, type: 'Remove', ruleId });
    return { scripts: pair.scripts.length, responseHeaders: [{ header: CSP_HEADER, type: 'Remove' }] };
  },
};
