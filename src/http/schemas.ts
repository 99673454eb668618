// Schemas of the HTTP answers every resource shares: envelopes, the error body, list paging, headers.
import { type TSchema, Type } from '@sinclair/typebox';
import { errorTable } from '../errors.js';

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String({ description: 'The error name, for example `Rule pairs are invalid`.' }),
    code: Type.Union(
      Object.keys(errorTable).map((code) => Type.Literal(code)),
      { description: 'Stable machine-readable error code.' },
    ),
    details: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.String({
              description: 'JSON Pointer into the request body or query.',
              examples: ['/pairs/0/source/operator'],
            }),
            message: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    requestId: Type.String(),
  },
  { $id: 'ErrorBody', additionalProperties: false },
);

/**
 * 1 to 1000 written in 1 to 4 digits (leading zeros allowed), for the document: the checks take 1 to 4
 * digits (DIGITS_1_TO_4) and then say `must be from 1 to 1000`, a message of their own.
 */
export const ONE_TO_1000 = '^0{0,3}[1-9]$|^0{0,2}[1-9][0-9]$|^0?[1-9][0-9]{2}$|^1000$';
export const DIGITS_1_TO_4 = '^[0-9]{1,4}$';

/** A count parameter from 1 to 1000: its pattern the checked one (`checked`) or the documented one. */
export const countParameter = (description: string, checked: boolean) =>
  Type.String({ pattern: checked ? DIGITS_1_TO_4 : ONE_TO_1000, description });

/** The paging query as checked (`checked`), or as documented. */
export const pageQuery = (checked: boolean) => ({
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'Items to skip (default 0).' })),
  pageSize: Type.Optional(countParameter('Items per page, 1 to 1000 (default 1000).', checked)),
});

export const MAX_PAGE_SIZE = 1000;

export function single<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false });
}

export function page<T extends TSchema>(item: T) {
  return Type.Object(
    {
      success: Type.Literal(true),
      data: Type.Array(item),
      total: Type.Integer({ description: 'Items matching the query, over all pages.' }),
      nextOffset: Type.Union([Type.Integer(), Type.Null()], {
        description: '`offset` of the next page; null on the last.',
      }),
    },
    { additionalProperties: false },
  );
}

/** The answer to a DELETE: its message, as `message` describes it. */
export function deleted(message: TSchema) {
  return Type.Object({ success: Type.Literal(true), message }, { additionalProperties: false });
}

/** 1 to 255 visible ASCII characters: what idempotency-service.ts takes as a key. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';

/** Request headers the service reads, beside `x-api-key`, for the OpenAPI document. */
export const IfMatch = Type.Object({
  'If-Match': Type.Optional(
    Type.String({
      description: 'Write only if the object still has one of these ETags (or any, for `*`); else 412.',
      examples: ['"1763769600000"'],
    }),
  ),
});

export const IfNoneMatch = Type.Object({
  'If-None-Match': Type.Optional(
    Type.String({
      description: 'Answer 304 without a body while the ETag is one of these (or any, for `*`).',
      examples: ['"1763769600000"'],
    }),
  ),
});

export const IdempotencyKey = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        '1 to 255 visible ASCII characters. The same key with the same body within 24 hours answers the ' +
        'first response again (no second object); with another body, 409.',
      examples: ['5f0c1c1e-7d43-4c55-a3c9-0a9f6e3e8f21'],
    }),
  ),
});
