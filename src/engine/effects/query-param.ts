// What a QueryParam rule does to a request.
import type { QueryParamPair } from '../../model/rule-types/query-param.js';
import { changeUrl, modifyQuery } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const queryParamEffect: RuleEffect<QueryParamPair> = {
  combine: 'all',
  url: 'chain',
  apply: (pair, _captures, state) => {
    const next = modifyQuery(state.url, pair.modifications);
    if (next === state.url)
      return { url: state.url, unchanged: 'the query is already as the changes leave it' };
    return changeUrl(state, next);
  },
};
