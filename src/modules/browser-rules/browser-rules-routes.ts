// HTTP route of /v1/browser-rules: a thin handler over the browser rules service.
import type { FastifyInstance } from 'fastify';
import { sendJson } from '../../http/replies.js';
import { ALWAYS, errorResponses, notModified, success } from '../../http/responses.js';
import { IfNoneMatch } from '../../http/schemas.js';
import { environmentNameOf } from '../shared/evaluation-environment.js';
import { BrowserRulesAnswer, BrowserRulesQuery } from './browser-rules-schemas.js';
import type { BrowserRulesService } from './browser-rules-service.js';

export function registerBrowserRulesRoutes(app: FastifyInstance, service: BrowserRulesService): void {
  app.get(
    '/browser-rules',
    {
      // The environment a key is bound to is not in the URL: the ETag names it.
      config: {
        scope: 'read',
        revisionEtag: true,
        etagAlso: async (request) =>
          environmentNameOf(request.principal, (request.query as { environment?: string }).environment),
      },
      schema: {
        tags: ['browser-rules'],
        security: [{ apiKey: [] }],
        operationId: 'browserRules',
        summary: 'The active rules as Chrome declarativeNetRequest rules, with a report on each',
        description:
          "The workspace's active rules (list order, as the engine takes them) compiled to Chrome's " +
          'declarativeNetRequest rules (MV3), and per rule whether it is `compiled`, `partial` or ' +
          "`not_compiled`, and why. Priorities reproduce the engine's precedence: Cancel above all, then " +
          "earlier rules above later ones. Script and Response bodies are the extension's content " +
          "scripts' work, not Chrome's rules. The ETag follows the revision; the answer is compiled once per " +
          'revision, beside the service, for at most `BROWSER_RULES_TIME_LIMIT_MS` (default 60 s); past it, ' +
          '503 `Time limit exceeded`. A key may have one compile running and four waiting (past that, 429). ' +
          "`{{NAME}}` in the rules takes the values of one environment (`?environment=`, else the key's, " +
          'else `default`; secrets too: the browser acts with them), and the ETag is per environment; a rule ' +
          'its variables make invalid there is `not_compiled`, and says why.',
        querystring: BrowserRulesQuery,
        headers: IfNoneMatch,
        response: {
          200: success("Chrome's rules and the report.", BrowserRulesAnswer, { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', 'ENVIRONMENT_NOT_FOUND', 'TIME_LIMIT_EXCEEDED', ...ALWAYS),
        },
      },
    },
    async (request, reply) => sendJson(reply, await service.browserRules(request.principal, request.query)),
  );
}
