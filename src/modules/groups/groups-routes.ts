// HTTP routes of /v1/groups: thin handlers over the groups service.
import type { FastifyInstance } from 'fastify';
import { created, header, one } from '../shared/replies.js';
import { Deleted, errorResponses, page, single } from '../shared/schemas.js';
import { Group, GroupListItem, GroupListQuery, GroupParams, GroupWrite } from './groups-schemas.js';
import type { GroupsService } from './groups-service.js';

type WithId = { Params: { id: string } };

export function registerGroupsRoutes(app: FastifyInstance, groups: GroupsService): void {
  const common = { tags: ['groups'], security: [{ apiKey: [] }] };
  const config = { bodyError: 'GROUP_PAYLOAD_INVALID' as const };

  app.get(
    '/groups',
    {
      config: { ...config, revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listGroups',
        summary: "List the workspace's groups",
        querystring: GroupListQuery,
        response: { 200: page(GroupListItem), ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request) => groups.list(request.principal, request.query),
  );

  app.get<WithId>(
    '/groups/:id',
    {
      config,
      schema: {
        ...common,
        operationId: 'getGroup',
        summary: 'Get a group',
        params: GroupParams,
        response: { 200: single(Group), ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => one(reply, await groups.get(request.principal, request.params.id)),
  );

  app.post(
    '/groups',
    {
      config,
      schema: {
        ...common,
        operationId: 'createGroup',
        summary: 'Create a group',
        body: GroupWrite,
        response: { 201: single(Group), ...errorResponses(400, 401, 413, 415, 429, 503) },
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
      config,
      schema: {
        ...common,
        operationId: 'updateGroup',
        summary: 'Update a group (fields left out keep their values)',
        params: GroupParams,
        body: GroupWrite,
        response: { 200: single(Group), ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request, reply) =>
      one(
        reply,
        await groups.update(request.principal, request.params.id, request.body, header(request, 'if-match')),
      ),
  );

  app.delete<WithId>(
    '/groups/:id',
    {
      config,
      schema: {
        ...common,
        operationId: 'deleteGroup',
        summary: 'Delete a group; its rules become ungrouped',
        params: GroupParams,
        response: { 200: Deleted, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => ({
      success: true,
      message: await groups.remove(request.principal, request.params.id, header(request, 'if-match')),
    }),
  );
}
