// The Request rule type: the body of matching requests is replaced by a static body or by code.
import { type Static, Type } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, liftNested, pairNormaliser, pairSchema, readStatusCode } from './pair-helpers.js';
import { ApiResourceType, BodyType, IsCompressed } from './response.js';
import type { RuleTypeDefinition } from './rule-type.js';

export const RequestPair = pairSchema('RequestPair', 'Replaces the body of matching requests.', {
  type: BodyType,
  value: Type.String({ description: 'The static body, or the function code.', examples: ['{"page":1}'] }),
  resourceType: Type.Optional(ApiResourceType),
  isCompressed: IsCompressed,
});

const valid = {
  source: { key: 'Url', operator: 'Contains', value: 'example.com/graphql' },
  type: 'static',
  value: '{"query":"{ user { id } }"}',
} satisfies RequestPair;

const code = {
  id: 'req1',
  source: { key: 'path', operator: 'Equals', value: '/api/search' },
  type: 'code',
  value: 'function modifyRequestBody(args) { return args.body; }',
  resourceType: 'restApi',
} satisfies RequestPair;

/** A Request pair as stored and returned. */
export type RequestPair = Static<typeof RequestPair>;

export const request: RuleTypeDefinition = {
  name: 'Request',
  pair: RequestPair,
  // Requestly nests the request fields, and may send an empty status code with them.
  normalise: pairNormaliser((pair, paths) => readStatusCode(liftNested(pair, 'request', paths))),
  check: checkPairSource,
  examples: {
    valid: [
      { title: 'static body', pair: valid },
      { title: 'code, with resource type and a pair id', pair: code },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'type not allowed', pair: { ...valid, type: 'json' }, path: '/type' },
      { title: 'value not a string', pair: { ...valid, value: { page: 1 } }, path: '/value' },
      { title: 'resource type not allowed', pair: { ...valid, resourceType: 'soap' }, path: '/resourceType' },
      {
        title: 'response field on a request',
        pair: { ...valid, serveWithoutRequest: true },
        path: '/serveWithoutRequest',
      },
      {
        title: 'nested request that clashes with the pair is not lifted',
        pair: { ...valid, request: { type: 'code' } },
        path: '/request',
      },
      { title: 'a status code on a request', pair: { ...valid, statusCode: 200 }, path: '/statusCode' },
    ],
    variants: [
      ...sourceVariants(valid),
      {
        title: 'nested request',
        input: {
          id: code.id,
          source: code.source,
          request: { type: code.type, value: code.value, resourceType: 'restApi' },
        },
        canonical: code,
      },
      {
        title: 'nested request with an empty status code and isCompressed',
        input: {
          source: valid.source,
          request: { type: valid.type, value: valid.value, statusCode: '', isCompressed: true },
        },
        canonical: { ...valid, isCompressed: true },
      },
    ],
  },
};
