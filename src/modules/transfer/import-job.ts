// An import as a worker's job (import-runner.ts): the records parsed, checked, planned and written, and
// the workspace linted, in a thread with its own database connection. On the event loop, a
// 100,000-record import was 30 s of slices between everyone else's requests, and its garbage
// collection paused them all; now the service's thread only passes bytes in and out.
import type { Config } from '../../config.js';
import { abandonableWith } from '../../db/abandon.js';
import { openDatabase } from '../../db/database.js';
import { isUnavailable } from '../../db/dialect.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../../errors.js';
import { successPieces } from '../../http/replies.js';
import type { Finding } from '../../model/finding.js';
import type { Principal } from '../../model/principal.js';
import { createChangesService } from '../changes/changes-service.js';
import { createChangesStore } from '../changes/changes-store.js';
import { createIdempotencyService } from '../idempotency/idempotency-service.js';
import { createIdempotencyStore } from '../idempotency/idempotency-store.js';
import { lintOnThisThread } from '../lint/lint-service.js';
import { ImportFile } from './import-body.js';
import { withFindings } from './import-warnings.js';
import { createTransferService, type ImportOptions } from './transfer-service.js';
import { createTransferStore } from './transfer-store.js';

export type ImportJobConfig = Pick<
  Config,
  'databaseUrl' | 'dbPoolSize' | 'dbStatementTimeoutMs' | 'dbConnectTimeoutMs' | 'maxDelayMs'
>;

export interface ImportJob {
  config: ImportJobConfig;
  principal: Principal;
  /** The body's chunks, moved here (import-body.ts). */
  chunks: Uint8Array[];
  digest: string;
  options: ImportOptions;
  idempotencyKey: string | undefined;
}

export type ImportOutcome =
  /** The whole answer, `{success: true, data: report}`, as UTF-8 pieces. */
  | { report: Uint8Array[]; replayed: boolean }
  | { refused: { code: ErrorCode; details: ErrorDetail[] | undefined } }
  /** Stopped because the pool said it was abandoned: rolled back. */
  | { abandoned: true };

/** What of an outcome moves back to the service's thread rather than being copied: the report's bytes. */
export const reportBytes = (outcome: ImportOutcome): ArrayBuffer[] =>
  'report' in outcome ? outcome.report.map((piece) => piece.buffer as ArrayBuffer) : [];

/** UTF-8 pieces of about this size: moved back to the service's thread, not copied. */
const PIECE_BYTES = 1 << 20;

const encoder = new TextEncoder();

/** The pieces joined into ~1 MiB ones, each encoded into memory of its own (so that it can be moved). */
async function encoded(pieces: AsyncIterable<string>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  let text = '';
  for await (const piece of pieces) {
    text += piece;
    if (text.length >= PIECE_BYTES) {
      out.push(encoder.encode(text));
      text = '';
    }
  }
  if (text !== '') out.push(encoder.encode(text));
  return out;
}

/** The worker's connection and the services an import uses, made once and kept for every job. */
function openServices(config: ImportJobConfig) {
  const database = openDatabase(config, { worker: true });
  const { db, dialect, signals } = database;
  const changes = createChangesService({
    store: createChangesStore(db, dialect),
    dataVersion: undefined,
    signals,
  });
  const idempotency = createIdempotencyService({ db, store: createIdempotencyStore() });
  const transfer = createTransferService({ db, store: createTransferStore(), idempotency, changes, config });
  return { database, db, changes, transfer };
}

export function createImportJobs() {
  let opened: { url: string; services: ReturnType<typeof openServices> } | undefined;
  function services(config: ImportJobConfig) {
    if (opened?.url !== config.databaseUrl) {
      void opened?.services.database.close();
      opened = { url: config.databaseUrl, services: openServices(config) };
    }
    return opened.services;
  }

  return async (
    job: ImportJob,
    signal: AbortSignal,
    partial: (outcome: ImportOutcome) => void,
  ): Promise<ImportOutcome> => {
    const { db, changes, transfer } = services(job.config);
    let result: Awaited<ReturnType<typeof transfer.import>>;
    try {
      const file = new ImportFile(job.chunks, job.digest);
      result = await abandonableWith(signal, () =>
        transfer.import(job.principal, file, job.options, job.idempotencyKey),
      );
    } catch (error) {
      if (signal.aborted) return { abandoned: true };
      if (error instanceof AppError) return { refused: { code: error.code, details: error.details } };
      // The database away or locked by another process: 503, as on the service's own connection.
      if (isUnavailable(error)) return { refused: { code: 'UNAVAILABLE', details: undefined } };
      throw error;
    }
    // Committed: from here on the import stands whatever happens, and its answer says so.
    const data = result.data;
    const answer = async (findings: Finding[]) => ({
      report: await encoded(successPieces(withFindings(data, findings) as never, 'items')),
      replayed: result.replayed,
    });
    if (data.dryRun || data.created + data.updated === 0) return answer([]);
    // Should the lint fail, or end this worker (its memory), this report without findings stands: the
    // pool hands it to the caller in place of the failure (import-runner.ts).
    partial(await answer([]));
    return answer((await lintOnThisThread(db, changes).lint(job.principal)).findings);
  };
}
