// What a Redirect rule does to a request.
import type { RedirectPair } from '../../model/rule-types/redirect.js';
import { substituteCaptures } from '../captures.js';
import { redirectTo } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const redirectEffect: RuleEffect<RedirectPair> = {
  combine: 'first',
  url: 'redirect',
  apply: (pair, captures, state) =>
    redirectTo(state, pair.destinationType, substituteCaptures(pair.destination, captures)),
};
