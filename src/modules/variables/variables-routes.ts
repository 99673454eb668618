// HTTP routes of /v1/environments and /v1/variables (decisions §20): thin handlers over their services.
// Neither is reviewed (config.reviewed): a change request holds rules and groups only, so an editor
// changes variables directly even while the workspace's review is required.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { etagOf } from '../../http/etag.js';
import { header, one, paged } from '../../http/replies.js';
import { ALWAYS, answerHeaders, BODY, errorResponses, notModified, success } from '../../http/responses.js';
import { recordedAt } from '../../http/revision-header.js';
import { deleted, IfMatch, IfNoneMatch, page, single } from '../../http/schemas.js';
import { versionsOf } from '../history/history-schemas.js';
import type { EnvironmentsService } from './environments-service.js';
import {
  Environment,
  EnvironmentCreate,
  EnvironmentListQuery,
  EnvironmentParams,
  EnvironmentValues,
  Variable,
  VariableCreate,
  VariableListQuery,
  VariableParams,
  VariableUpdate,
  VariableVersionObject,
} from './variables-schemas.js';
import type { VariablesService } from './variables-service.js';

type WithName = { Params: { name: string } };

const WRITE_LIMITS =
  'A workspace has at most `MAX_ENVIRONMENTS` environments (default 20) and `MAX_VARIABLES` variables ' +
  '(default 500); a value is at most `MAX_VARIABLE_VALUE_CHARS` characters (default 8192). Not part of ' +
  'change requests: an editor writes it directly even while review is required.';

