// UserAgent: the request's User-Agent header set. The first rule that matches wins, as a higher
// priority's `set` does in Chrome.
import type { UserAgentPair } from '../../model/rule-types/user-agent.js';
import { type PairTranslator, withCondition } from './pair-rule.js';

export const userAgentPair: PairTranslator = (pair) =>
  withCondition(pair, {
    type: 'modifyHeaders',
    requestHeaders: [{ header: 'User-Agent', operation: 'set', value: (pair as UserAgentPair).userAgent }],
  });
