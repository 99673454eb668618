// What a Delay rule does to a request.
import type { DelayPair } from '../../model/rule-types/delay.js';
import type { RuleEffect } from './rule-effect.js';

export const delayEffect: RuleEffect<DelayPair> = {
  combine: 'first',
  apply: (pair, _captures, state) => {
    state.delayMs = pair.delay;
    return { delayMs: pair.delay };
  },
};
