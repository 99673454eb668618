// What a Headers rule does to a request: request header changes applied in order, response header
// changes listed for the response, with Requestly's functions in values evaluated for this request.
import type { HeadersPair } from '../../model/rule-types/headers.js';
import { evaluateHeaderValue } from './header-functions.js';
import { modifyHeader } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

type Change = { header: string; type: string; value?: string };

export const headersEffect: RuleEffect<HeadersPair> = {
  combine: 'all',
  apply: (pair, _captures, state, ruleId, engineRequest) => {
    const request: Change[] = [];
    const response: Change[] = [];
    const absent: string[] = [];
    const evaluated = (value: string | undefined) =>
      value === undefined ? {} : { value: evaluateHeaderValue(value, engineRequest) };
    for (const set of pair.modifications) {
      for (const { header, type, value } of set.Request ?? []) {
        const change = { header, type, ...evaluated(value) };
        if (!modifyHeader(state.requestHeaders, change)) absent.push(header);
        request.push(change);
      }
      for (const { header, type, value } of set.Response ?? []) {
        const change = { header, type, ...evaluated(value) };
        response.push(change);
        state.responseHeaders.push({ ...change, ruleId });
      }
    }
    const effect: Record<string, unknown> = { requestHeaders: request, responseHeaders: response };
    // Response headers are not known here, so a response change always counts as one.
    if (response.length === 0 && request.length > 0 && absent.length === request.length) {
      effect.unchanged = `the request has no header ${absent.join(', ')} to ${request.length === 1 ? (request[0] as Change).type.toLowerCase() : 'change'}`;
    }
    return effect;
  },
};
