// The QueryParam rule type: query parameters of matching requests are added or removed.

import { type Static, Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';
import { ModificationId, oneOf } from './schema-helpers.js';

const QueryParamModification = Type.Object(
  {
    id: ModificationId,
    param: Type.Optional(
      Type.String({
        description: 'Parameter name; required unless type is `Remove All`.',
        examples: ['debug'],
      }),
    ),
    type: oneOf(['Add', 'Remove', 'Remove All'], {
      description: '`Modify` is not a type: use `Add` with `actionWhenParamExists: Overwrite`.',
      examples: ['Add'],
    }),
    value: Type.Optional(Type.String({ description: 'Required for `Add`.', examples: ['true'] })),
    actionWhenParamExists: Type.Optional(
      oneOf(['Overwrite', 'Ignore'], { description: 'What `Add` does when the parameter is already there.' }),
    ),
  },
  { additionalProperties: false },
);

export const QueryParamPair = pairSchema(
  'QueryParamPair',
  'Changes the query parameters of matching requests.',
  {
    modifications: Type.Array(QueryParamModification, { minItems: 1, maxItems: 100 }),
  },
);

type QueryParamPairValue = Static<typeof QueryParamPair>;

/** Which fields a modification needs depends on its type, which a schema says only through a poor error. */
function checkQueryParam(pair: Record<string, unknown>): ErrorDetail[] {
  const details = checkPairSource(pair);
  (pair as QueryParamPairValue).modifications.forEach((modification, index) => {
    const path = `/modifications/${index}`;
    if (modification.type !== 'Remove All' && modification.param === undefined) {
      details.push({ path: `${path}/param`, message: 'required field missing unless type is Remove All' });
    } else if (modification.type !== 'Remove All' && modification.param === '') {
      details.push({ path: `${path}/param`, message: 'must not be empty' });
    }
    if (modification.type === 'Add' && modification.value === undefined) {
      details.push({ path: `${path}/value`, message: 'required field missing when type is Add' });
    }
  });
  return details;
}

const valid = {
  source: { key: 'Url', operator: 'Contains', value: 'example.com/search' },
  modifications: [{ param: 'debug', type: 'Add', value: 'true', actionWhenParamExists: 'Overwrite' }],
} satisfies QueryParamPairValue;

const withModification = (modification: Record<string, unknown>) => ({
  ...valid,
  modifications: [modification],
});

/** A QueryParam pair as stored and returned. */
export type QueryParamPair = Static<typeof QueryParamPair>;

export const queryParam: RuleTypeDefinition = {
  name: 'QueryParam',
  pair: QueryParamPair,
  normalise: pairNormaliser(),
  check: checkQueryParam,
  examples: {
    valid: [
      { title: 'add a parameter', pair: valid },
      {
        title: 'remove one parameter, then all, with a pair id',
        pair: {
          id: 'q1',
          source: { key: 'host', operator: 'Equals', value: 'example.com' },
          modifications: [{ id: 'm1', param: 'utm_source', type: 'Remove' }, { type: 'Remove All' }],
        } satisfies QueryParamPairValue,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      {
        title: 'Modify is rejected',
        pair: withModification({ param: 'a', type: 'Modify', value: '1' }),
        path: '/modifications/0/type',
      },
      {
        title: 'value missing for Add',
        pair: withModification({ param: 'a', type: 'Add' }),
        path: '/modifications/0/value',
      },
      {
        title: 'param missing for Remove',
        pair: withModification({ type: 'Remove' }),
        path: '/modifications/0/param',
      },
      { title: 'no modification', pair: { ...valid, modifications: [] }, path: '/modifications' },
      {
        title: 'action when param exists not allowed',
        pair: withModification({ param: 'a', type: 'Add', value: '1', actionWhenParamExists: 'Append' }),
        path: '/modifications/0/actionWhenParamExists',
      },
      {
        title: 'modification id not letters and digits',
        pair: withModification({ id: 'm-1', type: 'Remove All' }),
        path: '/modifications/0/id',
      },
    ],
    variants: sourceVariants(valid),
  },
};
