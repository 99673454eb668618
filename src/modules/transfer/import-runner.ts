// Imports run on a worker of their own (import-job.ts; the import pool of jobs/job-kinds.ts), one at a
// time, with their own database connection: the event loop only receives the body's bytes, moves them
// to the worker, and sends the report's bytes back. On SQLite this connection's writes wait meanwhile, as they waited for an import
// on the event loop; PostgreSQL locks rows and lets them through.
import type { Database } from '../../db/database.js';
import { AppError } from '../../errors.js';
import { JOB_KINDS } from '../../jobs/job-kinds.js';
import type { JobRunner } from '../../jobs/worker-pool.js';
import type { Principal } from '../../model/principal.js';
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

/** Imports one key may have under way (running or waiting), and all keys together. */
const PER_KEY = JOB_KINDS.import.perKeyWaiting;
const IN_ALL = JOB_KINDS.import.maxWaiting;

const refused = (code: 'RATE_LIMITED' | 'UNAVAILABLE', message: string) =>
  new AppError(code, [{ path: '', message }]);

/** The import pool's runner, with the count of imports under way before they reach its queue. */
export function createImportRunner(
  database: Database,
  config: ImportJobConfig,
  pool: JobRunner<ImportJob, ImportOutcome>,
): ImportRunner {
  // Counted from the request on: on SQLite an import waits for the service's writes before it reaches
  // the pool's queue, and each holds its body meanwhile.
  const underWay = new Map<string, number>();
  let total = 0;
  const { databaseUrl, dbPoolSize, dbStatementTimeoutMs, dbConnectTimeoutMs, maxDelayMs } = config;
  const jobConfig = { databaseUrl, dbPoolSize, dbStatementTimeoutMs, dbConnectTimeoutMs, maxDelayMs };

  const run: ImportRunner = async (principal, body, options, idempotencyKey, abandoned) => {
    if (!(body instanceof ImportFile)) {
      readBody(body); // throws what a body that is not a file deserves
      throw new AppError('INTERNAL'); // (the route's parser makes every JSON body a file)
    }
    const key = principal.keyId || principal.workspaceId;
    const mine = underWay.get(key) ?? 0;
    if (mine >= PER_KEY)
      throw refused('RATE_LIMITED', `this key has as many imports under way as it may (${PER_KEY})`);
    if (total >= IN_ALL) throw refused('UNAVAILABLE', 'too many imports are waiting');
    underWay.set(key, mine + 1);
    total++;
    try {
      return await runFile(principal, body, options, idempotencyKey, abandoned);
    } finally {
      total--;
      const left = (underWay.get(key) ?? 1) - 1;
      if (left === 0) underWay.delete(key);
      else underWay.set(key, left);
    }
  };

  async function runFile(
    principal: Principal,
    body: ImportFile,
    options: ImportOptions,
    idempotencyKey: string | undefined,
    abandoned: AbortSignal | undefined,
  ): Promise<ImportAnswer> {
    const chunks = [...body.chunks];
    const job: ImportJob = {
      config: jobConfig,
      principal,
      chunks,
      digest: body.digest,
      options,
      idempotencyKey,
    };
    // What stands once the import committed, should its worker fail afterwards (in its lint).
    let committed: ImportOutcome | undefined;
    const outcome = await database
      .writingElsewhere(() =>
        pool.run(principal.workspaceId, job, {
          transfer: chunks.map((chunk) => chunk.buffer as ArrayBuffer),
          onPartial: (partial) => {
            committed = partial as ImportOutcome;
          },
          ...(abandoned ? { signal: abandoned } : {}),
        }),
      )
      .catch((error: unknown) => {
        if (committed) return committed;
        throw error;
      });
    if ('refused' in outcome) throw new AppError(outcome.refused.code, outcome.refused.details);
    if ('abandoned' in outcome) throw abandoned?.reason ?? new AppError('INTERNAL');
    return outcome;
  }

  return run;
}
