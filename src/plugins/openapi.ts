// The OpenAPI document, generated from the same schemas the services validate with, and /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { type TObject, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ErrorBody } from '../modules/shared/schemas.js';

interface OpenapiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, { headers?: Headers }> }>>;
}
type Headers = Record<string, { required?: boolean; schema?: { required?: unknown } }>;

/**
 * @fastify/swagger copies a response header's schema whole into the header's `schema`; the routes mark
 * a header that every such response carries with `required: true` there, which belongs on the header.
 */
function liftRequiredHeaders<T>(document: T): T {
  for (const operations of Object.values((document as OpenapiDocument).paths ?? {}))
    for (const operation of Object.values(operations))
      for (const response of Object.values(operation.responses ?? {}))
        for (const header of Object.values(response.headers ?? {})) {
          if (header.schema?.required !== true) continue;
          delete header.schema.required;
          header.required = true;
        }
  return document;
}

const RequestIdHeader = Type.Optional(
  Type.String({
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
    description: 'An id for the request, echoed in the answer (another form is replaced by a generated one).',
  }),
);

/** Every /v1 operation reads X-Request-Id (request-id.ts): said once here rather than on every route. */
function withRequestIdHeader(schema: FastifySchema, url: string): FastifySchema {
  if (!schema || !url.startsWith('/v1/')) return schema;
  const headers = (schema.headers as TObject | undefined)?.properties ?? {};
  return { ...schema, headers: Type.Object({ ...headers, 'X-Request-Id': RequestIdHeader }) };
}

export async function openapiPlugin(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rulekeeper',
        version,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Traffic-modification rules and rule groups over HTTP JSON. Every request to /v1/rules and /v1/groups ' +
          'carries an API key in `x-api-key`. Errors have the body `{success:false, message, code, details?, requestId}`.',
      },
      servers: [{ url: '/', description: 'The service that serves this document' }],
      tags: [
        { name: 'rules', description: 'Traffic-modification rules of the workspace.' },
        { name: 'groups', description: 'Groups of rules; a rule of an inactive group does not act.' },
        { name: 'trace', description: 'What the rules do to a request, explained.' },
        { name: 'transfer', description: 'Import and export of Requestly files.' },
        { name: 'changes', description: 'The change log, its live stream, and versions to restore.' },
      ],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url }) => ({ schema: withRequestIdHeader(schema, url), url }),
    transformObject: (document) =>
      'openapiObject' in document ? liftRequiredHeaders(document.openapiObject) : document.swaggerObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP:
      "default-src 'self'; base-uri 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; " +
      "script-src-attr 'none'; style-src 'self' https:; font-src 'self' https: data:; frame-ancestors 'self'",
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
