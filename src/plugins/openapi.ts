// The OpenAPI document, generated from the same schemas the services validate with, and /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from '../http/schemas.js';
import { finishDocument, withKeyScope, withRequestIdHeader } from './openapi-document.js';
import { schemasCannotSay } from './openapi-limits.js';

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
          'carries an API key in `x-api-key`. A key has a scope, `read`, `write` or `admin`, each granting what ' +
          'the one before it does and more; each operation names the least it needs under `security` ' +
          '(`apiKey: [write]`), and a key of a lesser scope gets 403. Errors have the body ' +
          '`{success:false, message, code, details?, requestId}`. The request schemas say what the service ' +
          'takes; what they cannot say is listed below.' +
          schemasCannotSay(),
      },
      servers: [{ url: '/', description: 'The service that serves this document' }],
      tags: [
        { name: 'rules', description: 'Traffic-modification rules of the workspace.' },
        { name: 'groups', description: 'Groups of rules; a rule of an inactive group does not act.' },
        { name: 'trace', description: 'What the rules do to a request, explained.' },
        {
          name: 'lint',
          description: 'What is wrong with the rules as a whole: rules that never act, loop, or do nothing.',
        },
        {
          name: 'variables',
          description:
            'Environments and variables: `{{NAME}}` in a rule takes the value of the environment an ' +
            'evaluation uses. A secret is written but never read back.',
        },
        { name: 'transfer', description: 'Import and export of Requestly files.' },
        {
          name: 'browser-rules',
          description: "The rules compiled to Chrome's declarativeNetRequest rules, for a browser extension.",
        },
        { name: 'changes', description: 'The change log, its live stream, and versions to restore.' },
        { name: 'keys', description: 'The API key that asks: who it speaks for and what it may do.' },
        { name: 'session', description: 'People signing in and out of the console.' },
        {
          name: 'invites',
          description:
            'Single-use links that bring people in: invites with a role, and the setup link of a new database.',
        },
        { name: 'password', description: 'Password reset links: made by an admin, or mailed on request.' },
        {
          name: 'activity',
          description:
            'Who did what in the workspace: rule and group changes, and security events for admins.',
        },
        {
          name: 'hits',
          description:
            'Which rules acted and how often, as the runtimes report it: counts only, kept 90 days.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'rk_session',
            description:
              'A person signed in (`POST /v1/session`): the cookie `rk_session` (`__Host-rk_session` over ' +
              "HTTPS). A change also needs the session's CSRF token in `x-rk-csrf`; `x-rk-workspace` picks " +
              'the workspace. The role in the workspace gives the scope: viewer `read`, editor `write`, ' +
              'admin and owner `admin`.',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => ({
      schema: withKeyScope(withRequestIdHeader(schema, url), route.config?.scope, route.method),
      url,
    }),
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject) : document.swaggerObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Swagger UI sets inline styles as it renders (its scripts stay 'self' only): without
    // 'unsafe-inline' for styles the browser refuses them and logs a CSP error on every page.
    staticCSP:
      "default-src 'self'; base-uri 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; " +
      "script-src-attr 'none'; style-src 'self' https: 'unsafe-inline'; font-src 'self' https: data:; frame-ancestors 'self'",
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
