// The Redirect rule type: matching requests go to another URL, a local file or a mock.

import { type Static, Type } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';
import { oneOf } from './schema-helpers.js';

export const RedirectPair = pairSchema('RedirectPair', 'Sends matching requests to another destination.', {
  destinationType: oneOf(['url', 'map_local', 'mock_or_file_picker'], {
    description: 'What `destination` is: a URL, a local file, or a mock or picked file.',
    examples: ['url'],
  }),
  destination: Type.String({
    minLength: 1,
    description: 'Where matching requests go.',
    examples: ['https://staging.example.com/api'],
  }),
});

const valid = {
  source: { key: 'Url', operator: 'Contains', value: 'example.com/api' },
  destinationType: 'url',
  destination: 'https://staging.example.com/api',
} satisfies RedirectPair;

/** A Redirect pair as stored and returned. */
export type RedirectPair = Static<typeof RedirectPair>;

export const redirect: RuleTypeDefinition = {
  name: 'Redirect',
  pair: RedirectPair,
  // Older Requestly exports have no destinationType: their destinations are all URLs.
  normalise: pairNormaliser((pair) =>
    Object.hasOwn(pair, 'destinationType') ? pair : { ...pair, destinationType: 'url' },
  ),
  check: checkPairSource,
  examples: {
    valid: [
      { title: 'redirect to a URL', pair: valid },
      {
        title: 'map local, with a pair id and filters',
        pair: {
          id: 'r1',
          source: {
            key: 'path',
            operator: 'Matches',
            value: '/^\\/static\\/app\\.[0-9a-f]+\\.js$/i',
            filters: [{ requestMethod: ['GET'], resourceType: ['script'], pageDomains: ['example.com'] }],
          },
          destinationType: 'map_local',
          destination: '/home/me/app.js',
        } satisfies RedirectPair,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      {
        title: 'destination type not allowed',
        pair: { ...valid, destinationType: 'file' },
        path: '/destinationType',
      },
      { title: 'destination empty', pair: { ...valid, destination: '' }, path: '/destination' },
      { title: 'destination not a string', pair: { ...valid, destination: 42 }, path: '/destination' },
    ],
    variants: [
      ...sourceVariants(valid),
      {
        title: 'no destinationType (older exports)',
        input: { source: valid.source, destination: valid.destination },
        canonical: valid,
      },
    ],
  },
};
