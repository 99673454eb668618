// What the document needs after @fastify/swagger has built it from the routes, and the request header
// every /v1 operation reads.
import { type TObject, Type } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { REQUEST_ID_PATTERN } from './request-id.js';

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

const RequestIdHeader = Type.Optional(
  Type.String({
    pattern: REQUEST_ID_PATTERN,
    description: 'An id for the request, echoed in the answer (another form is replaced by a generated one).',
  }),
);

/** Every /v1 operation reads X-Request-Id (request-id.ts): said once here rather than on every route. */
export function withRequestIdHeader(schema: FastifySchema, url: string): FastifySchema {
  if (!schema || !url.startsWith('/v1/')) return schema;
  const headers = (schema.headers as TObject | undefined)?.properties ?? {};
  return { ...schema, headers: Type.Object({ ...headers, 'X-Request-Id': RequestIdHeader }) };
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
