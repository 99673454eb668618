// HTTP route of /v1/trace: a thin handler over the trace service.
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../shared/schemas.js';
import { TraceAnswer, TraceBody } from './trace-schemas.js';
import type { TraceService } from './trace-service.js';

export function registerTraceRoutes(app: FastifyInstance, traces: TraceService): void {
  app.post(
    '/trace',
    {
      config: { bodyError: 'INVALID_TRACE_REQUEST' as const },
      schema: {
        tags: ['trace'],
        security: [{ apiKey: [] }],
        operationId: 'traceRequest',
        summary: 'What the rules do to a request, rule by rule and check by check',
        description:
          "Evaluates the workspace's rules (or only `ruleIds`, or unsaved `rules`) against `request` as " +
          'the proxy would, and explains every verdict. Nothing is stored.',
        body: TraceBody,
        response: { 200: TraceAnswer, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request) => ({ success: true, data: await traces.trace(request.principal, request.body) }),
  );
}
