// HTTP route of /v1/trace: a thin handler over the trace service.
import type { FastifyInstance } from 'fastify';
import { ALWAYS, BODY, errorResponses, success } from '../../http/responses.js';
import { DocumentedTraceBody } from './trace-document.js';
import { TraceAnswer, TraceQuery } from './trace-schemas.js';
import type { TraceService } from './trace-service.js';

export function registerTraceRoutes(app: FastifyInstance, traces: TraceService): void {
  app.post(
    '/trace',
    {
      config: { scope: 'read', bodyError: 'INVALID_TRACE_REQUEST' as const },
      schema: {
        tags: ['trace'],
        security: [{ apiKey: [] }],
        operationId: 'traceRequest',
        summary: 'What the rules do to a request, rule by rule and check by check',
        description:
          "Evaluates the workspace's rules (or only `ruleIds`, or unsaved `rules`) against `request` as " +
          'the proxy would, and explains every verdict. Nothing is stored. Traces run apart from other ' +
          'requests, each within a time limit (`TRACE_TIME_LIMIT_MS`, default 10 s; past it, 503 ' +
          '`TIME_LIMIT_EXCEEDED`); a key may have one trace running and four waiting (past that, 429).',
        querystring: TraceQuery,
        body: DocumentedTraceBody,
        response: {
          200: success('What the rules do to the request, and why.', TraceAnswer),
          ...errorResponses(
            'INVALID_TRACE_REQUEST',
            'INVALID_QUERY',
            'RULE_PAYLOAD_INVALID',
            'RULE_PAIRS_INVALID',
            'UNAUTHORIZED_ACTION',
            'RULE_NOT_FOUND',
            'GROUP_NOT_FOUND',
            'TIME_LIMIT_EXCEEDED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await traces.trace(request.principal, request.body, request.query),
    }),
  );
}
