// HTTP route of /v1/lint: a thin handler over the lint service.
import type { FastifyInstance } from 'fastify';
import { ALWAYS, errorResponses, notModified, success } from '../../http/responses.js';
import { IfNoneMatch } from '../../http/schemas.js';
import { LintAnswer, LintQuery } from './lint-schemas.js';
import type { LintService } from './lint-service.js';

export function registerLintRoutes(app: FastifyInstance, lint: LintService): void {
  app.get(
    '/lint',
    {
      // The never_acted findings change with time and reports, not with the revision: the ETag says so.
      config: {
        scope: 'read',
        revisionEtag: true,
        etagAlso: (request) => lint.etagPart(request.principal, request.query),
      },
      schema: {
        tags: ['lint'],
        security: [{ apiKey: [] }],
        operationId: 'lintRules',
        summary: "What is wrong with the workspace's rules as a whole",
        description:
          'Rules that can never act (shadowed), loop (redirect_loop), change nothing (no_op), match every ' +
          'request, are duplicates, cannot run in a browser or need --allow-code, and rules whose group ' +
          'status differs from theirs, and Active rules that never acted while runtimes reported (`never_acted`). ' +
          'Nothing is stored; the answer changes with the revision, and `never_acted` also with the hour ' +
          'and the hit reports (the ETag follows both). ' +
          'A lint runs beside the service, for at most `LINT_TIME_LIMIT_MS` (default 60 s); past it, 503 ' +
          '`Time limit exceeded`. The rules are linted as they are in one environment (`?environment=`, ' +
          "else the key's, else `default`): `{{NAME}}` takes its values, a rule its variables make invalid there " +
          'is `invalid_in_environment`, and `undefined_variable` names a reference in a destination or source ' +
          'that some environment has no value for. No finding holds a secret value.',
        querystring: LintQuery,
        headers: IfNoneMatch,
        response: {
          200: success('The findings, most serious first, and the rules they name.', LintAnswer, {
            etag: true,
          }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', 'ENVIRONMENT_NOT_FOUND', 'TIME_LIMIT_EXCEEDED', ...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await lint.lint(request.principal, request.query) }),
  );
}
