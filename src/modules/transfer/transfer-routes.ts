// HTTP routes of /v1/import and /v1/export: thin handlers over the transfer service.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { header, jsonArrayPieces, successPieces } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, header as responseHeader, success } from '../../http/responses.js';
import { recordedAt } from '../../http/revision-header.js';
import { IdempotencyKey } from '../../http/schemas.js';
import type { Finding } from '../../model/finding.js';
import type { Principal } from '../../model/principal.js';
import { useImportBodyParser } from './import-body.js';
import type { ImportRunner } from './import-runner.js';
import { withFindings } from './import-warnings.js';
import { ExportFile, ExportQuery, ImportBody, ImportQuery, ImportReport } from './transfer-schemas.js';
import { readExportFormat, readImportOptions, type TransferService } from './transfer-service.js';

/** The rule lint's findings about the workspace's rules, as the lint service answers them. */
export type WorkspaceFindings = (principal: Principal) => Promise<{ findings: Finding[] }>;

const ATTACHMENT_VALUE = 'attachment; filename="rulekeeper-export.json"';
const common = { tags: ['transfer'], security: [{ apiKey: [] }] };
const ATTACHMENT = responseHeader('A file to save.', { enum: [ATTACHMENT_VALUE] }, true);

export function registerTransferRoutes(
  app: FastifyInstance,
  transfer: TransferService,
  options: Pick<Config, 'maxImportBytes' | 'importTimeLimitMs' | 'exportTimeLimitMs'>,
  lint: WorkspaceFindings,
  /** Where imports run when not on the event loop (import-runner.ts). */
  importer?: ImportRunner,
): void {
  // Its own scope: only this route keeps its JSON body as bytes (import-body.ts).
  app.register(async (scope) => {
    useImportBodyParser(scope);
    registerImportRoute(scope, transfer, options, lint, importer);
  });
  registerExportRoute(app, transfer, options);
}

function registerImportRoute(
  app: FastifyInstance,
  transfer: TransferService,
  options: Pick<Config, 'maxImportBytes' | 'importTimeLimitMs'>,
  lint: WorkspaceFindings,
  importer: ImportRunner | undefined,
): void {
  app.post(
    '/import',
    {
      // A whole export in one request: this route alone takes bodies up to MAX_IMPORT_BYTES.
      bodyLimit: options.maxImportBytes,
      config: {
        scope: 'write',
        reviewed: true,
        bodyError: 'IMPORT_INVALID',
        timeLimit: { ms: options.importTimeLimitMs, setting: 'IMPORT_TIME_LIMIT_MS', what: 'the import' },
      },
      schema: {
        ...common,
        operationId: 'importFile',
        summary: 'Import a Requestly export (rules and groups), in one transaction',
        description:
          'An answer or nothing: the import runs for at most `IMPORT_TIME_LIMIT_MS` (default 120 s) once ' +
          'its body is in; past it, it is rolled back and answered 503 `Time limit exceeded`. If the ' +
          'client goes away before the answer, it is rolled back too: nothing is written for a client ' +
          'that was not told (retry with the same `Idempotency-Key` to be safe either way).',
        querystring: ImportQuery,
        body: ImportBody,
        headers: IdempotencyKey,
        response: {
          200: success('What became of each record (in a dry run: what would).', ImportReport, {
            replayable: true,
          }),
          ...errorResponses(
            'REVIEW_REQUIRED',
            'IMPORT_INVALID',
            'INVALID_QUERY',
            'INVALID_IDEMPOTENCY_KEY',
            'IDEMPOTENCY_KEY_REUSED',
            'TIME_LIMIT_EXCEEDED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const importOptions = readImportOptions(request.query);
      const key = header(request, 'idempotency-key');
      reply.type('application/json; charset=utf-8');
      if (importer) {
        const answer = await importer(request.principal, request.body, importOptions, key, request.abandoned);
        if (answer.replayed) reply.header('idempotent-replayed', 'true');
        return reply.send(Readable.from(answer.report));
      }
      const result = await transfer.import(request.principal, request.body, importOptions, key);
      recordedAt(reply, result.revision);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      const wrote = !result.data.dryRun && result.data.created + result.data.updated > 0;
      const data = wrote ? withFindings(result.data, (await lint(request.principal)).findings) : result.data;
      return reply.send(Readable.from(successPieces(data as unknown as Record<string, unknown>, 'items')));
    },
  );
}

function registerExportRoute(
  app: FastifyInstance,
  transfer: TransferService,
  options: Pick<Config, 'exportTimeLimitMs'>,
): void {
  app.get(
    '/export',
    {
      config: {
        scope: 'read',
        timeLimit: { ms: options.exportTimeLimitMs, setting: 'EXPORT_TIME_LIMIT_MS', what: 'the export' },
      },
      schema: {
        ...common,
        operationId: 'exportFile',
        summary: "Export the workspace's groups and rules as a Requestly-compatible file",
        description:
          'Streamed a page at a time. It runs for at most `EXPORT_TIME_LIMIT_MS` (default 300 s): past ' +
          "it, the connection is cut before the file's closing `]`, so a cut-off export is never a " +
          'valid file.',
        querystring: ExportQuery,
        response: {
          200: success("The workspace's groups, then its rules.", ExportFile, {
            headers: {
              'Content-Disposition': ATTACHMENT,
              'Rulekeeper-Environment': responseHeader(
                'The environment whose variables the rules took (absent: the rules as written).',
                { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$', examples: ['staging'] },
              ),
            },
          }),
          ...errorResponses('INVALID_QUERY', 'ENVIRONMENT_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      const format = readExportFormat(request.query);
      const environment = await transfer.exportEnvironment(request.principal, request.query, format);
      if (environment) reply.header('rulekeeper-environment', environment.name);
      const pages = transfer.export(request.principal, request.abandoned, format, environment);
      return reply
        .header('content-disposition', ATTACHMENT_VALUE)
        .type('application/json; charset=utf-8')
        .send(Readable.from(jsonArrayPieces(pages)));
    },
  );
}
