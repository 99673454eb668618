// HTTP routes of /v1/rules: thin handlers over the rules service.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { created, header, oneSerialized, pageSerialized, written } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, notModified, success } from '../../http/responses.js';
import { recordedAt } from '../../http/revision-header.js';
import { deleted, IdempotencyKey, IfMatch, IfNoneMatch, page, single } from '../../http/schemas.js';
import { Rule, RuleCreate, RuleUpdate } from '../../model/rule.js';
import { RULE_DELETED, RuleListQuery, RuleParams, type RuleWarnings, withWarnings } from './rules-schemas.js';
import type { RulesService } from './rules-service.js';

type WithId = { Params: { ruleId: string } };

export function registerRulesRoutes(app: FastifyInstance, rules: RulesService, warnings: RuleWarnings): void {
  const common = { tags: ['rules'], security: [{ apiKey: [] }] };
  const config = { bodyError: 'RULE_PAYLOAD_INVALID' as const };

  app.get(
    '/rules',
    {
      config: { ...config, scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listRules',
        summary: "List the workspace's rules, oldest first, with filters",
        querystring: RuleListQuery,
        headers: IfNoneMatch,
        response: {
          200: success('A page of rules, oldest first.', page(Rule), { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request, reply) =>
      pageSerialized(reply, await rules.list(request.principal, request.query, request.cacheVersion)),
  );

  app.get<WithId>(
    '/rules/:ruleId',
    {
      config: { ...config, scope: 'read' },
      schema: {
        ...common,
        operationId: 'getRule',
        summary: 'Get a rule',
        params: RuleParams,
        headers: IfNoneMatch,
        response: {
          200: success('The rule.', single(Rule), { etag: true }),
          ...notModified,
          ...errorResponses('UNAUTHORIZED_ACTION', 'RULE_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request, reply) =>
      oneSerialized(reply, await rules.get(request.principal, request.params.ruleId, request.cacheVersion)),
  );

  app.post(
    '/rules',
    {
      config: { ...config, scope: 'write', reviewed: true },
      schema: {
        ...common,
        operationId: 'createRule',
        summary: 'Create a rule',
        body: RuleCreate,
        headers: IdempotencyKey,
        response: {
          201: success(
            'The rule, created (or, for a replayed Idempotency-Key, as first created).',
            withWarnings(Rule),
            {
              created: true,
            },
          ),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'RULE_PAYLOAD_INVALID',
            'RULE_PAIRS_INVALID',
            'INVALID_IDEMPOTENCY_KEY',
            'UNAUTHORIZED_ACTION',
            'GROUP_NOT_FOUND',
            'IDEMPOTENCY_KEY_REUSED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const result = await rules.create(request.principal, request.body, header(request, 'idempotency-key'));
      created(reply, '/v1/rules', result);
      return written(reply, result.data, await warnings(request.principal, result.data.id, result.revision));
    },
  );

  app.put<WithId>(
    '/rules/:ruleId',
    {
      config: { ...config, scope: 'write', reviewed: true },
      schema: {
        ...common,
        operationId: 'updateRule',
        summary: 'Update a rule (fields left out keep their values; pairs, when given, replace all pairs)',
        params: RuleParams,
        body: RuleUpdate,
        headers: IfMatch,
        response: {
          200: success('The rule, updated.', withWarnings(Rule), { etag: true }),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'RULE_PAYLOAD_INVALID',
            'RULE_PAIRS_INVALID',
            'RULE_TYPE_UPDATE_NOT_ALLOWED',
            'UNAUTHORIZED_ACTION',
            'RULE_NOT_FOUND',
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
      const { data, revision } = await rules.update(
        principal,
        params.ruleId,
        request.body,
        header(request, 'if-match'),
      );
      recordedAt(reply, revision);
      return written(reply, data, await warnings(principal, data.id, revision));
    },
  );

  app.delete<WithId>(
    '/rules/:ruleId',
    {
      config: { ...config, scope: 'write', reviewed: true },
      schema: {
        ...common,
        operationId: 'deleteRule',
        summary: 'Delete a rule',
        params: RuleParams,
        headers: IfMatch,
        response: {
          200: success('The rule is deleted.', deleted(Type.Literal(RULE_DELETED))),
          // A body is not needed, but one that is sent must be JSON within the limit.
          ...errorResponses(
            'REVIEW_REQUIRED',
            'UNAUTHORIZED_ACTION',
            'RULE_NOT_FOUND',
            'PRECONDITION_FAILED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { data, revision } = await rules.remove(
        request.principal,
        request.params.ruleId,
        header(request, 'if-match'),
      );
      recordedAt(reply, revision);
      return { success: true, message: data };
    },
  );
}
