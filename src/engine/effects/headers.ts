// What a Headers rule does to a request.
import type { HeadersPair } from '../../model/rule-types/headers.js';
import { modifyHeader } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const headersEffect: RuleEffect<HeadersPair> = {
  combine: 'all',
  apply: (pair, _captures, state, ruleId) => {
    const request: { header: string; type: string; value?: string }[] = [];
    const response: typeof request = [];
    for (const set of pair.modifications) {
      for (const { header, type, value } of set.Request ?? []) {
        modifyHeader(state.requestHeaders, { header, type, value });
        request.push({ header, type, ...(value === undefined ? {} : { value }) });
      }
      for (const { header, type, value } of set.Response ?? []) {
        response.push({ header, type, ...(value === undefined ? {} : { value }) });
        state.responseHeaders.push({ ...(response.at(-1) as (typeof response)[0]), ruleId });
      }
    }
    return { requestHeaders: request, responseHeaders: response };
  },
};
