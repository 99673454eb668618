// HTTP routes of /v1/groups: thin handlers over the groups service.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { created, header, one, paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, notModified, success } from '../../http/responses.js';
import { recordedAt } from '../../http/revision-header.js';
import { deleted, IdempotencyKey, IfMatch, IfNoneMatch, page, single } from '../../http/schemas.js';
import { Group, GroupBody, GroupCreateBody, GroupListItem } from '../../model/group.js';
import { GroupListQuery, GroupParams } from './groups-schemas.js';
import type { GroupsService } from './groups-service.js';

type WithId = { Params: { id: string } };

export function registerGroupsRoutes(app: FastifyInstance, groups: GroupsService): void {
  const common = { tags: ['groups'], security: [{ apiKey: [] }] };
  const config = { bodyError: 'GROUP_PAYLOAD_INVALID' as const };

  app.get(
    '/groups',
    {
      config: { ...config, scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listGroups',
        summary: "List the workspace's groups",
        querystring: GroupListQuery,
        headers: IfNoneMatch,
        response: {
          200: success('A page of groups, oldest first.', page(GroupListItem), { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await groups.list(request.principal, request.query)),
  );

  app.get<WithId>(
    '/groups/:id',
    {
      config: { ...config, scope: 'read' },
      schema: {
        ...common,
        operationId: 'getGroup',
        summary: 'Get a group',
        params: GroupParams,
        headers: IfNoneMatch,
        response: {
          200: success('The group.', single(Group), { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_GROUP_ID', 'UNAUTHORIZED_ACTION', 'GROUP_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request, reply) => one(reply, await groups.get(request.principal, request.params.id)),
  );

  app.post(
    '/groups',
    {
      config: { ...config, scope: 'write', reviewed: true },
      schema: {
        ...common,
        operationId: 'createGroup',
        summary: 'Create a group',
        body: GroupCreateBody,
        headers: IdempotencyKey,
        response: {
          201: success(
            'The group, created (or, for a replayed Idempotency-Key, as first created).',
            single(Group),
            {
              created: true,
            },
          ),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'GROUP_PAYLOAD_INVALID',
            'GROUP_NAME_REQUIRED',
            'INVALID_IDEMPOTENCY_KEY',
            'IDEMPOTENCY_KEY_REUSED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) =>
      created(
        reply,
        '/v1/groups',
        await groups.create(request.principal, request.body, header(request, 'idempotency-key')),
      ),
  );

  app.put<WithId>(
    '/groups/:id',
    {
      config: { ...config, scope: 'write', reviewed: true },
      schema: {
        ...common,
        operationId: 'updateGroup',
        summary: 'Update a group (fields left out keep their values)',
        params: GroupParams,
        body: GroupBody,
        headers: IfMatch,
        response: {
          200: success('The group, updated.', single(Group), { etag: true }),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'GROUP_PAYLOAD_INVALID',
            'GROUP_NAME_REQUIRED',
            'INVALID_GROUP_ID',
            'UNAUTHORIZED_ACTION',
            'GROUP_NOT_FOUND',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      const { data, revision } = await groups.update(
        principal,
        params.id,
        request.body,
        header(request, 'if-match'),
      );
      return one(recordedAt(reply, revision), data);
    },
  );

  app.delete<WithId>(
    '/groups/:id',
    {
      config: { ...config, scope: 'write', reviewed: true },
      schema: {
        ...common,
        operationId: 'deleteGroup',
        summary: 'Delete a group; its rules become ungrouped',
        params: GroupParams,
        headers: IfMatch,
        response: {
          200: success(
            'The group is deleted; the message says how many rules were ungrouped.',
            deleted(
              Type.String({
                pattern: '^Group deleted successfully; [0-9]+ rules? ungrouped$',
                examples: ['Group deleted successfully; 3 rules ungrouped'],
              }),
            ),
          ),
          // A body is not needed, but one that is sent must be JSON within the limit.
          ...errorResponses(
            'REVIEW_REQUIRED',
            'INVALID_GROUP_ID',
            'UNAUTHORIZED_ACTION',
            'GROUP_NOT_FOUND',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await groups.remove(
        request.principal,
        request.params.id,
        header(request, 'if-match'),
      );
      recordedAt(reply, revision);
      return { success: true, message: data };
    },
  );
}
