// The UserAgent rule type: matching requests are sent with another User-Agent.
import { type Static, Type } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';
import { oneOf } from './schema-helpers.js';

export const UserAgentPair = pairSchema('UserAgentPair', 'Sets the User-Agent of matching requests.', {
  userAgent: Type.String({
    minLength: 1,
    description: 'The User-Agent value to send.',
    examples: ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)'],
  }),
  env: Type.Optional(
    Type.String({ description: 'The browser or device the value was picked for.', examples: ['iPhone'] }),
  ),
  envType: Type.Optional(
    oneOf(['browser', 'device', 'custom'], { description: 'What kind of `env` it is.' }),
  ),
});

const valid = {
  source: { key: 'host', operator: 'Contains', value: 'example.com' },
  userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
} satisfies UserAgentPair;

/** A UserAgent pair as stored and returned. */
export type UserAgentPair = Static<typeof UserAgentPair>;

export const userAgent: RuleTypeDefinition = {
  name: 'UserAgent',
  pair: UserAgentPair,
  normalise: pairNormaliser(),
  check: checkPairSource,
  examples: {
    valid: [
      { title: 'custom user agent', pair: valid },
      {
        title: 'device user agent, with env and a pair id',
        pair: { ...valid, id: 'ua1', env: 'iPhone', envType: 'device' } satisfies Static<
          typeof UserAgentPair
        >,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'user agent empty', pair: { ...valid, userAgent: '' }, path: '/userAgent' },
      { title: 'user agent missing', pair: { source: valid.source }, path: '/userAgent' },
      { title: 'env type not allowed', pair: { ...valid, envType: 'tablet' }, path: '/envType' },
    ],
    variants: sourceVariants(valid),
  },
};
