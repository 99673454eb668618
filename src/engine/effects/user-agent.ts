// What a UserAgent rule does to a request.
import type { UserAgentPair } from '../../model/rule-types/user-agent.js';
import type { RuleEffect } from './rule-effect.js';

export const userAgentEffect: RuleEffect<UserAgentPair> = {
  combine: 'first',
  apply: ({ userAgent }, _captures, state) => {
    state.requestHeaders.set('user-agent', [userAgent]);
    return { userAgent };
  },
};
