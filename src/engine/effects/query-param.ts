// What a QueryParam rule does to a request.
import type { QueryParamPair } from '../../model/rule-types/query-param.js';
import { changeUrl, modifyQuery } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const queryParamEffect: RuleEffect<QueryParamPair> = {
  combine: 'all',
  url: 'chain',
  apply: (pair, _captures, state) => changeUrl(state, modifyQuery(state.url, pair.modifications)),
};
