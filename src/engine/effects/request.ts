// What a Request rule does to a request.
import type { RequestPair } from '../../model/rule-types/request.js';
import type { RuleEffect } from './rule-effect.js';

export const requestEffect: RuleEffect<RequestPair> = {
  combine: 'first',
  apply: ({ type, value }, _captures, state, ruleId) => {
    // A `code` body is reported, never run, by the engine: only a runtime that allows code runs it.
    state.requestBody = { ruleId, type, value };
    return { requestBody: { type, value } };
  },
};
