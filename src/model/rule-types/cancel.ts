// The Cancel rule type: matching requests are blocked; the pair is its source alone.
import type { Static } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';

export const CancelPair = pairSchema('CancelPair', 'Blocks matching requests.', {});

const valid = {
  source: { key: 'host', operator: 'Equals', value: 'ads.example.com' },
} satisfies CancelPair;

/** A Cancel pair as stored and returned. */
export type CancelPair = Static<typeof CancelPair>;

export const cancel: RuleTypeDefinition = {
  name: 'Cancel',
  pair: CancelPair,
  normalise: pairNormaliser(),
  check: checkPairSource,
  examples: {
    valid: [
      { title: 'cancel one host', pair: valid },
      {
        title: 'cancel tracking scripts by wildcard, with a pair id',
        pair: {
          id: 'abc123',
          source: {
            key: 'Url',
            operator: 'Wildcard_Matches',
            value: '*://*.tracker.example/*',
            filters: [{ resourceType: ['script', 'image'], URL: { operator: 'Contains', value: 'shop' } }],
          },
        } satisfies CancelPair,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'source not an object', pair: { source: 'ads.example.com' }, path: '/source' },
      {
        title: 'filter resource type not allowed',
        pair: { source: { ...valid.source, filters: [{ resourceType: ['document'] }] } },
        path: '/source/filters/0/resourceType/0',
      },
    ],
    variants: sourceVariants(valid),
  },
};