export function registerVariablesRoutes(
  app: FastifyInstance,
  variables: VariablesService,
  environments: EnvironmentsService,
): void {
  const common = { tags: ['variables'], security: [{ apiKey: [] }] };
  const environmentBody = { bodyError: 'ENVIRONMENT_PAYLOAD_INVALID' as const };
  const variableBody = { bodyError: 'VARIABLE_PAYLOAD_INVALID' as const };

  app.get(
    '/environments',
    {
      config: { ...environmentBody, scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listEnvironments',
        summary: "List the workspace's environments, by name",
        description: 'Role needed: viewer. Every workspace has `default`.',
        querystring: EnvironmentListQuery,
        headers: IfNoneMatch,
        response: {
          200: success('A page of environments, by name.', page(Environment), { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await environments.list(request.principal, request.query)),
  );

  app.post(
    '/environments',
    {
      config: { ...environmentBody, scope: 'write' },
      schema: {
        ...common,
        operationId: 'createEnvironment',
        summary: 'Add an environment',
        description: `Role needed: editor. ${WRITE_LIMITS}`,
        body: EnvironmentCreate,
        response: {
          201: success('The environment, added.', single(Environment), { created: true }),
          ...errorResponses(
            'ENVIRONMENT_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'ENVIRONMENT_EXISTS',
            'ENVIRONMENTS_FULL',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await environments.create(request.principal, request.body);
      // An environment never changes: its creation names its one version.
      recordedAt(reply.code(201), revision)
        .header('location', `/v1/environments/${data.name}`)
        .header('etag', etagOf({ modificationDate: data.creationDate }));
      return { success: true, data };
    },
  );

  app.delete<WithName>(
    '/environments/:name',
    {
      config: { ...environmentBody, scope: 'write' },
      schema: {
        ...common,
        operationId: 'deleteEnvironment',
        summary: 'Delete an environment, with every variable’s value there',
        description:
          'Role needed: editor. `default` is kept (409), and so is an environment a working key is bound ' +
          'to (409: revoke the key first). Each variable that had a value there gets a new version without it.',
        params: EnvironmentParams,
        response: {
          204: {
            type: 'null',
            description: 'The environment is deleted. No body.',
            headers: answerHeaders(),
          },
          ...errorResponses(
            'UNAUTHORIZED_ACTION',
            'ENVIRONMENT_NOT_FOUND',
            'ENVIRONMENT_IN_USE',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { revision } = await environments.remove(request.principal, request.params.name);
      recordedAt(reply.code(204), revision);
      return reply.send();
    },
  );

  app.get<WithName>(
    '/environments/:name/values',
    {
      config: { ...environmentBody, scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'getEnvironmentValues',
        summary: "Every variable's value in an environment, secrets resolved: what runtimes act with",
        description:
          'For API keys only (any scope): a signed-in session is refused (403), so that no page of the ' +
          'console can show a secret. Runtimes read it again after any `variable` or `environment` ' +
          'change of the stream; its ETag follows the workspace revision.',
        params: EnvironmentParams,
        headers: IfNoneMatch,
        response: {
          200: success(
            'The values, with the revision they are at least as new as.',
            single(EnvironmentValues),
            {
              etag: true,
            },
          ),
          ...notModified,
          ...errorResponses('UNAUTHORIZED_ACTION', 'ENVIRONMENT_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await variables.values(request.principal, request.params.name, request.revision ?? 0),
    }),
  );

  app.get(
    '/variables',
    {
      config: { ...variableBody, scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listVariables',
        summary: "List the workspace's variables, by name",
        description: 'Role needed: viewer. A secret’s values are null: set there, never shown.',
        querystring: VariableListQuery,
        headers: IfNoneMatch,
        response: {
          200: success('A page of variables, by name.', page(Variable), { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await variables.list(request.principal, request.query)),
  );

  app.post(
    '/variables',
    {
      config: { ...variableBody, scope: 'write' },
      schema: {
        ...common,
        operationId: 'createVariable',
        summary: 'Add a variable, with its value in each environment',
        description: `Role needed: editor. ${WRITE_LIMITS}`,
        body: VariableCreate,
        response: {
          201: success('The variable, added (a secret’s values null).', single(Variable), { created: true }),
          ...errorResponses(
            'VARIABLE_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'VARIABLE_EXISTS',
            'VARIABLES_FULL',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await variables.create(request.principal, request.body);
      recordedAt(reply.code(201), revision).header('location', `/v1/variables/${data.name}`);
      return one(reply, data);
    },
  );

  app.get<WithName>(
    '/variables/:name',
    {
      config: { ...variableBody, scope: 'read' },
      schema: {
        ...common,
        operationId: 'getVariable',
        summary: 'Get a variable',
        description: 'Role needed: viewer. A secret’s values are null: set there, never shown.',
        params: VariableParams,
        headers: IfNoneMatch,
        response: {
          200: success('The variable.', single(Variable), { etag: true }),
          ...notModified,
          ...errorResponses('VARIABLE_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request, reply) => one(reply, await variables.get(request.principal, request.params.name)),
  );

  app.put<WithName>(
    '/variables/:name',
    {
      config: { ...variableBody, scope: 'write' },
      schema: {
        ...common,
        operationId: 'updateVariable',
        summary:
          'Change a variable (fields left out keep their values; `values`, when sent, replace them all)',
        description: `Role needed: editor. ${WRITE_LIMITS}`,
        params: VariableParams,
        body: VariableUpdate,
        headers: IfMatch,
        response: {
          200: success('The variable, changed.', single(Variable), { etag: true }),
          ...errorResponses(
            'VARIABLE_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'VARIABLE_NOT_FOUND',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await variables.update(
        request.principal,
        request.params.name,
        request.body,
        header(request, 'if-match'),
      );
      return one(recordedAt(reply, revision), data);
    },
  );

  app.delete<WithName>(
    '/variables/:name',
    {
      config: { ...variableBody, scope: 'write' },
      schema: {
        ...common,
        operationId: 'deleteVariable',
        summary: 'Delete a variable, with its values',
        description: 'Role needed: editor. Its versions stay in history.',
        params: VariableParams,
        headers: IfMatch,
        response: {
          200: success(
            'The variable is deleted.',
            deleted(Type.String({ enum: ['Variable deleted'], examples: ['Variable deleted'] })),
          ),
          ...errorResponses(
            'UNAUTHORIZED_ACTION',
            'VARIABLE_NOT_FOUND',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await variables.remove(
        request.principal,
        request.params.name,
        header(request, 'if-match'),
      );
      recordedAt(reply, revision);
      return { success: true, message: data };
    },
  );

  app.get<WithName>(
    '/variables/:name/versions',
    {
      config: { ...variableBody, scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listVariableVersions',
        summary: "A variable's kept versions, newest first (also of a deleted one)",
        description:
          'Role needed: viewer. A secret’s values appear as fingerprints (`sha256:` and 16 hex digits, ' +
          'salted with the workspace and the variable) that tell versions apart, never as values.',
        params: VariableParams,
        headers: IfNoneMatch,
        response: {
          200: success("The variable's kept versions, newest first.", versionsOf(VariableVersionObject), {
            etag: true,
          }),
          ...notModified,
          ...errorResponses('VARIABLE_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await variables.versions(request.principal, request.params.name),
    }),
  );
}
