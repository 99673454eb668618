// The Response rule type: the response to matching requests is replaced by a static body or by code.
import { type Static, Type } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, liftNested, pairNormaliser, pairSchema, readStatusCode } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';
import { oneOf } from './schema-helpers.js';

/** Shared with the Request type. */
export const ApiResourceType = oneOf(['restApi', 'graphqlApi', 'static', 'unknown'], {
  description: 'What kind of resource the requests are for.',
  examples: ['restApi'],
});

/** Shared with the Request type: Requestly says whether the body it stored was compressed. */
export const IsCompressed = Type.Optional(
  Type.Boolean({ description: 'Whether Requestly stored the body compressed; kept as sent.' }),
);

export const BodyType = oneOf(['code', 'static'], {
  description: '`value` is a static body or the code of a function that builds it.',
  examples: ['static'],
});

export const ResponsePair = pairSchema('ResponsePair', 'Replaces the response to matching requests.', {
  type: BodyType,
  value: Type.String({ description: 'The static body, or the function code.', examples: ['{"ok":true}'] }),
  serveWithoutRequest: Type.Optional(
    // No `default` keyword: Ajv in strict mode rejects one inside the anyOf of PairSchema.
    Type.Boolean({ description: 'Answer without sending the request to the server. Default false.' }),
  ),
  statusCode: Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: 599,
      description: 'HTTP status of the response.',
      examples: [200],
    }),
  ),
  statusText: Type.Optional(Type.String({ description: 'HTTP reason phrase.', examples: ['OK'] })),
  resourceType: Type.Optional(ApiResourceType),
  isCompressed: IsCompressed,
});

const valid = {
  source: { key: 'Url', operator: 'Contains', value: 'example.com/api/user' },
  type: 'static',
  value: '{"name":"Ada"}',
  serveWithoutRequest: false,
} satisfies ResponsePair;

const full = {
  ...valid,
  id: 'resp1',
  serveWithoutRequest: true,
  statusCode: 404,
  statusText: 'Not Found',
  resourceType: 'restApi',
} satisfies ResponsePair;

/** A Response pair as stored and returned. */
export type ResponsePair = Static<typeof ResponsePair>;

export const response: RuleTypeDefinition = {
  name: 'Response',
  pair: ResponsePair,
  normalise: pairNormaliser((input, paths) => {
    // Requestly nests the response; "default false" is written out so what is stored says what happens.
    const pair = readStatusCode(liftNested(input, 'response', paths));
    return Object.hasOwn(pair, 'serveWithoutRequest') ? pair : { ...pair, serveWithoutRequest: false };
  }),
  check: checkPairSource,
  examples: {
    valid: [
      { title: 'static body', pair: valid },
      { title: 'served without request, with status and a pair id', pair: full },
      {
        title: 'code',
        pair: { ...valid, type: 'code', value: 'function modifyResponse(args) { return args.response; }' },
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'type not allowed', pair: { ...valid, type: 'json' }, path: '/type' },
      { title: 'status code out of range', pair: { ...valid, statusCode: 700 }, path: '/statusCode' },
      { title: 'status code not a number', pair: { ...valid, statusCode: 'Not Found' }, path: '/statusCode' },
      {
        title: 'serve without request not a boolean',
        pair: { ...valid, serveWithoutRequest: 'yes' },
        path: '/serveWithoutRequest',
      },
      { title: 'value missing', pair: { source: valid.source, type: 'static' }, path: '/value' },
      { title: 'isCompressed not a boolean', pair: { ...valid, isCompressed: 'no' }, path: '/isCompressed' },
    ],
    variants: [
      ...sourceVariants(valid),
      {
        title: 'serveWithoutRequest left out',
        input: { source: valid.source, type: 'static', value: valid.value },
        canonical: valid,
      },
      {
        title: 'nested response with a status code as a string',
        input: {
          id: 'resp1',
          source: valid.source,
          response: {
            type: 'static',
            value: valid.value,
            serveWithoutRequest: true,
            statusCode: '404',
            statusText: 'Not Found',
            resourceType: 'restApi',
          },
        },
        canonical: full,
      },
      {
        title: 'an empty status code, on the pair or nested, and isCompressed',
        input: {
          source: valid.source,
          statusCode: '',
          response: { type: 'static', value: valid.value, isCompressed: false },
        },
        canonical: { ...valid, isCompressed: false },
      },
    ],
  },
};
