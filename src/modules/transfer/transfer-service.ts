// Import and export of Requestly files: the API's routes and the CLI's commands call this.
import type { Config } from '../../config.js';
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { resolveInEnvironment } from '../../engine/variables.js';
import { checkResolvedPairs } from '../../engine/variables-check.js';
import { AppError } from '../../errors.js';
import { isPlainObject, MalformedBody } from '../../http/payload.js';
import type { Created } from '../../http/replies.js';
import { nextSlice, SLICE_ITEMS } from '../../jobs/slices.js';
import { toGroup } from '../../model/group.js';
import type { Principal } from '../../model/principal.js';
import { toRequestlyGroup, toRequestlyRule } from '../../model/requestly-format.js';
import { type Rule, toRule } from '../../model/rule.js';
import { schemaErrors } from '../../validation.js';
import type { ChangeInput, ChangesService } from '../changes/changes-service.js';
import type { IdempotencyService } from '../idempotency/idempotency-service.js';
import { type EvaluationVariables, NO_VARIABLES } from '../shared/evaluation-environment.js';
import { ImportFile } from './import-body.js';
import { createImportPlanner, type ImportMode, type ImportPlan } from './import-plan.js';
import { type FailedRecord, type ReadRecord, readRecord, recordKind } from './import-records.js';
import { warnLikelyDuplicates } from './likely-duplicates.js';
import {
  checkExportQuery,
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

/** Told how many records are written so far, of how many; the CLI draws its progress bar from it. */
export type Progress = (done: number, total: number) => void;

/**
 * The file's records, read anew on each call: an import reads them twice, groups first and then the
 * rest. The first pass may skim (see `skimRecord`): every record is checked whole in the second.
 */
export type RecordSource = (pass: 'first' | 'second') => AsyncIterable<unknown> | Iterable<unknown>;

type GroupRecord = Extract<ReadRecord, { kind: 'group' }>;
type RuleRecord = Extract<ReadRecord, { kind: 'rule' }>;

/**
 * Records checked, planned and written together: memory holds one batch of records at a time, and
 * each of its steps is one slice of work between two turns of the event loop. Each step costs about
 * 0.1 ms per record (checking one, or writing its rows): 100 keep every other request's wait short.
 */
const BATCH_RECORDS = 100;

/** What the first pass over a file learns: its groups (few and small) and how many records it holds. */
interface FirstPass {
  groups: GroupRecord[];
  failures: FailedRecord[];
  count: number;
}

/** The query of POST /v1/import as options; unknown or malformed parameters are 400 Invalid query. */
export type ExportFormat = 'rulekeeper' | 'requestly';

/** The environment an export resolves `{{NAME}}` in: its values, secrets left out (named in `secrets`). */
export interface ExportEnvironment {
  name: string;
  values: Map<string, string>;
  secrets: Set<string>;
}

/** The export's query: `format` (default `rulekeeper`, our canonical form). */
export function readExportFormat(query: unknown): ExportFormat {
  const raw = { ...(query as Record<string, unknown>) };
  const details = schemaErrors(checkExportQuery, raw);
  if (details.length > 0) throw new AppError('INVALID_QUERY', details);
  return raw.format === 'requestly' ? 'requestly' : 'rulekeeper';
}

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

const isGroup = (value: unknown) => isPlainObject(value) && recordKind(value) === 'group';

function tooManyRecords(count: string): AppError {
  return new AppError('IMPORT_INVALID', [
    { path: '', message: `holds ${count} records; at most ${MAX_IMPORT_RECORDS} are taken at once` },
  ]);
}

/**
 * A request body as its records (and what a retry is matched by: the bytes' digest when the body was
 * kept as a file), or the error a body that is not one deserves.
 */
export function readBody(body: unknown): { records: RecordSource; identity: unknown } {
  if (body instanceof MalformedBody)
    throw new AppError('IMPORT_INVALID', [{ path: body.path, message: body.reason }]);
  if (body instanceof ImportFile) return { records: (pass) => body.records(pass), identity: body.digest };
  if (!Array.isArray(body)) {
    throw new AppError('IMPORT_INVALID', [
      { path: '', message: 'the file must be a JSON array of rule and group records (a Requestly export)' },
    ]);
  }
  if (body.length > MAX_IMPORT_RECORDS) throw tooManyRecords(String(body.length));
  return { records: () => body, identity: body };
}

export function createTransferService(deps: {
  db: Db;
  store: TransferStore;
  idempotency: IdempotencyService;
  changes: Pick<ChangesService, 'recorder'>;
  config: Pick<Config, 'maxDelayMs'>;
  /** The environments an export resolves `{{NAME}}` in (decisions §20); none: as written. */
  variables?: EvaluationVariables;
}) {
  const { db, store, idempotency, changes } = deps;
  const variables = deps.variables ?? NO_VARIABLES;
  const read = (value: unknown, index: number) => readRecord(value, index, deps.config.maxDelayMs);

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

  /**
   * The first pass, before the transaction: the group records read, and the records counted. A file
   * that is not a JSON array, or holds too many records, fails here, before anything is written.
   */
  async function firstPass(records: AsyncIterable<unknown> | Iterable<unknown>): Promise<FirstPass> {
    const pass: FirstPass = { groups: [], failures: [], count: 0 };
    for await (const value of records) {
      if (pass.count === MAX_IMPORT_RECORDS) throw tooManyRecords(`more than ${MAX_IMPORT_RECORDS}`);
      if (pass.count % SLICE_ITEMS === SLICE_ITEMS - 1) await nextSlice();
      if (isGroup(value)) {
        const group = read(value, pass.count);
        if (group.kind === 'failed') pass.failures.push(group);
        else pass.groups.push(group as GroupRecord);
      }
      pass.count++;
    }
    return pass;
  }

  /**
   * The import, in its transaction: every group at once, then the other records a batch at a time,
   * each batch checked, planned, written and recorded (one revision for all) before the next is read.
   */
  async function importRecords(
    trx: Db,
    principal: Principal,
    records: RecordSource,
    first: FirstPass,
    options: ImportOptions,
    progress: Progress | undefined,
  ): Promise<{ report: ImportResult; revision: number | undefined }> {
    const planner = createImportPlanner(trx, store, principal, options.mode, !options.dryRun);
    const record = changes.recorder(trx, principal);
    let revision: number | undefined;
    const items: ImportItem[] = [];
    const failures = [...first.failures];
    async function apply(plan: ImportPlan): Promise<void> {
      items.push(...plan.items);
      failures.push(...plan.failures);
      // With abort, one failure means nothing is written: no use writing what will be rolled back.
      if (options.dryRun || (options.onError === 'abort' && failures.length > 0)) return;
      await nextSlice();
      await store.applyImportWrites(trx, plan.writes);
      await nextSlice();
      const written = changesOf(principal, plan.writes);
      if (written.length > 0) revision = await record(written);
    }

    for (const failure of first.failures) if (failure.objectType === 'group') planner.groupFailed(failure);
    await apply(await planner.groups(first.groups));
    let rules: RuleRecord[] = [];
    let index = 0;
    for await (const value of records('second')) {
      if (!isGroup(value)) {
        const rule = read(value, index);
        if (rule.kind === 'failed') failures.push(rule);
        else rules.push(rule as RuleRecord);
      }
      index++;
      if (index % BATCH_RECORDS === 0 || index === first.count) {
        await nextSlice();
        if (options.dryRun) await warnLikelyDuplicates(trx, store, principal.workspaceId, rules);
        await apply(await planner.rules(rules));
        rules = [];
        progress?.(index, first.count);
      }
    }
    // Read twice, a file must hold the same records both times (a file edited during the import).
    if (index !== first.count)
      throw new AppError('IMPORT_INVALID', [{ path: '', message: 'the file changed while it was imported' }]);

    failures.sort((a, b) => a.index - b.index);
    if (failures.length > 0 && options.onError === 'abort' && !options.dryRun)
      throw new AppError(
        'IMPORT_INVALID',
        failures.flatMap((failure) => failure.details),
      );
    const failed = failures.map(
      (r): ImportItem => ({
        index: r.index,
        name: r.name,
        objectType: r.objectType,
        sourceId: r.sourceId,
        id: null,
        outcome: 'failed',
        warnings: r.warnings,
        message: r.message,
        details: r.details,
      }),
    );
    const all = [...items, ...failed].sort((a, b) => a.index - b.index);
    const count = (outcome: ImportItem['outcome']) => all.filter((i) => i.outcome === outcome).length;
    const report = {
      dryRun: options.dryRun,
      created: count('created'),
      updated: count('updated'),
      failed: failed.length,
      items: all,
    };
    return { report, revision };
  }

  /** Imports records in one transaction: every record, or with onError=skip every valid one, never part. */
  async function importFrom(
    principal: Principal,
    records: RecordSource,
    options: ImportOptions,
    retry: { key: string | undefined; request: unknown },
    progress?: Progress,
  ): Promise<Created<ImportResult>> {
    const first = await firstPass(records('first'));
    // The revision the import recorded, if it wrote anything (a replay or a dry run records nothing).
    let revision: number | undefined;
    const created = await idempotency.create(principal, retry.key, retry.request, async (trx) => {
      const imported = await importRecords(trx, principal, records, first, options, progress);
      revision = imported.revision;
      return imported.report;
    });
    return { ...created, revision };
  }

  return {
    /**
     * Imports a request's body. With an Idempotency-Key, a retry gets the first report
     * again.
     */
    import(principal: Principal, body: unknown, options: ImportOptions, idempotencyKey?: string) {
      const { records, identity } = readBody(body);
      const request = ['POST /v1/import', options, identity];
      return importFrom(principal, records, options, { key: idempotencyKey, request });
    },

    /** Imports a file read as a stream each time `records` is called (`rulekeeper import`). */
    importStream(principal: Principal, records: RecordSource, options: ImportOptions, progress?: Progress) {
      return importFrom(principal, records, options, { key: undefined, request: undefined }, progress);
    },

    /**
     * The records of the workspace's Requestly-compatible file, groups then rules, a page of rows at a
     * time, so a large workspace is never whole in memory (replies.ts's jsonArrayPieces writes them).
     * Between pages everyone else is served; once `abandoned` is aborted, the pages stop.
     */
    /**
     * The workspace's groups, then its rules, a page at a time: as GET returns them, or with
     * `format: 'requestly'` in the shapes Requestly's app stores.
     */
    /**
     * The environment an export resolves its rules in, asked before the file starts (so that an unknown
     * one is a 404, not a cut file): `format=requestly` always (Requestly has no variables), else only
     * when `?environment=` names one; undefined when the rules go as written. Its values hold no secret:
     * a file is read back by anyone who can read, so a secret's reference stays as written.
     */
    async exportEnvironment(
      principal: Principal,
      query: unknown,
      format: ExportFormat,
    ): Promise<ExportEnvironment | undefined> {
      const explicit = (query as { environment?: string }).environment;
      if (format !== 'requestly' && explicit === undefined) return undefined;
      const environment = await variables.choose(principal, explicit, { query: true });
      const secrets = await variables.catalog.secretsAmong(principal.workspaceId, [
        ...environment.values.keys(),
      ]);
      const values = new Map([...environment.values].filter(([name]) => !secrets.has(name)));
      return { name: environment.name, values, secrets };
    },

    async *export(
      principal: Principal,
      abandoned?: AbortSignal,
      format: ExportFormat = 'rulekeeper',
      environment?: ExportEnvironment,
    ): AsyncGenerator<unknown[]> {
      const requestly = format === 'requestly';
      for await (const rows of store.pages(db, 'groups', principal.workspaceId)) {
        const groups = rows.map((row) => toGroup(row, principal));
        yield requestly ? groups.map(toRequestlyGroup) : groups;
        await nextSlice(abandoned);
      }
      // A rule its variables would make invalid in the environment goes as written (a file of valid rules).
      const resolved = (rule: Rule): Rule => {
        if (!environment) return rule;
        const { rule: inEnvironment, problems } = resolveInEnvironment(
          rule,
          environment.values,
          checkResolvedPairs,
        );
        return problems.length > 0 ? rule : inEnvironment;
      };
      for await (const rows of store.pages(db, 'rules', principal.workspaceId)) {
        const rules = rows.map((row) => resolved(toRule(row, principal)));
        yield requestly ? rules.map(toRequestlyRule) : rules;
        await nextSlice(abandoned);
      }
    },
  };
}

export type TransferService = ReturnType<typeof createTransferService>;
