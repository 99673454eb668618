// What a Response rule does to a request.
import type { ResponsePair } from '../../model/rule-types/response.js';
import type { RuleEffect } from './rule-effect.js';

export const responseEffect: RuleEffect<ResponsePair> = {
  combine: 'first',
  apply: (pair, _captures, state, ruleId) => {
    const { type, value, statusCode = 200, statusText, serveWithoutRequest = false } = pair;
    const response = {
      type,
      value,
      statusCode,
      ...(statusText === undefined ? {} : { statusText }),
      serveWithoutRequest,
    };
    state.response = { ruleId, ...response };
    return { response };
  },
};
