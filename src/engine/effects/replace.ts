// What a Replace rule does to a request.

import { isPatternLiteral } from '../../model/patterns.js';
import type { ReplacePair } from '../../model/rule-types/replace.js';
import { substituteCaptures } from '../captures.js';
import { compileRegex, replaceMatches } from '../regex.js';
import { changeUrl } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const replaceEffect: RuleEffect<ReplacePair> = {
  combine: 'all',
  url: 'chain',
  apply: (pair, captures, state) => {
    const to = substituteCaptures(pair.to, captures);
    if (!isPatternLiteral(pair.from))
      return changeUrl(
        state,
        state.url.replace(pair.from, () => to),
      );
    const compiled = compileRegex(pair.from);
    if (!compiled.ok) return { error: `from cannot be used: ${compiled.problem}` };
    return changeUrl(state, replaceMatches(compiled.regex, state.url, to, compiled.global));
  },
};
