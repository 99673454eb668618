// The Replace rule type: a string in the matching URL is replaced by another.

import { type Static, Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import { isPatternLiteral, regexProblem } from '../patterns.js';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';

export const ReplacePair = pairSchema('ReplacePair', 'Replaces part of the URL of matching requests.', {
  from: Type.String({ minLength: 1, description: 'The string to replace.', examples: ['api.example.com'] }),
  to: Type.String({ description: 'Its replacement; may be empty.', examples: ['api.staging.example.com'] }),
});

/** A `/pattern/flags` from is a regular expression, and must compile like a Matches source. */
function checkReplace(pair: Record<string, unknown>): ErrorDetail[] {
  const details = checkPairSource(pair);
  const { from } = pair as ReplacePair;
  const problem = isPatternLiteral(from) ? regexProblem(from) : undefined;
  if (problem) details.push({ path: '/from', message: `regular expression cannot be used: ${problem}` });
  return details;
}

const valid = {
  source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
  from: 'api.example.com',
  to: 'api.staging.example.com',
} satisfies ReplacePair;

/** A Replace pair as stored and returned. */
export type ReplacePair = Static<typeof ReplacePair>;

export const replace: RuleTypeDefinition = {
  name: 'Replace',
  pair: ReplacePair,
  // Requestly's Replace pairs carry a `status` of their own that means nothing here.
  normalise: pairNormaliser(({ status: _ignored, ...pair }) => pair),
  check: checkReplace,
  examples: {
    valid: [
      { title: 'replace a host', pair: valid },
      {
        title: 'remove a string (empty replacement), with a pair id',
        pair: {
          id: 'Rep1',
          source: { key: 'Url', operator: 'Contains', value: 'debug=' },
          from: 'debug=false',
          to: '',
        } satisfies ReplacePair,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'from empty', pair: { ...valid, from: '' }, path: '/from' },
      {
        title: 'from a regular expression with a lookahead',
        pair: { ...valid, from: '/a(?=b)/' },
        path: '/from',
      },
      { title: 'to missing', pair: { source: valid.source, from: 'a' }, path: '/to' },
      { title: 'to not a string', pair: { ...valid, to: null }, path: '/to' },
    ],
    variants: [
      ...sourceVariants(valid),
      { title: 'a status in the pair (ignored)', input: { ...valid, status: 'Active' }, canonical: valid },
    ],
  },
};
