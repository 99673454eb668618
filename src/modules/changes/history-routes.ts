// HTTP routes of history and restore: /v1/rules/:ruleId/versions|restore, /v1/groups/:id/versions|restore.
import type { FastifyInstance } from 'fastify';
import { Group, GroupParams } from '../groups/groups-schemas.js';
import { Rule, RuleParams } from '../rules/rules-schemas.js';
import { one } from '../shared/replies.js';
import { errorResponses, single } from '../shared/schemas.js';
import { RestoreBody, versionsOf } from './changes-schemas.js';
import type { HistoryService } from './history-service.js';

export function registerHistoryRoutes(app: FastifyInstance, history: HistoryService): void {
  const security = [{ apiKey: [] }];

  app.get<{ Params: { ruleId: string } }>(
    '/rules/:ruleId/versions',
    {
      config: { revisionEtag: true },
      schema: {
        tags: ['rules'],
        security,
        operationId: 'listRuleVersions',
        summary: "A rule's kept versions, newest first (also of a deleted rule)",
        params: RuleParams,
        response: { 200: versionsOf(Rule), ...errorResponses(401, 403, 404, 429, 503) },
      },
    },
    async (request) => ({
      success: true,
      data: await history.versions(request.principal, 'rule', request.params.ruleId),
    }),
  );

  app.post<{ Params: { ruleId: string } }>(
    '/rules/:ruleId/restore',
    {
      config: { bodyError: 'RULE_PAYLOAD_INVALID' as const },
      schema: {
        tags: ['rules'],
        security,
        operationId: 'restoreRule',
        summary: 'Make a kept version of a rule current again, as a new version (also of a deleted rule)',
        params: RuleParams,
        body: RestoreBody,
        response: { 200: single(Rule), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503) },
      },
    },
    async (request, reply) =>
      one(reply, await history.restoreRule(request.principal, request.params.ruleId, request.body)),
  );

  app.get<{ Params: { id: string } }>(
    '/groups/:id/versions',
    {
      config: { revisionEtag: true },
      schema: {
        tags: ['groups'],
        security,
        operationId: 'listGroupVersions',
        summary: "A group's kept versions, newest first (also of a deleted group)",
        params: GroupParams,
        response: { 200: versionsOf(Group), ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => ({
      success: true,
      data: await history.versions(request.principal, 'group', request.params.id),
    }),
  );

  app.post<{ Params: { id: string } }>(
    '/groups/:id/restore',
    {
      config: { bodyError: 'GROUP_PAYLOAD_INVALID' as const },
      schema: {
        tags: ['groups'],
        security,
        operationId: 'restoreGroup',
        summary: 'Make a kept version of a group current again, as a new version (also of a deleted group)',
        params: GroupParams,
        body: RestoreBody,
        response: { 200: single(Group), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503) },
      },
    },
    async (request, reply) =>
      one(reply, await history.restoreGroup(request.principal, request.params.id, request.body)),
  );
}
