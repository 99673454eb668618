// Import and export of Requestly files (decision 12): the API's routes and the CLI's commands call this.
import type { Config } from '../../config.js';
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { schemaErrors } from '../../validation.js';
import type { ChangeInput, ChangesService } from '../changes/changes-service.js';
import { toGroup } from '../groups/groups-service.js';
import type { Created, IdempotencyService } from '../idempotency/idempotency-service.js';
import type { Principal } from '../keys/keys-store.js';
import { toRule } from '../rules/rules-service.js';
import { MalformedBody } from '../shared/payload.js';
import { type ImportMode, planImport } from './import-plan.js';
import { readRecord } from './import-records.js';
import {
  checkImportQuery,
  type ImportItem,
  type ImportResult,
  MAX_IMPORT_RECORDS,
} from './transfer-schemas.js';
import type { ImportWrites, TransferStore } from './transfer-store.js';

export interface ImportOptions {
  dryRun: boolean;
  mode: ImportMode;
  onError: 'abort' | 'skip';
}

/** Told how many records are checked so far, of how many; the CLI draws its progress bar from it. */
export type Progress = (done: number, total: number) => void;

/** The query of POST /v1/import as options; unknown or malformed parameters are 400 Invalid query. */
export function readImportOptions(query: unknown): ImportOptions {
  const raw = { ...(query as Record<string, unknown>) };
  const details = schemaErrors(checkImportQuery, raw);
  if (details.length > 0) throw new AppError('INVALID_QUERY', details);
  return {
    dryRun: raw.dryRun === 'true',
    mode: raw.mode === 'overwrite' ? 'overwrite' : 'copy',
    onError: raw.onError === 'skip' ? 'skip' : 'abort',
  };
}

/** The file as a list of records, or the error a file that is not one deserves. */
function readFile(body: unknown): unknown[] {
  if (body instanceof MalformedBody)
    throw new AppError('IMPORT_INVALID', [{ path: body.path, message: body.reason }]);
  if (!Array.isArray(body)) {
    throw new AppError('IMPORT_INVALID', [
      { path: '', message: 'the file must be a JSON array of rule and group records (a Requestly export)' },
    ]);
  }
  if (body.length > MAX_IMPORT_RECORDS) {
    throw new AppError('IMPORT_INVALID', [
      { path: '', message: `holds ${body.length} records; at most ${MAX_IMPORT_RECORDS} are taken at once` },
    ]);
  }
  return body;
}

export function createTransferService(deps: {
  db: Db;
  store: TransferStore;
  idempotency: IdempotencyService;
  changes: Pick<ChangesService, 'record'>;
  config: Pick<Config, 'maxDelayMs'>;
}) {
  const { db, store, idempotency, changes } = deps;

  /** Every object the import writes, as a change of this transaction (one revision for the whole import). */
  function changesOf(principal: Principal, writes: ImportWrites): ChangeInput[] {
    const of = <R extends { id: string }>(
      objectType: ChangeInput['objectType'],
      change: ChangeInput['change'],
      rows: R[],
      object: (row: R) => unknown,
    ) => rows.map((row): ChangeInput => ({ objectType, id: row.id, change, object: object(row) }));
    const group = (row: GroupRow) => toGroup(row, principal);
    const rule = (row: RuleRow) => toRule(row, principal);
    return [
      ...of('group', 'created', writes.groupInserts, group),
      ...of('group', 'updated', writes.groupUpdates, group),
      ...of('rule', 'created', writes.ruleInserts, rule),
      ...of('rule', 'updated', writes.ruleUpdates, rule),
    ];
  }

  return {
    /**
     * Imports a file in one transaction: every record, or with onError=skip every valid one, never
     * part (decision 12). With an Idempotency-Key, a retry gets the first report again.
     */
    async import(
      principal: Principal,
      body: unknown,
      options: ImportOptions,
      idempotencyKey?: string,
      progress?: Progress,
    ): Promise<Created<ImportResult>> {
      const file = readFile(body);
      const records = file.map((value, index) => {
        if (progress && index % 1000 === 0) progress(index, file.length);
        return readRecord(value, index, deps.config.maxDelayMs);
      });
      progress?.(file.length, file.length);
      const request = ['POST /v1/import', options, body];
      return idempotency.create(principal, idempotencyKey, request, async (trx) => {
        const plan = await planImport(trx, store, principal, records, options.mode);
        if (plan.failures.length > 0 && options.onError === 'abort' && !options.dryRun) {
          throw new AppError(
            'IMPORT_INVALID',
            plan.failures.flatMap((failure) => failure.details),
          );
        }
        if (!options.dryRun) {
          await store.applyImportWrites(trx, plan.writes);
          const written = changesOf(principal, plan.writes);
          if (written.length > 0) await changes.record(trx, principal, written);
        }
        const failed: ImportItem[] = plan.failures.map((r) => ({
          index: r.index,
          objectType: r.objectType,
          sourceId: r.sourceId,
          id: null,
          outcome: 'failed',
          warnings: r.warnings,
          message: r.message,
          details: r.details,
        }));
        const items = [...plan.items, ...failed].sort((a, b) => a.index - b.index);
        const count = (outcome: ImportItem['outcome']) => items.filter((i) => i.outcome === outcome).length;
        return {
          dryRun: options.dryRun,
          created: count('created'),
          updated: count('updated'),
          failed: failed.length,
          items,
        };
      });
    },

    /**
     * The workspace as a Requestly-compatible file, groups then rules, as JSON text in pieces: a page
     * of rows at a time, so a large workspace is never whole in memory.
     */
    async *export(principal: Principal): AsyncGenerator<string> {
      let separator = '';
      const piece = (objects: unknown[]) => {
        const text = separator + objects.map((object) => JSON.stringify(object)).join(',');
        separator = ',';
        return text;
      };
      yield '[';
      for await (const rows of store.pages(db, 'groups', principal.workspaceId)) {
        yield piece(rows.map((row) => toGroup(row, principal)));
      }
      for await (const rows of store.pages(db, 'rules', principal.workspaceId)) {
        yield piece(rows.map((row) => toRule(row, principal)));
      }
      yield ']\n';
    },
  };
}

export type TransferService = ReturnType<typeof createTransferService>;
