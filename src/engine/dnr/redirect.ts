// Redirect: Chrome's redirect action, to a fixed URL, or with the source's captures through a
// regexFilter that matches the whole URL and a regexSubstitution that writes the new one.
import type { RedirectPair } from '../../model/rule-types/redirect.js';
import { compileMatcher } from '../match.js';
import { parseUrl, urlComponent } from '../request.js';
import { type PairTranslator, pairCondition } from './pair-rule.js';
import { destinationTemplate } from './substitution.js';

type Operand = { operator: string; value: string };

/** Whether the source matches its own destination (a redirect to the very URL requested). */
function matchesItself(source: Operand & { key: string }, destination: string): boolean {
  const key = source.key as 'Url' | 'host' | 'path';
  return compileMatcher(source).test(urlComponent(destination, key)) !== undefined;
}

/** Captures a destination may name: `$1` … `$9`, `${N}`. */
const NAMES_CAPTURE = /\$(?:\{\d+\}|[1-9])/;

export const redirectPair: PairTranslator = (pair) => {
  const { destination, destinationType } = pair as RedirectPair;
  if (destinationType !== 'url' && parseUrl(destination) === undefined) {
    return {
      kind: 'refused',
      reasons: [`Chrome's rules cannot serve a local file (${destinationType}); only the proxy can`],
    };
  }
  const condition = pairCondition(pair, NAMES_CAPTURE.test(destination));
  if (condition.kind !== 'condition') return condition;
  const template = destinationTemplate(destination, condition.captures);
  if (template.kind === 'refused') return { kind: 'refused', reasons: [template.reason] };
  // Chrome needs an absolute URL where the engine would resolve a relative one against the request.
  const sample = template.kind === 'fixed' ? template.text : template.text.replace(/\\[0-9]/g, 'x');
  const absolute = parseUrl(sample.replaceAll('\\\\', '\\'));
  if (!absolute) {
    return {
      kind: 'refused',
      reasons: [
        'the destination is not an absolute http(s) or ws(s) URL: Chrome cannot resolve it against the request',
      ],
    };
  }
  if (template.kind === 'fixed') {
    return {
      kind: 'rules',
      rules: [
        { action: { type: 'redirect', redirect: { url: absolute.href } }, condition: condition.condition },
      ],
      left: matchesItself(pair.source as Operand & { key: string }, absolute.href)
        ? [
            'at its own destination, Chrome ignores the redirect and no later Redirect acts; the engine lets a later one act',
          ]
        : [],
    };
  }
  if (!condition.wholeUrl) {
    return { kind: 'refused', reasons: ['the captures cannot be taken over the whole URL in Chrome'] };
  }
  return {
    kind: 'rules',
    rules: [
      {
        action: { type: 'redirect', redirect: { regexSubstitution: template.text } },
        condition: condition.condition,
      },
    ],
    left: [],
  };
};
