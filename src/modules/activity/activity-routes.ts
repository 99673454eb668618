// HTTP route of /v1/activity: a thin handler over the activity service.
import type { FastifyInstance } from 'fastify';
import { ALWAYS, errorResponses, success } from '../../http/responses.js';
import { ActivityPage, ActivityQuery } from './activity-schemas.js';
import type { ActivityService } from './activity-service.js';

export function registerActivityRoutes(app: FastifyInstance, activity: ActivityService): void {
  app.get(
    '/activity',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['activity'],
        security: [{ apiKey: [] }],
        operationId: 'listActivity',
        summary: 'Who did what in the workspace, newest first',
        description:
          'Rule and group changes (from the change log, kept `HISTORY_RETENTION_DAYS`) and security events ' +
          '(sign-ins, keys, invites, members, settings; kept `ACTIVITY_RETENTION_DAYS`), merged newest ' +
          'first. Role needed: viewer; only admins and owners (with an `admin` key) see the security events, ' +
          'others see the changes alone (a security `kind` answers an empty page). Pass `nextCursor` back ' +
          'as `cursor` for the next page.',
        querystring: ActivityQuery,
        response: {
          200: success('A page of entries, newest first.', ActivityPage),
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => {
      const { items, nextCursor } = await activity.list(request.principal, request.query);
      return { success: true, data: items, nextCursor };
    },
  );
}
