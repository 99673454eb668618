// The rules of test suites: one name per workspace, bounded counts, the order of checks, and a run of
// a suite's cases against the workspace's rules through the trace service (off the event loop, case by
// case, judged as `rulekeeper test` judges them).
import type { Config } from '../../config.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Db, TestSuiteRow } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { ifMatchHolds, readNowThrowLater } from '../../http/checks.js';
import { readListQuery } from '../../http/list.js';
import type { Page } from '../../http/replies.js';
import { nextTimestamp, randomSuffix } from '../../ids.js';
import { nextTurn } from '../../jobs/slices.js';
import type { Principal } from '../../model/principal.js';
import type { CaseTrace } from '../../rule-tests/compare-case.js';
import type { RuleTestCase } from '../../rule-tests/rule-test-file.js';
import { CaseRefused, type CaseRunner, runCases } from '../../rule-tests/run-cases.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import type { TraceService } from '../trace/trace-service.js';
import { readTestSuiteWrite, type TestSuiteWrite } from './test-suites-input.js';
import {
  checkTestSuiteListQuery,
  SUITE_ID_PATTERN,
  type TestSuite,
  type TestSuiteListItem,
  type TestSuiteRun,
} from './test-suites-schemas.js';
import type { StoredSuite, TestSuiteSummary, TestSuitesStore } from './test-suites-store.js';

function toListItem(row: TestSuiteSummary): TestSuiteListItem {
  return {
    id: row.id,
    name: row.name,
    caseCount: row.case_count,
    createdBy: row.created_by,
    lastModifiedBy: row.last_modified_by,
    creationDate: row.creation_date,
    modificationDate: row.modification_date,
  };
}

function toSuite(row: TestSuiteRow): TestSuite {
  return { ...toListItem(row), cases: JSON.parse(row.cases) as TestSuite['cases'] };
}

const taken = (name: string) =>
  new AppError('TEST_SUITE_EXISTS', [
    { path: '/name', message: `the workspace has a suite named "${name}" already` },
  ]);

