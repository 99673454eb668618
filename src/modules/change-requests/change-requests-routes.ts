// HTTP routes of /v1/change-requests: thin handlers over the change requests service.
import type { FastifyInstance } from 'fastify';
import { paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, success } from '../../http/responses.js';
import { page, single } from '../../http/schemas.js';
import {
  ChangeRequest,
  ChangeRequestCreate,
  ChangeRequestListItem,
  ChangeRequestListQuery,
  ChangeRequestParams,
  ChangeRequestUpdate,
  ReviewBody,
} from './change-requests-schemas.js';
import type { ChangeRequestsService } from './change-requests-service.js';

type WithId = { Params: { id: string } };

/** Errors an operation's body can answer: the direct routes' own. */
const OPERATION_ERRORS = [
  'CHANGE_REQUEST_PAYLOAD_INVALID',
  'RULE_PAYLOAD_INVALID',
  'RULE_PAIRS_INVALID',
  'RULE_TYPE_UPDATE_NOT_ALLOWED',
  'GROUP_PAYLOAD_INVALID',
  'GROUP_NAME_REQUIRED',
  'INVALID_GROUP_ID',
  'RULE_NOT_FOUND',
  'GROUP_NOT_FOUND',
] as const;

export function registerChangeRequestsRoutes(app: FastifyInstance, service: ChangeRequestsService): void {
  const common = { tags: ['change-requests'], security: [{ apiKey: [] }] };
  const config = { bodyError: 'CHANGE_REQUEST_PAYLOAD_INVALID' as const };
  const one = (description: string) => success(description, single(ChangeRequest));

  app.post(
    '/change-requests',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'createChangeRequest',
        summary: 'Propose a change of rules and groups for review',
        description:
          'Role needed: editor. Each operation is checked as the direct route checks its body (its errors ' +
          'point at `/operations/N/...`); the evidence of what the change would do is computed before the ' +
          'answer, off the event loop. At most 1,000 operations.',
        body: ChangeRequestCreate,
        response: {
          201: success('The change request, open.', single(ChangeRequest)),
          ...errorResponses(...OPERATION_ERRORS, 'UNAUTHORIZED_ACTION', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      const data = await service.create(request.principal, request.body, request.ip);
      reply.code(201).header('location', `/v1/change-requests/${data.id}`);
      return { success: true, data };
    },
  );

  app.get(
    '/change-requests',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'listChangeRequests',
        summary: "List the workspace's change requests, newest first",
        description: 'Role needed: viewer.',
        querystring: ChangeRequestListQuery,
        response: {
          200: success('A page of change requests, newest first.', page(ChangeRequestListItem)),
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await service.list(request.principal, request.query)),
  );

  app.get<WithId>(
    '/change-requests/:id',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'getChangeRequest',
        summary: 'Get a change request, its reviews and its evidence',
        description: 'Role needed: viewer.',
        params: ChangeRequestParams,
        response: {
          200: one('The change request.'),
          ...errorResponses('CHANGE_REQUEST_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await service.get(request.principal, request.params.id) }),
  );

  app.patch<WithId>(
    '/change-requests/:id',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'updateChangeRequest',
        summary: 'Update a change request (its author, while open, approved or rejected)',
        description:
          'Role needed: editor, and its author. New operations are written against the workspace as it is ' +
          'now (the base revision moves). Every update makes it `open` again: reviews of earlier versions ' +
          'no longer count. Its evidence is computed again.',
        params: ChangeRequestParams,
        body: ChangeRequestUpdate,
        response: {
          200: one('The change request, updated.'),
          ...errorResponses(
            ...OPERATION_ERRORS,
            'UNAUTHORIZED_ACTION',
            'CHANGE_REQUEST_NOT_FOUND',
            'CHANGE_REQUEST_STATE',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await service.update(request.principal, request.params.id, request.body, request.ip),
    }),
  );

  app.post<WithId>(
    '/change-requests/:id/reviews',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'reviewChangeRequest',
        summary: 'Approve a change request, or ask for changes',
        description:
          "Role needed: admin (editor when the workspace's `reviewers` setting is `editors`); never its " +
          'author, whatever key or session they use. A request for changes makes it `rejected` until its ' +
          'reviewer approves or its author updates it.',
        params: ChangeRequestParams,
        body: ReviewBody,
        response: {
          200: one('The change request, reviewed.'),
          ...errorResponses(
            'CHANGE_REQUEST_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'CHANGE_REQUEST_NOT_FOUND',
            'CHANGE_REQUEST_STATE',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await service.review(request.principal, request.params.id, request.body, request.ip),
    }),
  );

  app.post<WithId>(
    '/change-requests/:id/merge',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'mergeChangeRequest',
        summary: 'Apply an approved change request, as one revision',
        description:
          'Role needed: editor. Every operation is applied in one transaction as one revision whose ' +
          'history and changes name the change request (`changeRequestId`). A rule or group it touches ' +
          'that changed since its base revision is a `409` naming each, and nothing is applied.',
        params: ChangeRequestParams,
        response: {
          200: one('The change request, merged (`mergedRevision`).'),
          ...errorResponses(
            ...OPERATION_ERRORS,
            'UNAUTHORIZED_ACTION',
            'CHANGE_REQUEST_NOT_FOUND',
            'CHANGE_REQUEST_STATE',
            'CHANGE_REQUEST_CONFLICT',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await service.merge(request.principal, request.params.id, request.ip),
    }),
  );

  app.post<WithId>(
    '/change-requests/:id/close',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'closeChangeRequest',
        summary: 'Close a change request without merging it',
        description: 'Role needed: editor and its author, or admin.',
        params: ChangeRequestParams,
        response: {
          200: one('The change request, closed.'),
          ...errorResponses(
            'UNAUTHORIZED_ACTION',
            'CHANGE_REQUEST_NOT_FOUND',
            'CHANGE_REQUEST_STATE',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await service.close(request.principal, request.params.id, request.ip),
    }),
  );
}
