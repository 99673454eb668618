// HTTP routes of /v1/rules: thin handlers over the rules service.
import type { FastifyInstance } from 'fastify';
import { created, header, one, oneSerialized, sendJson } from '../shared/replies.js';
import { Deleted, errorResponses, page, single } from '../shared/schemas.js';
import { Rule, RuleCreate, RuleListQuery, RuleParams, RuleUpdate } from './rules-schemas.js';
import type { RulesService } from './rules-service.js';

type WithId = { Params: { ruleId: string } };

export function registerRulesRoutes(app: FastifyInstance, rules: RulesService): void {
  const common = { tags: ['rules'], security: [{ apiKey: [] }] };
  const config = { bodyError: 'RULE_PAYLOAD_INVALID' as const };

  app.get(
    '/rules',
    {
      config: { ...config, revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listRules',
        summary: "List the workspace's rules, oldest first, with filters",
        querystring: RuleListQuery,
        response: { 200: page(Rule), ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await rules.list(request.principal, request.query, request.cacheVersion)),
  );

  app.get<WithId>(
    '/rules/:ruleId',
    {
      config,
      schema: {
        ...common,
        operationId: 'getRule',
        summary: 'Get a rule',
        params: RuleParams,
        response: { 200: single(Rule), ...errorResponses(401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) =>
      oneSerialized(reply, await rules.get(request.principal, request.params.ruleId, request.cacheVersion)),
  );

  app.post(
    '/rules',
    {
      config,
      schema: {
        ...common,
        operationId: 'createRule',
        summary: 'Create a rule',
        body: RuleCreate,
        response: { 201: single(Rule), ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request, reply) =>
      created(
        reply,
        '/v1/rules',
        await rules.create(request.principal, request.body, header(request, 'idempotency-key')),
      ),
  );

  app.put<WithId>(
    '/rules/:ruleId',
    {
      config,
      schema: {
        ...common,
        operationId: 'updateRule',
        summary: 'Update a rule (fields left out keep their values; pairs, when given, replace all pairs)',
        params: RuleParams,
        body: RuleUpdate,
        response: { 200: single(Rule), ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request, reply) =>
      one(
        reply,
        await rules.update(
          request.principal,
          request.params.ruleId,
          request.body,
          header(request, 'if-match'),
        ),
      ),
  );

  app.delete<WithId>(
    '/rules/:ruleId',
    {
      config,
      schema: {
        ...common,
        operationId: 'deleteRule',
        summary: 'Delete a rule',
        params: RuleParams,
        response: { 200: Deleted, ...errorResponses(401, 403, 404, 429, 503) },
      },
    },
    async (request) => ({
      success: true,
      message: await rules.remove(request.principal, request.params.ruleId, header(request, 'if-match')),
    }),
  );
}
