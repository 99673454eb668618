// What the document needs after @fastify/swagger has built it from the routes, and the request header
// every /v1 operation reads.
import { type TObject, Type } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import type { ErrorCode } from '../errors.js';
import { REQUEST_ID_PATTERN } from '../http/request-id.js';
import { errorExample, errorResponses } from '../http/responses.js';
import { KEY_SCOPES, type KeyScope, scopeDetail } from '../modules/keys/key-scopes.js';
import { expiryDetail } from '../modules/keys/keys-service.js';

interface OpenapiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, { headers?: Headers }> }>>;
  components?: { headers?: Record<string, Header> };
}
interface Header {
  required?: boolean;
  schema?: { required?: unknown };
  $ref?: string;
}
type Headers = Record<string, Header>;

/**
 * @fastify/swagger copies a response header's schema whole into the header's `schema`; the routes mark
 * a header that every such response carries with `required: true` there, which belongs on the header.
 */
function liftRequiredHeaders(document: OpenapiDocument): void {
  for (const operations of Object.values(document.paths ?? {}))
    for (const operation of Object.values(operations))
      for (const response of Object.values(operation.responses ?? {}))
        for (const header of Object.values(response.headers ?? {})) {
          if (header.schema?.required !== true) continue;
          delete header.schema.required;
          header.required = true;
        }
}

// Any value is taken (request-id.ts): one of the form REQUEST_ID_PATTERN is echoed, another replaced.
const RequestIdHeader = Type.Optional(
  Type.String({
    description:
      `An id for the request, echoed in the answer when of the form \`${REQUEST_ID_PATTERN}\`; ` +
      'another value is taken too, and replaced by a generated id.',
    examples: ['b1946ac9-2c1f-4f5e-9a57-5b4b1d0c2f11'],
  }),
);

/** Every /v1 operation reads X-Request-Id (request-id.ts): said once here rather than on every route. */
export function withRequestIdHeader(schema: FastifySchema, url: string): FastifySchema {
  if (!schema || !url.startsWith('/v1/')) return schema;
  const headers = (schema.headers as TObject | undefined)?.properties ?? {};
  return { ...schema, headers: Type.Object({ ...headers, 'X-Request-Id': RequestIdHeader }) };
}

interface ErrorResponse {
  description: string;
  content: {
    'application/json': {
      examples: Record<string, unknown>;
      schema?: { allOf?: unknown[] };
    };
  };
}

/** The responses with `codes` added to those of their statuses (examples kept). */
function withCodes(responses: Record<string, ErrorResponse>, codes: ErrorCode[]): void {
  const added = errorResponses(...codes) as unknown as Record<string, ErrorResponse>;
  for (const status of Object.keys(added)) {
    const existing = responses[status];
    // errorResponses' body: the ErrorBody, then its codes narrowed.
    const narrowed = existing?.content['application/json'].schema?.allOf?.[1] as
      | { properties: { code: { enum: ErrorCode[] } } }
      | undefined;
    const listed = narrowed?.properties.code.enum ?? [];
    const all = errorResponses(...listed, ...codes) as unknown as Record<string, ErrorResponse>;
    const merged = all[status] as ErrorResponse;
    const content = merged.content['application/json'];
    responses[status] = existing
      ? {
          ...merged,
          content: {
            'application/json': {
              ...content,
              examples: { ...existing.content['application/json'].examples, ...content.examples },
            },
          },
        }
      : merged;
  }
}

const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'];

const EXPIRED = errorExample(
  'API_KEY_INVALID',
  expiryDetail(Date.UTC(2026, 11, 1)),
  'Invalid API key (expired)',
);

/**
 * What the scope a route declares (`config.scope`, api-key-auth.ts) means for its operation: the
 * scope named in `security`, and a 403 for keys of a lesser scope beside the operation's other 403s.
 * Also an expired key's 401, on every operation behind the key check.
 */
export function withKeyScope(
  schema: FastifySchema,
  scope: KeyScope | undefined,
  method: string | string[],
): FastifySchema {
  if (!schema || !scope) return schema;
  const responses = { ...(schema.response as Record<string, ErrorResponse>) };
  // A session's workspace that is not the person's (`x-rk-workspace`), and a change made with a
  // session without its CSRF token (authentication.ts).
  const writes = [method].flat().some((m) => !SAFE_METHODS.includes(m));
  withCodes(responses, [
    'SESSION_INVALID',
    'UNAUTHORIZED_ACTION',
    ...(writes ? (['CSRF_REFUSED'] as const) : []),
  ]);
  const withExample = (response: ErrorResponse, name: string, example: unknown, description?: string) => {
    const content = response.content['application/json'];
    return {
      ...response,
      description: description ?? response.description,
      content: { 'application/json': { ...content, examples: { ...content.examples, [name]: example } } },
    };
  };
  if (responses[401]) responses[401] = withExample(responses[401], 'API_KEY_EXPIRED', EXPIRED);
  const lesser = KEY_SCOPES.slice(0, KEY_SCOPES.indexOf(scope));
  const held = lesser.at(-1);
  if (held) {
    const existing = responses[403];
    const base = existing ?? (errorResponses('UNAUTHORIZED_ACTION')[403] as ErrorResponse);
    const why =
      `A key of scope ${lesser.map((s) => `\`${s}\``).join(' or ')}: this operation needs \`${scope}\` ` +
      "(`details` names the key's scope).";
    const description = existing
      ? `${why} Or ${existing.description.replace(/^./, (c) => c.toLowerCase())}`
      : `${why} \`UNAUTHORIZED_ACTION\` (Unauthorized action).`;
    const example = errorExample(
      'UNAUTHORIZED_ACTION',
      scopeDetail(held, scope),
      `Unauthorized action (a ${held} key)`,
    );
    responses[403] = withExample(base, 'KEY_SCOPE', example, description);
  }
  return { ...schema, security: [{ apiKey: [scope] }, { session: [] }], response: responses };
}

/**
 * The same response header is on most responses: each distinct one becomes a component
 * (named after it, `.optional` where it is not always sent) that the responses refer to.
 */
function shareHeaders(document: OpenapiDocument): void {
  const shared: Record<string, Header> = {};
  for (const operations of Object.values(document.paths ?? {}))
    for (const operation of Object.values(operations))
      for (const response of Object.values(operation.responses ?? {}))
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const key = header.required ? name : `${name}.optional`;
          shared[key] ??= header;
          if (JSON.stringify(shared[key]) !== JSON.stringify(header)) continue; // one of a kind: stays
          (response.headers as Headers)[name] = { $ref: `#/components/headers/${key}` };
        }
  document.components = { ...document.components, headers: { ...document.components?.headers, ...shared } };
}

/** The document as served. */
export function finishDocument<T>(document: T): T {
  liftRequiredHeaders(document as OpenapiDocument);
  shareHeaders(document as OpenapiDocument);
  return document;
}
