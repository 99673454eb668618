// Script: Chrome's rules cannot inject scripts (the extension's content scripts do, under the page's
// Content-Security-Policy). What they can do is what Requestly's extension writes for a Script rule
// (app/src/modules/extension/mv3RuleParser/parseScriptRule.ts): remove the Content-Security-Policy
// header of the documents a pair matches, main and sub frames, so that a policy forbidding inline or
// foreign scripts does not stop the injected ones. A rule with `removeCSPHeader: false` has nothing to
// write (compile.ts reports it as before). Written, a pair is `partial`: its scripts are not in Chrome's
// rule, the content scripts add them.
import { CSP_HEADER } from '../effects/script.js';
import { type PairTranslator, withCondition } from './pair-rule.js';

const DOCUMENTS = ['main_frame', 'sub_frame'];

export const SCRIPTS_INJECTED =
  "Chrome's rules cannot inject scripts: the extension's content scripts inject them into pages; the rule " +
  'removes the Content-Security-Policy header of the documents it matches (removeCSPHeader), so that they run';

export const scriptPair: PairTranslator = (pair) => {
  const translated = withCondition(pair, {
    type: 'modifyHeaders',
    responseHeaders: [{ header: CSP_HEADER, operation: 'remove' }],
  });
  if (translated.kind !== 'rules') return translated;
  const rules = translated.rules.flatMap(({ action, condition }) => {
    // Documents only, as the engine's Script acts (its document check): within the pair's own types.
    const resourceTypes = (condition.resourceTypes ?? DOCUMENTS).filter((type) => DOCUMENTS.includes(type));
    return resourceTypes.length === 0 ? [] : [{ action, condition: { ...condition, resourceTypes } }];
  });
  if (rules.length === 0)
    return {
      kind: 'never',
      reason: 'the filters allow no document (main_frame or sub_frame): no script goes in',
    };
  return { kind: 'rules', rules, left: [SCRIPTS_INJECTED] };
};
