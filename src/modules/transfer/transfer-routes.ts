// HTTP routes of /v1/import and /v1/export: thin handlers over the transfer service.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { header } from '../shared/replies.js';
import { errorResponses } from '../shared/schemas.js';
import { ExportFile, ImportBody, ImportQuery, ImportReport } from './transfer-schemas.js';
import { readImportOptions, type TransferService } from './transfer-service.js';

export function registerTransferRoutes(
  app: FastifyInstance,
  transfer: TransferService,
  options: { maxImportBytes: number },
): void {
  const common = { tags: ['transfer'], security: [{ apiKey: [] }] };

  app.post(
    '/import',
    {
      // A whole export in one request: this route alone takes bodies up to MAX_IMPORT_BYTES.
      bodyLimit: options.maxImportBytes,
      config: { bodyError: 'IMPORT_INVALID' },
      schema: {
        ...common,
        operationId: 'importFile',
        summary: 'Import a Requestly export (rules and groups), in one transaction',
        querystring: ImportQuery,
        body: ImportBody,
        response: { 200: ImportReport, ...errorResponses(400, 401, 409, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const importOptions = readImportOptions(request.query);
      const key = header(request, 'idempotency-key');
      const result = await transfer.import(request.principal, request.body, importOptions, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return { success: true, data: result.data };
    },
  );

  app.get(
    '/export',
    {
      schema: {
        ...common,
        operationId: 'exportFile',
        summary: "Export the workspace's groups and rules as a Requestly-compatible file",
        response: { 200: ExportFile, ...errorResponses(401, 429, 503) },
      },
    },
    async (request, reply) =>
      reply
        .header('content-disposition', 'attachment; filename="rulekeeper-export.json"')
        .type('application/json; charset=utf-8')
        .send(Readable.from(transfer.export(request.principal))),
  );
}
