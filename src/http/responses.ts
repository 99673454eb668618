// The responses of an operation as the OpenAPI document shows them: success bodies with their headers,
// 304, and every error the operation can answer, by its code in the one error table.
import { type TSchema, Type } from '@sinclair/typebox';
import { type ErrorCode, errorTable } from '../errors.js';
import { REQUEST_ID_PATTERN } from './request-id.js';

/** A response header as @fastify/swagger reads it; `required` is lifted out of the schema (openapi-document.ts). */
type HeaderSchema = Record<string, unknown> & { description: string };

/** A response header: a string of the form `schema` says; `required` when every such response has it. */
export const header = (
  description: string,
  schema: Record<string, unknown>,
  required = false,
): HeaderSchema => ({
  type: 'string',
  ...schema,
  description,
  ...(required ? { required: true } : {}),
});

/** Headers every /v1 answer may carry; which are always there is said per response. */
const requestId = header(
  'The request id: an incoming `X-Request-Id` of 1 to 128 characters `[A-Za-z0-9._:-]` echoed, else generated.',
  { pattern: REQUEST_ID_PATTERN, examples: ['b1946ac9-2c1f-4f5e-9a57-5b4b1d0c2f11'] },
  true,
);
const revision = (required: boolean) =>
  header(
    "The workspace's revision after the request; on every answer to a request with a valid key.",
    { pattern: '^[0-9]+$', examples: ['42'] },
    required,
  );
const rateLimit = {
  'RateLimit-Limit': header('Requests allowed per minute and key (when rate limiting is on).', {
    pattern: '^[0-9]+$',
    examples: ['1200'],
  }),
  'RateLimit-Remaining': header('Requests left in the current minute (when rate limiting is on).', {
    pattern: '^[0-9]+$',
    examples: ['1199'],
  }),
  'RateLimit-Reset': header('Seconds until the current minute ends (when rate limiting is on).', {
    pattern: '^[0-9]+$',
    examples: ['37'],
  }),
};
const etag = header(
  'The version of what the body holds: with `If-None-Match` (GET) or `If-Match` (PUT, DELETE).',
  { pattern: '^"[^"]*"$', examples: ['"1763769600000"'] },
  true,
);

/** The headers of an answer that got past the key check. */
export function answerHeaders(extra: Record<string, HeaderSchema> = {}) {
  return { 'X-Request-Id': requestId, 'Rulekeeper-Revision': revision(true), ...rateLimit, ...extra };
}

export interface SuccessOptions {
  /** The body carries one object, or a list, whose version the ETag names. */
  etag?: boolean;
  /** 201: Location of the new object and, for a replayed idempotent POST, Idempotent-Replayed. */
  created?: boolean;
  /** An idempotent POST that answers 200 (import): Idempotent-Replayed on a replay. */
  replayable?: boolean;
  /** Further headers of this answer. */
  headers?: Record<string, HeaderSchema>;
  /** An answer to a caller not yet in any workspace (signing in): no Rulekeeper-Revision. */
  outsideWorkspace?: boolean;
}

const replayed = header(
  '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
  { enum: ['true'] },
);

/**
 * A success response: its JSON body's schema, with the response's description and headers beside it
 * (@fastify/swagger turns the schema's named parts into components only in this form, not under `content`).
 */
export function success(description: string, schema: TSchema, options: SuccessOptions = {}) {
  const headers = answerHeaders({
    ...(options.etag || options.created ? { ETag: etag } : {}),
    ...(options.created
      ? {
          Location: header('The path of the new object.', { examples: ['/v1/rules/Redirect_a1b2c'] }, true),
        }
      : {}),
    ...(options.created || options.replayable ? { 'Idempotent-Replayed': replayed } : {}),
    ...options.headers,
  });
  if (options.outsideWorkspace) delete (headers as Partial<typeof headers>)['Rulekeeper-Revision'];
  return { ...schema, description, headers };
}

/** 304 to a GET whose If-None-Match still holds: no body. */
export const notModified = {
  304: {
    type: 'null',
    description: 'Not modified: `If-None-Match` holds the current ETag. No body.',
    headers: answerHeaders({ ETag: etag }),
  },
};

