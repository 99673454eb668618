// What a Cancel rule does to a request.
import type { CancelPair } from '../../model/rule-types/cancel.js';
import type { RuleEffect } from './rule-effect.js';

export const cancelEffect: RuleEffect<CancelPair> = {
  combine: 'first',
  apply: (_pair, _captures, state) => {
    state.cancelled = true;
    return { cancelled: true };
  },
};
