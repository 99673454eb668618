// The Delay rule type: matching requests are held back for a number of milliseconds.
import { type Static, Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { PairContext, RuleTypeDefinition } from './rule-type.js';
import { digitsToNumber } from './schema-helpers.js';

/** The largest MAX_DELAY_MS an instance takes (a day): no delay above it is valid anywhere. */
export const MAX_CONFIGURABLE_DELAY_MS = 86_400_000;

export const DelayPair = pairSchema('DelayPair', 'Delays matching requests.', {
  delay: Type.Integer({
    minimum: 0,
    maximum: MAX_CONFIGURABLE_DELAY_MS,
    description: 'Milliseconds, from 0 to the configured maximum (MAX_DELAY_MS, default 60000).',
    examples: [250],
  }),
});

/** The maximum is configuration, so it cannot be in the schema (which is also the OpenAPI document). */
function checkDelay(pair: Record<string, unknown>, ctx: PairContext): ErrorDetail[] {
  const details = checkPairSource(pair);
  if ((pair as DelayPair).delay > ctx.maxDelayMs) {
    details.push({ path: '/delay', message: `must be at most ${ctx.maxDelayMs} (milliseconds)` });
  }
  return details;
}

const valid = {
  source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
  delay: 250,
} satisfies DelayPair;

/** A Delay pair as stored and returned. */
export type DelayPair = Static<typeof DelayPair>;

export const delay: RuleTypeDefinition = {
  name: 'Delay',
  pair: DelayPair,
  // Requestly sends the delay as a string of digits, and may say where it delays (`delayType`: in the
  // page or through its delay server); here the request waits wherever the rules act, so it is dropped
  // (an import warns when it was not Requestly's default: requestly-fields.ts).
  normalise: pairNormaliser(({ delayType: _dropped, ...pair }) =>
    Object.hasOwn(pair, 'delay') ? { ...pair, delay: digitsToNumber(pair.delay) } : pair,
  ),
  check: checkDelay,
  examples: {
    valid: [
      { title: 'a quarter of a second', pair: valid },
      { title: 'no delay at all, with a pair id', pair: { ...valid, id: 'd1', delay: 0 } },
      { title: 'the default maximum', pair: { ...valid, delay: 60000 } },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'above the maximum', pair: { ...valid, delay: 60001 }, path: '/delay' },
      { title: 'negative', pair: { ...valid, delay: -1 }, path: '/delay' },
      { title: 'not an integer', pair: { ...valid, delay: 2.5 }, path: '/delay' },
      { title: 'a string that is not digits', pair: { ...valid, delay: '250ms' }, path: '/delay' },
      { title: 'missing', pair: { source: valid.source }, path: '/delay' },
    ],
    variants: [
      ...sourceVariants(valid),
      { title: 'delay as a string of digits', input: { ...valid, delay: '250' }, canonical: valid },
      {
        title: "Requestly's delayType (dropped)",
        input: { ...valid, delay: '250', delayType: 'serverSideDelay' },
        canonical: valid,
      },
    ],
  },
};