/** What each status means for a caller, before the list of its errors. */
const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid; `details` says where (JSON Pointers into the body or query). `MALFORMED_REQUEST`: not HTTP the parser reads (a control character in a header, a header line without a colon).',
  401: 'No valid API key in `x-api-key`: none, unknown, revoked, or expired (then `details` says when).',
  403: 'The id exists but belongs to another workspace.',
  404: 'What the request names does not exist.',
  408: 'The request headers did not arrive in time.',
  409: 'The request conflicts with an earlier one or with an object that exists.',
  410: 'What was asked for is no longer kept.',
  412: '`If-Match` does not hold: the object changed since it was read.',
  413: 'The body is larger than the limit.',
  415: 'The body is not `application/json`.',
  429: 'Over a limit of the key (its rate, or its open streams); retry after `Retry-After` seconds.',
  431: 'The request headers are larger than the limit.',
  500: 'Something unexpected failed; the body names no internals.',
  503: 'The database cannot be reached, the service is shutting down, a time limit passed, or this instance has all the streams it can take; retry after `Retry-After` seconds.',
};

/** One `details` item per validation error, for the examples: as the service words them. */
const DETAIL_EXAMPLES: Partial<Record<ErrorCode, { path: string; message: string }>> = {
  RULE_PAYLOAD_INVALID: { path: '/name', message: 'required field missing' },
  RULE_PAIRS_INVALID: {
    path: '/pairs/0/source/operator',
    message: 'must be one of Equals, Contains, Matches, Wildcard_Matches',
  },
  RULE_TYPE_UPDATE_NOT_ALLOWED: { path: '/ruleType', message: 'is "Redirect" and cannot change' },
  GROUP_PAYLOAD_INVALID: { path: '/isFavourite', message: 'must be true or false' },
  GROUP_NAME_REQUIRED: { path: '/name', message: 'a non-blank name is required' },
  INVALID_QUERY: { path: '/pageSize', message: 'must be from 1 to 1000' },
  INVALID_TRACE_REQUEST: { path: '/request/url', message: 'must be an absolute http, https, ws or wss URL' },
  INVALID_IDEMPOTENCY_KEY: { path: '', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' },
  IMPORT_INVALID: {
    path: '/3/pairs/0/source/operator',
    message: 'must be one of Equals, Contains, Matches, Wildcard_Matches',
  },
  PRECONDITION_FAILED: { path: '', message: 'If-Match "1" does not match the current ETag "1763769600000"' },
  VERSION_NOT_FOUND: { path: '/version', message: 'no such kept version' },
};

/** An example error body of `code`, with `detail` (by default the code's usual one). */
export function errorExample(
  code: ErrorCode,
  detail = DETAIL_EXAMPLES[code],
  summary: string = errorTable[code].message,
) {
  return {
    summary,
    value: {
      success: false,
      message: errorTable[code].message,
      code,
      ...(detail ? { details: [detail] } : {}),
      requestId: 'b1946ac9-2c1f-4f5e-9a57-5b4b1d0c2f11',
    },
  };
}

/**
 * The error responses of an operation, one per status, from the codes it can answer: the body is the
 * ErrorBody with `code` and `message` narrowed to those codes, and each code has its example.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = errorTable[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, listed]) => [
      status,
      {
        description: `${STATUS_DESCRIPTIONS[status] ?? 'Error.'} ${listed
          .map((code) => `\`${code}\` (${errorTable[code].message})`)
          .join('; ')}.`,
        headers: {
          'X-Request-Id': requestId,
          'Rulekeeper-Revision': revision(false),
          ...rateLimit,
          ...(status === 429 || status === 503
            ? {
                'Retry-After': header('Seconds to wait before trying again.', { pattern: '^[0-9]+$' }, true),
              }
            : {}),
        },
        content: {
          'application/json': {
            schema: {
              allOf: [
                Type.Ref('ErrorBody'),
                {
                  type: 'object',
                  properties: {
                    code: { enum: listed },
                    message: { enum: [...new Set(listed.map((code) => errorTable[code].message))] },
                  },
                },
              ],
            },
            examples: Object.fromEntries(listed.map((code) => [code, errorExample(code)])),
          },
        },
      },
    ]),
  );
}

/**
 * Errors every operation behind the key check can answer, and those of requests the HTTP parser
 * refuses before any route is known (client-error.ts): any operation may be the one meant.
 */
export const ALWAYS: ErrorCode[] = [
  'API_KEY_REQUIRED',
  'API_KEY_INVALID',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
  'MALFORMED_REQUEST',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
];
/** Errors of a request body that cannot be read at all. */
export const BODY: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
