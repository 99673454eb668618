// HTTP routes of history and restore: /v1/rules/deleted, /v1/rules/:ruleId/versions|restore,
// /v1/groups/:id/versions|restore.
import type { FastifyInstance } from 'fastify';
import { one, paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, notModified, success } from '../../http/responses.js';
import { recordedAt } from '../../http/revision-header.js';
import { IfNoneMatch, page, single } from '../../http/schemas.js';
import { Group } from '../../model/group.js';
import { Rule } from '../../model/rule.js';
import { GroupParams } from '../groups/groups-schemas.js';
import { RuleParams } from '../rules/rules-schemas.js';
import { DeletedListQuery, DeletedRule, RestoreBody, versionsOf } from './history-schemas.js';
import type { HistoryService } from './history-service.js';

export function registerHistoryRoutes(app: FastifyInstance, history: HistoryService): void {
  const security = [{ apiKey: [] }];

  // A path of its own beside /rules/:ruleId: "deleted" is no rule id's form, and a static path wins.
  app.get(
    '/rules/deleted',
    {
      config: { scope: 'read', revisionEtag: true },
      schema: {
        tags: ['rules'],
        security,
        operationId: 'listDeletedRules',
        summary: "The workspace's deleted rules that can be restored, most recently deleted first",
        description:
          'Each with the version that restores it as it was when deleted (`POST /v1/rules/{ruleId}/restore`). ' +
          'A rule restored or created again under its id is not listed; a deleted rule is listed while its ' +
          'deletion is kept (`HISTORY_RETENTION_DAYS`).',
        querystring: DeletedListQuery,
        headers: IfNoneMatch,
        response: {
          200: success('A page of deleted rules, most recently deleted first.', page(DeletedRule), {
            etag: true,
          }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await history.deletedRules(request.principal, request.query)),
  );

  app.get<{ Params: { ruleId: string } }>(
    '/rules/:ruleId/versions',
    {
      config: { scope: 'read', revisionEtag: true },
      schema: {
        tags: ['rules'],
        security,
        operationId: 'listRuleVersions',
        summary: "A rule's kept versions, newest first (also of a deleted rule)",
        params: RuleParams,
        headers: IfNoneMatch,
        response: {
          200: success("The rule's kept versions, newest first.", versionsOf(Rule), { etag: true }),
          ...notModified,
          ...errorResponses('UNAUTHORIZED_ACTION', 'RULE_NOT_FOUND', ...ALWAYS),
        },
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
      config: { scope: 'write', reviewed: true, bodyError: 'RULE_PAYLOAD_INVALID' as const },
      schema: {
        tags: ['rules'],
        security,
        operationId: 'restoreRule',
        summary: 'Make a kept version of a rule current again, as a new version (also of a deleted rule)',
        params: RuleParams,
        body: RestoreBody,
        response: {
          200: success('The rule as restored.', single(Rule), { etag: true }),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'RULE_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'RULE_NOT_FOUND',
            'VERSION_NOT_FOUND',
            'RESTORE_CONFLICT',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await history.restoreRule(
        request.principal,
        request.params.ruleId,
        request.body,
      );
      return one(recordedAt(reply, revision), data);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/groups/:id/versions',
    {
      config: { scope: 'read', revisionEtag: true },
      schema: {
        tags: ['groups'],
        security,
        operationId: 'listGroupVersions',
        summary: "A group's kept versions, newest first (also of a deleted group)",
        params: GroupParams,
        headers: IfNoneMatch,
        response: {
          200: success("The group's kept versions, newest first.", versionsOf(Group), { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_GROUP_ID', 'UNAUTHORIZED_ACTION', 'GROUP_NOT_FOUND', ...ALWAYS),
        },
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
      config: { scope: 'write', reviewed: true, bodyError: 'GROUP_PAYLOAD_INVALID' as const },
      schema: {
        tags: ['groups'],
        security,
        operationId: 'restoreGroup',
        summary: 'Make a kept version of a group current again, as a new version (also of a deleted group)',
        params: GroupParams,
        body: RestoreBody,
        response: {
          200: success('The group as restored.', single(Group), { etag: true }),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'GROUP_PAYLOAD_INVALID',
            'INVALID_GROUP_ID',
            'UNAUTHORIZED_ACTION',
            'GROUP_NOT_FOUND',
            'VERSION_NOT_FOUND',
            'RESTORE_CONFLICT',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await history.restoreGroup(
        request.principal,
        request.params.id,
        request.body,
      );
      return one(recordedAt(reply, revision), data);
    },
  );
}
