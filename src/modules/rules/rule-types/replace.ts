// The Replace rule type: a string in the matching URL is replaced by another.
import { type Static, Type } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';

const ReplacePair = pairSchema('ReplacePair', 'Replaces part of the URL of matching requests.', {
  from: Type.String({ minLength: 1, description: 'The string to replace.', examples: ['api.example.com'] }),
  to: Type.String({ description: 'Its replacement; may be empty.', examples: ['api.staging.example.com'] }),
});

const valid = {
  source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
  from: 'api.example.com',
  to: 'api.staging.example.com',
} satisfies Static<typeof ReplacePair>;

export const replace: RuleTypeDefinition = {
  name: 'Replace',
  pair: ReplacePair,
  // Requestly's Replace pairs carry a `status` of their own that means nothing here (decision 7).
  normalise: pairNormaliser(({ status: _ignored, ...pair }) => pair),
  check: checkPairSource,
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
        } satisfies Static<typeof ReplacePair>,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'from empty', pair: { ...valid, from: '' }, path: '/from' },
      { title: 'to missing', pair: { source: valid.source, from: 'a' }, path: '/to' },
      { title: 'to not a string', pair: { ...valid, to: null }, path: '/to' },
    ],
    variants: [
      ...sourceVariants(valid),
      { title: 'a status in the pair (ignored)', input: { ...valid, status: 'Active' }, canonical: valid },
    ],
  },
};
