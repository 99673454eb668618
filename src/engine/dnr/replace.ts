// Replace: the first occurrence of `from` in the URL replaced, as a redirect whose regexFilter is
// `^(before)(from)(after)$` and whose regexSubstitution writes `before`, the new text, `after`. Chrome's
// rule has one URL condition, so the source must follow from `from` being in the URL: an empty source
// value (its filters still apply), or a Url Contains whose value is part of a plain-text `from`.
import { isPatternLiteral } from '../../model/patterns.js';
import type { ReplacePair } from '../../model/rule-types/replace.js';
import { compileRegex } from '../regex.js';
import { type PairTranslator, pairCondition } from './pair-rule.js';
import { replacementTemplate } from './substitution.js';
import { escapeRegex } from './url-condition.js';

const URL_CHAR = '[!-~]';

interface SourceFields {
  key: string;
  operator: string;
  value: string;
}

export const replacePair: PairTranslator = (pair) => {
  const { from, to } = pair as ReplacePair;
  const source = pair.source as SourceFields;
  let pattern: string;
  let groups = 0;
  let names: ReadonlyMap<string, number> | undefined;
  let caseSensitive = true;
  const left: string[] = [];
  if (isPatternLiteral(from)) {
    const compiled = compileRegex(from);
    if (!compiled.ok) return { kind: 'never', reason: `from cannot be used: ${compiled.problem}` };
    // Close, so written and reported (decision 22): the first match is replaced, as without g.
    if (compiled.global)
      left.push('flag g: Chrome replaces the first match only, where the engine replaces every match');
    if (source.value !== '')
      return {
        kind: 'refused',
        reasons: [
          "Chrome's rule has one URL condition: the source and a pattern from cannot both be checked",
        ],
      };
    const inline = compiled.flags;
    pattern = inline ? `(?${inline}:${compiled.source})` : compiled.source;
    groups = compiled.regex.groupCount();
    names = compiled.groupNames;
    caseSensitive = true;
  } else {
    const implied =
      source.value === '' ||
      (source.key === 'Url' && source.operator === 'Contains' && from.includes(source.value));
    if (!implied) {
      return {
        kind: 'refused',
        reasons: [
          "Chrome's rule has one URL condition: the source is checked only when it is empty or a Url Contains of part of from",
        ],
      };
    }
    if (/[\u0080-\uffff]/.test(from))
      return { kind: 'never', reason: 'the browser sends URLs in ASCII: from is never in one' };
    pattern = escapeRegex(from);
  }
  // The engine does not apply a Replace whose URL would not be http(s) or ws(s); Chrome would.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(to)?.[1]?.toLowerCase();
  if (scheme && !['http', 'https', 'ws', 'wss'].includes(scheme))
    return { kind: 'refused', reasons: [`to writes the scheme ${scheme}:, which the engine never sends`] };
  const template = replacementTemplate(to, groups, names);
  if (template.kind !== 'substitution')
    return { kind: 'refused', reasons: [template.kind === 'refused' ? template.reason : 'no substitution'] };
  const regexFilter = `^(${URL_CHAR}*?)(${pattern})(${URL_CHAR}*)$`;
  // The source's filters (its URL part is implied by from), with from as the URL condition.
  const condition = pairCondition({ source: { ...source, value: '' } });
  if (condition.kind !== 'condition') return condition;
  return {
    kind: 'rules',
    rules: [
      {
        action: { type: 'redirect', redirect: { regexSubstitution: template.text } },
        condition: { ...condition.condition, regexFilter, isUrlFilterCaseSensitive: caseSensitive },
      },
    ],
    left,
  };
};
