// Imports run on a worker of their own (import-job.ts), one at a time, with their own database
// connection: the event loop only receives the body's bytes, moves them to the worker, and sends the
// report's bytes back. On SQLite this connection's writes wait meanwhile, as they waited for an import
// on the event loop; PostgreSQL locks rows and lets them through.
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../model/principal.js';
import { createWorkerPool, workerEntry } from '../shared/worker-pool.js';
import { ImportFile } from './import-body.js';
import type { ImportJob, ImportJobConfig, ImportOutcome } from './import-job.js';
import { type ImportOptions, readBody } from './transfer-service.js';

/** An import's answer: `{success, data: report}` as UTF-8 pieces, and whether it was a replay. */
export interface ImportAnswer {
  report: Uint8Array[];
  replayed: boolean;
}

export type ImportRunner = (
  principal: Principal,
  body: unknown,
  options: ImportOptions,
  idempotencyKey: string | undefined,
  abandoned: AbortSignal | undefined,
) => Promise<ImportAnswer>;

/** Room for a worker told to stop (its client gone, its time limit past) to roll back and say so. */
const STOP_GRACE_MS = 30_000;

export function createImportPool(
  database: Database,
  config: ImportJobConfig & Pick<Config, 'importTimeLimitMs' | 'importWorkerMemoryMb'>,
): { run: ImportRunner; close(): Promise<void> } {
  const pool = createWorkerPool<ImportJob, ImportOutcome>({
    entry: workerEntry('import-worker', import.meta.url),
    what: 'the import',
    jobs: 'imports',
    tooLongHint: 'import fewer records at once, or raise IMPORT_TIME_LIMIT_MS',
    workers: 1,
    // The route's own limit stops the import first (503 Time limit exceeded, rolled back); this one
    // ends a worker that did not stop when told.
    timeLimitMs: config.importTimeLimitMs + STOP_GRACE_MS,
    memoryMb: config.importWorkerMemoryMb,
    perKey: 1,
    perKeyWaiting: 2,
    maxWaiting: 32,
  });
  const { databaseUrl, dbPoolSize, dbStatementTimeoutMs, dbConnectTimeoutMs, maxDelayMs } = config;
  const jobConfig = { databaseUrl, dbPoolSize, dbStatementTimeoutMs, dbConnectTimeoutMs, maxDelayMs };

  async function run(...[principal, body, options, idempotencyKey, abandoned]: Parameters<ImportRunner>) {
    if (!(body instanceof ImportFile)) {
      readBody(body); // throws what a body that is not a file deserves
      throw new AppError('INTERNAL'); // (the route's parser makes every JSON body a file)
    }
    const chunks = [...body.chunks];
    const job: ImportJob = {
      config: jobConfig,
      principal,
      chunks,
      digest: body.digest,
      options,
      idempotencyKey,
    };
    const outcome = await database.writingElsewhere(() =>
      pool.run(principal.workspaceId, job, {
        transfer: chunks.map((chunk) => chunk.buffer as ArrayBuffer),
        ...(abandoned ? { signal: abandoned } : {}),
      }),
    );
    if ('refused' in outcome) throw new AppError(outcome.refused.code, outcome.refused.details);
    if ('abandoned' in outcome) throw abandoned?.reason ?? new AppError('INTERNAL');
    return outcome;
  }

  return { run, close: () => pool.close() };
}
