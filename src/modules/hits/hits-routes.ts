// HTTP routes of the hits: POST /v1/hits (a runtime's report), GET /v1/hits (the workspace's rules by
// last hit) and GET /v1/rules/:ruleId/hits (one rule's); thin handlers over the hits service.
import type { FastifyInstance } from 'fastify';
import { paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, success } from '../../http/responses.js';
import { page, single } from '../../http/schemas.js';
import { RuleParams } from '../rules/rules-schemas.js';
import {
  HitsListQuery,
  HitsReceipt,
  HitsReport,
  MAX_HIT_ENTRIES,
  MAX_HITS_BODY_BYTES,
  RuleHits,
  RuleLastHit,
} from './hits-schemas.js';
import type { HitsService } from './hits-service.js';

export function registerHitsRoutes(app: FastifyInstance, hits: HitsService): void {
  const common = { tags: ['hits'], security: [{ apiKey: [] }] };

  app.post(
    '/hits',
    {
      // A read key may report: runtimes hold read keys. Reports touch no rule and no revision, so they
      // stay out of the workspace's write batches (plugins/write-batches.ts).
      config: { scope: 'read', bodyError: 'HITS_PAYLOAD_INVALID', unbatched: true },
      bodyLimit: MAX_HITS_BODY_BYTES,
      schema: {
        ...common,
        operationId: 'reportHits',
        summary: 'Report which rules acted, and how often (runtimes do this)',
        description:
          'The proxy, the browser extension, the Playwright fixture and `rulekeeper/runtime` send this at ' +
          'most every 10 s while rules act: rule ids and counts only, never URLs or bodies. Kept per rule ' +
          `per hour per source for 90 days. Up to ${MAX_HIT_ENTRIES} entries (a body over ` +
          `${MAX_HITS_BODY_BYTES / 1024} KiB is 413); each count is taken up to 1,000,000 and each time ` +
          'moved into the last 24 hours. Ids that are not rules of the workspace are ignored and counted ' +
          'in `ignored`. A key may send `HITS_REPORTS_PER_MINUTE` reports a minute (default 60), counted ' +
          'by all instances together when `REDIS_URL` is set, else on each instance; past it, 429 with ' +
          '`Retry-After`. Role needed: viewer (a `read` key).',
        body: HitsReport,
        response: {
          200: success('What was counted.', single(HitsReceipt)),
          ...errorResponses('HITS_PAYLOAD_INVALID', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await hits.report(request.principal, request.body) }),
  );

  app.get(
    '/hits',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'listHits',
        summary: "The workspace's rules by their last hit, most recent first",
        description:
          'Every rule of the workspace: those that acted in the kept 90 days, most recently first, then ' +
          'those that did not (`lastHitAt` null), in list order. Role needed: viewer.',
        querystring: HitsListQuery,
        response: {
          200: success('A page of rules with their last hit.', page(RuleLastHit)),
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await hits.list(request.principal, request.query)),
  );

  app.get<{ Params: { ruleId: string } }>(
    '/rules/:ruleId/hits',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['rules', 'hits'],
        security: common.security,
        operationId: 'getRuleHits',
        summary: 'How often a rule acted: per day for 30 days, by runtime, and its last hit',
        description: 'Days are UTC. Role needed: viewer.',
        params: RuleParams,
        response: {
          200: success("The rule's hits.", single(RuleHits)),
          ...errorResponses('UNAUTHORIZED_ACTION', 'RULE_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await hits.ofRule(request.principal, request.params.ruleId) }),
  );
}
