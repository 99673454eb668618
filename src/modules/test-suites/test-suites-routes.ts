// HTTP routes of /v1/test-suites: thin handlers over the test suites service.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { header, one, paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, notModified, success } from '../../http/responses.js';
import { deleted, IfMatch, IfNoneMatch, page, single } from '../../http/schemas.js';
import {
  TestSuite,
  TestSuiteCreate,
  TestSuiteListItem,
  TestSuiteListQuery,
  TestSuiteParams,
  TestSuiteRun,
  TestSuiteUpdate,
} from './test-suites-schemas.js';
import type { TestSuitesService } from './test-suites-service.js';

type WithSuite = { Params: { suiteId: string } };

export function registerTestSuitesRoutes(app: FastifyInstance, suites: TestSuitesService): void {
  const common = { tags: ['test-suites'], security: [{ apiKey: [] }] };
  const config = { bodyError: 'TEST_SUITE_PAYLOAD_INVALID' as const };

  app.get(
    '/test-suites',
    {
      config: { ...config, scope: 'read' },
      schema: {
        ...common,
        operationId: 'listTestSuites',
        summary: "List the workspace's test suites",
        description: 'Role needed: viewer. By name, without their cases (`caseCount` says how many).',
        querystring: TestSuiteListQuery,
        response: {
          200: success('A page of suites, by name.', page(TestSuiteListItem)),
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await suites.list(request.principal, request.query)),
  );

  app.post(
    '/test-suites',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'createTestSuite',
        summary: 'Keep a suite of `rulekeeper test` cases',
        description:
          'Role needed: editor. `cases` are checked as `rulekeeper test` checks a file. A workspace keeps ' +
          'at most `MAX_TEST_SUITES` suites (default 100), each of at most `MAX_TEST_SUITE_CASES` cases ' +
          '(default 1000).',
        body: TestSuiteCreate,
        response: {
          201: success('The suite, kept.', single(TestSuite), { created: true }),
          ...errorResponses(
            'TEST_SUITE_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'TEST_SUITE_EXISTS',
            'TEST_SUITES_FULL',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await suites.create(request.principal, request.body, request.ip);
      reply.code(201).header('location', `/v1/test-suites/${data.id}`);
      return one(reply, data);
    },
  );

  app.get<WithSuite>(
    '/test-suites/:suiteId',
    {
      config: { ...config, scope: 'read' },
      schema: {
        ...common,
        operationId: 'getTestSuite',
        summary: 'Get a test suite with its cases',
        description: 'Role needed: viewer. Its `cases` are a `rulekeeper test` file as it stands.',
        params: TestSuiteParams,
        headers: IfNoneMatch,
        response: {
          200: success('The suite.', single(TestSuite), { etag: true }),
          ...notModified,
          ...errorResponses('TEST_SUITE_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request, reply) => one(reply, await suites.get(request.principal, request.params.suiteId)),
  );

  app.put<WithSuite>(
    '/test-suites/:suiteId',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'updateTestSuite',
        summary: 'Rename a test suite or replace its cases (fields left out keep their values)',
        description: 'Role needed: editor. `cases`, when sent, replace them all.',
        params: TestSuiteParams,
        body: TestSuiteUpdate,
        headers: IfMatch,
        response: {
          200: success('The suite, updated.', single(TestSuite), { etag: true }),
          ...errorResponses(
            'TEST_SUITE_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'TEST_SUITE_NOT_FOUND',
            'TEST_SUITE_EXISTS',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      const data = await suites.update(
        principal,
        params.suiteId,
        request.body,
        header(request, 'if-match'),
        request.ip,
      );
      return one(reply, data);
    },
  );

  app.delete<WithSuite>(
    '/test-suites/:suiteId',
    {
      config: { ...config, scope: 'write' },
      schema: {
        ...common,
        operationId: 'deleteTestSuite',
        summary: 'Delete a test suite',
        description: 'Role needed: editor.',
        params: TestSuiteParams,
        headers: IfMatch,
        response: {
          200: success(
            'The suite is deleted.',
            deleted(Type.String({ enum: ['Test suite deleted'], examples: ['Test suite deleted'] })),
          ),
          ...errorResponses(
            'UNAUTHORIZED_ACTION',
            'TEST_SUITE_NOT_FOUND',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => {
      await suites.remove(request.principal, request.params.suiteId, header(request, 'if-match'), request.ip);
      return { success: true, message: 'Test suite deleted' };
    },
  );

  app.post<WithSuite>(
    '/test-suites/:suiteId/run',
    {
      config: { ...config, scope: 'read' },
      schema: {
        ...common,
        operationId: 'runTestSuite',
        summary: "Run a test suite against the workspace's rules as they are now",
        description:
          'Role needed: viewer. Each case is traced as `POST /v1/trace` traces it (off the event loop, ' +
          'within `TRACE_TIME_LIMIT_MS` each) and judged as `rulekeeper test` judges it; a case whose ' +
          'request the trace refuses fails, saying why. Nothing is stored. A trace past its time limit ' +
          'ends the run (503).',
        params: TestSuiteParams,
        response: {
          200: success(
            'Each case passed or failed, with what differed; and the totals.',
            single(TestSuiteRun),
          ),
          ...errorResponses('TEST_SUITE_NOT_FOUND', 'TIME_LIMIT_EXCEEDED', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await suites.run(request.principal, request.params.suiteId),
    }),
  );
}
