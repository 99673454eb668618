// What a Replace rule does to a request: `from` replaced in the URL as JavaScript's `replace` does it.

import { isPatternLiteral } from '../../model/patterns.js';
import type { ReplacePair } from '../../model/rule-types/replace.js';
import { compileRegex, replaceMatches } from '../regex.js';
import { changeUrl } from './helpers.js';
import type { RuleEffect } from './rule-effect.js';

export const replaceEffect: RuleEffect<ReplacePair> = {
  combine: 'all',
  url: 'chain',
  apply: ({ from, to }, _captures, state) => {
    let next: string;
    if (isPatternLiteral(from)) {
      const compiled = compileRegex(from);
      if (!compiled.ok) return { error: `from cannot be used: ${compiled.problem}` };
      // `$1` in `to` is a group of `from` (not of the source), as in the JavaScript Requestly runs.
      next = replaceMatches(compiled.regex, state.url, to, compiled.global, compiled.groupNames);
      if (next === state.url) {
        const why = compiled.regex.test(state.url) ? 'gives the same URL' : 'does not match the URL';
        return { url: state.url, unchanged: `the pattern ${from} ${why}` };
      }
    } else {
      if (!state.url.includes(from)) {
        return { url: state.url, unchanged: `${JSON.stringify(from)} is not in the URL` };
      }
      // A string `from`: its first occurrence; `$&`, `$\``, `$'` and `$$` in `to` act, `$1` stays.
      next = state.url.replace(from, to);
      if (next === state.url) return { url: state.url, unchanged: 'the replacement gives the same URL' };
    }
    return changeUrl(state, next);
  },
};
