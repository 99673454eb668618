// What a Script rule does to a request.
import type { ScriptPair } from '../../model/rule-types/script.js';
import { isDocument } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const scriptEffect: RuleEffect<ScriptPair> = {
  combine: 'all',
  condition: isDocument,
  apply: (pair, _captures, state, ruleId) => {
    for (const script of pair.scripts) state.scripts.push({ ruleId, ...script });
    return { scripts: pair.scripts.length };
  },
};
