// Redirect: Chrome's redirect action, to a fixed URL, or with the source's captures through a
// regexFilter that matches the whole URL and a regexSubstitution that writes the new one.
import type { RedirectPair } from '../../model/rule-types/redirect.js';
import { parseUrl } from '../request.js';
import { type PairTranslator, pairCondition } from './pair-rule.js';
import { destinationTemplate } from './substitution.js';

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
      left: [],
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
