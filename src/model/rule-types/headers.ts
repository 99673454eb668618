// The Headers rule type: request and response headers of matching requests are added, removed or modified.

import { type Static, Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { MAX_RANDOM_DIGITS } from './header-functions.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';
import { isRecord, ModificationId, oneOf, patternString, patterns } from './schema-helpers.js';

const MAX_MODIFICATIONS = 100;

const RANDOM_CALL = /rq_rand\((\d*)\)/g;

const HeaderModification = Type.Object(
  {
    id: ModificationId,
    header: patternString('headerName', {
      description: 'Header name; `{{NAME}}` stands for a variable (decisions §20).',
      examples: ['X-Debug'],
    }),
    type: oneOf(['Add', 'Remove', 'Modify'], {
      description: 'What to do with the header.',
      examples: ['Add'],
    }),
    value: Type.Optional(Type.String({ description: 'Required for Add and Modify.', examples: ['1'] })),
  },
  { additionalProperties: false },
);

const modificationList = (target: string) =>
  Type.Optional(
    Type.Array(HeaderModification, {
      maxItems: MAX_MODIFICATIONS,
      description: `Changes to ${target} headers.`,
    }),
  );

const HeaderModificationSet = Type.Object(
  { Request: modificationList('request'), Response: modificationList('response') },
  { additionalProperties: false },
);

export const HeadersPair = pairSchema(
  'HeadersPair',
  'Changes the headers of matching requests and responses.',
  {
    modifications: Type.Array(HeaderModificationSet, {
      minItems: 1,
      maxItems: MAX_MODIFICATIONS,
      description: `Sets of header changes; 1 to ${MAX_MODIFICATIONS} changes in all.`,
    }),
  },
);

/** A Headers pair as stored and returned. */
export type HeadersPair = Static<typeof HeadersPair>;

/** `{{NAME}}`: a variable's reference, the only braces a header name may hold. */
const VARIABLE_REFERENCE = /\{\{[A-Za-z_][A-Za-z0-9_]{0,63}\}\}/g;

/** The schema cannot say "value when Add or Modify" clearly, nor count changes across sets. */
function checkHeaders(pair: Record<string, unknown>): ErrorDetail[] {
  const { modifications } = pair as HeadersPair;
  const details = checkPairSource(pair);
  let count = 0;
  modifications.forEach((set, index) => {
    for (const target of ['Request', 'Response'] as const) {
      set[target]?.forEach((modification, position) => {
        count += 1;
        // Braces only as a variable's reference: `{{NAME}}` (the schema's class lets any brace through).
        if (/[{}]/.test(modification.header.replace(VARIABLE_REFERENCE, ''))) {
          details.push({
            path: `/modifications/${index}/${target}/${position}/header`,
            message: patterns.headerName.message,
          });
        }
        const path = `/modifications/${index}/${target}/${position}/value`;
        if (modification.type !== 'Remove' && modification.value === undefined) {
          details.push({ path, message: `required field missing when type is ${modification.type}` });
        }
        for (const [call, digits] of modification.value?.matchAll(RANDOM_CALL) ?? []) {
          const n = Number(digits);
          if (digits === '' || n < 1 || n > MAX_RANDOM_DIGITS) {
            details.push({ path, message: `${call} must ask for 1 to ${MAX_RANDOM_DIGITS} random digits` });
          }
        }
      });
    }
  });
  if (count === 0) details.push({ path: '/modifications', message: 'must hold at least one header change' });
  if (count > MAX_MODIFICATIONS) {
    details.push({
      path: '/modifications',
      message: `must hold at most ${MAX_MODIFICATIONS} header changes in all`,
    });
  }
  return details;
}

const valid = {
  source: { key: 'Url', operator: 'Contains', value: 'example.com' },
  modifications: [
    {
      Request: [{ header: 'X-Debug', type: 'Add', value: '1' }],
      Response: [{ header: 'Server', type: 'Remove' }],
    },
  ],
} satisfies HeadersPair;

const onlyRequest = (modification: Record<string, unknown>) => ({
  ...valid,
  modifications: [{ Request: [modification] }],
});

export const headers: RuleTypeDefinition = {
  name: 'Headers',
  pair: HeadersPair,
  // Requestly sends a single set as an object.
  normalise: pairNormaliser((pair, paths) => {
    if (!isRecord(pair.modifications)) return pair;
    paths.moved('/modifications/0', '/modifications');
    return { ...pair, modifications: [pair.modifications] };
  }),
  check: checkHeaders,
  examples: {
    valid: [
      { title: 'add a request header, remove a response header', pair: valid },
      {
        title: 'modify a response header, with a pair id',
        pair: {
          id: 'h1',
          source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
          modifications: [
            { Response: [{ id: 'm1', header: 'Cache-Control', type: 'Modify', value: 'no-store' }] },
          ],
        } satisfies HeadersPair,
      },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      {
        title: 'value missing for Add',
        pair: onlyRequest({ header: 'X-A', type: 'Add' }),
        path: '/modifications/0/Request/0/value',
      },
      {
        title: 'header not an HTTP token',
        pair: onlyRequest({ header: 'X Debug', type: 'Remove' }),
        path: '/modifications/0/Request/0/header',
      },
      {
        title: 'modification type not allowed',
        pair: onlyRequest({ header: 'X-A', type: 'Set', value: '1' }),
        path: '/modifications/0/Request/0/type',
      },
      {
        title: 'no modification at all',
        pair: { ...valid, modifications: [{ Request: [] }] },
        path: '/modifications',
      },
      {
        title: 'unknown field in a set',
        pair: { ...valid, modifications: [{ request: [] }] },
        path: '/modifications/0/request',
      },
      {
        title: 'modification id not letters and digits',
        pair: onlyRequest({ id: 'a_b', header: 'X-A', type: 'Remove' }),
        path: '/modifications/0/Request/0/id',
      },
    ],
    variants: [
      ...sourceVariants(valid),
      {
        title: 'modifications as one set',
        input: { ...valid, modifications: valid.modifications[0] },
        canonical: valid,
      },
    ],
  },
};