/** A case's trace, or why its request could not be traced (a case failure, as in `rulekeeper test`). */
function traceRunner(trace: Pick<TraceService, 'trace'>, principal: Principal): CaseRunner {
  return async (testCase) => {
    // A turn of the event loop between cases: where traces run on it (TRACE_WORKERS=0), a suite of a
    // thousand cases still lets other requests in between.
    await nextTurn();
    try {
      // Only the rules that acted: all a case can expect of them, for far less work than `all`.
      const data = await trace.trace(principal, { request: testCase.request }, { explain: 'acted' });
      return { trace: data as unknown as CaseTrace };
    } catch (error) {
      // The case's request refused is the case's failure; the service busy or too slow ends the run.
      if (!(error instanceof AppError) || error.status >= 500 || error.status === 429) throw error;
      const details = (error.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
      throw new CaseRefused(`the trace was refused: ${error.status} ${error.message} ${details}`.trim());
    }
  };
}

export function createTestSuitesService({
  db,
  store,
  trace,
  config,
  activity,
}: {
  db: Db;
  store: TestSuitesStore;
  trace: Pick<TraceService, 'trace'>;
  config: Pick<Config, 'maxTestSuites' | 'maxTestSuiteCases'>;
  activity: Pick<ActivityService, 'record'>;
}) {
  /** A write in the activity, in its transaction: who, how, which suite (its name, never its cases). */
  const record = (
    trx: Db,
    principal: Principal,
    address: string | null,
    kind: 'test_suite_created' | 'test_suite_updated' | 'test_suite_deleted',
    suite: { id: string; name: string },
  ) =>
    activity.record(trx, {
      workspaceId: principal.workspaceId,
      kind,
      actor: actorOf(principal, address),
      object: { type: 'test_suite', id: suite.id },
      detail: { name: suite.name },
    });

  const read = (body: unknown, creating: boolean): TestSuiteWrite =>
    readTestSuiteWrite(body, creating, config.maxTestSuiteCases);

  /** The workspace's suite; any other id (another workspace's, or of no suite) is not found. */
  async function found(trx: Db, principal: Principal, id: string, lock = false): Promise<TestSuiteRow> {
    const row = SUITE_ID_PATTERN.test(id)
      ? await store.find(trx, principal.workspaceId, id, lock)
      : undefined;
    if (!row) throw new AppError('TEST_SUITE_NOT_FOUND');
    return row;
  }

  return {
    async list(principal: Principal, query: unknown): Promise<Page<TestSuiteListItem>> {
      const { offset, pageSize, name } = readListQuery(query, checkTestSuiteListQuery);
      const trimmed = name?.trim();
      const [rows, total] = await Promise.all([
        store.list(principal.workspaceId, { offset, limit: pageSize, name: trimmed }),
        store.count(db, principal.workspaceId, trimmed),
      ]);
      return { items: rows.map(toListItem), total, offset };
    },

    async get(principal: Principal, id: string): Promise<TestSuite> {
      return toSuite(await found(db, principal, id));
    },

    async create(principal: Principal, body: unknown, address: string | null = null): Promise<TestSuite> {
      const input = read(body, true);
      const cases = input.cases ?? [];
      return db.transaction().execute(async (trx) => {
        await store.lockWorkspace(trx, principal.workspaceId);
        const name = input.name as string;
        if (await store.idOfName(trx, principal.workspaceId, name)) throw taken(name);
        const count = await store.count(trx, principal.workspaceId);
        if (count >= config.maxTestSuites) {
          throw new AppError('TEST_SUITES_FULL', [
            {
              path: '',
              message: `a workspace keeps at most ${config.maxTestSuites} test suites; delete one first`,
            },
          ]);
        }
        const now = Date.now();
        const row: TestSuiteRow = {
          id: `suite_${randomSuffix(16)}`,
          workspace_id: principal.workspaceId,
          name,
          cases: JSON.stringify(cases),
          case_count: cases.length,
          created_by: principal.userId,
          last_modified_by: principal.userId,
          creation_date: now,
          modification_date: now,
        };
        if (!(await store.insert(trx, row))) throw taken(name);
        await record(trx, principal, address, 'test_suite_created', row);
        return toSuite(row);
      });
    },

    async update(
      principal: Principal,
      id: string,
      body: unknown,
      ifMatch?: string,
      address: string | null = null,
    ): Promise<TestSuite> {
      const input = readNowThrowLater(() => read(body, false));
      try {
        return await db.transaction().execute(async (trx) => {
          const row = await found(trx, principal, id, true);
          ifMatchHolds(ifMatch)(row);
          const change = input();
          if (change.name !== undefined && change.name !== row.name) {
            if (await store.idOfName(trx, principal.workspaceId, change.name)) throw taken(change.name);
          }
          const updated: TestSuiteRow = {
            ...row,
            name: change.name ?? row.name,
            ...(change.cases ? { cases: JSON.stringify(change.cases), case_count: change.cases.length } : {}),
            last_modified_by: principal.userId,
            modification_date: nextTimestamp(row.modification_date),
          };
          await store.update(trx, updated);
          await record(trx, principal, address, 'test_suite_updated', updated);
          return toSuite(updated);
        });
      } catch (error) {
        // Another request took the name between the check and the write.
        if (isUniqueViolation(error)) throw taken(String((body as { name?: unknown }).name).trim());
        throw error;
      }
    },

    async remove(
      principal: Principal,
      id: string,
      ifMatch?: string,
      address: string | null = null,
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const row = await found(trx, principal, id, true);
        ifMatchHolds(ifMatch)(row);
        await store.remove(trx, principal.workspaceId, id);
        await record(trx, principal, address, 'test_suite_deleted', row);
      });
    },

    /** Runs the suite's cases, one after another, against the workspace's rules as they are now. */
    async run(principal: Principal, id: string): Promise<TestSuiteRun> {
      const row = await found(db, principal, id);
      const cases = JSON.parse(row.cases) as RuleTestCase[];
      const ranAt = Date.now();
      const report = await runCases(cases, traceRunner(trace, principal), () => {});
      return {
        suite: { id: row.id, name: row.name },
        cases: report.cases.map(({ name, status, problems }) => ({
          name,
          passed: status !== 'FAIL',
          problems,
        })),
        passed: report.cases.length - report.failed,
        failed: report.failed,
        ranAt,
      };
    },

    /** Every suite of the workspace with its cases (what a change request runs as its evidence). */
    async all(workspaceId: string, trx: Db = db): Promise<StoredSuite[]> {
      return store.all(trx, workspaceId);
    },
  };
}

export type TestSuitesService = ReturnType<typeof createTestSuitesService>;
