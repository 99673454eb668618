// SQL for the test suites a workspace keeps; every query is of one workspace.
import type { DialectName } from '../../db/database.js';
import type { Db, TestSuiteRow } from '../../db/tables.js';
import type { RuleTestCase } from '../../rule-tests/rule-test-file.js';
import { lockWorkspace } from '../shared/workspace-lock-store.js';

/** A stored suite's cases, as `rulekeeper test` runs them. */
export interface StoredSuite {
  id: string;
  name: string;
  cases: RuleTestCase[];
}

export type TestSuiteSummary = Omit<TestSuiteRow, 'cases'>;

const SUMMARY = [
  'id',
  'workspace_id',
  'name',
  'case_count',
  'created_by',
  'last_modified_by',
  'creation_date',
  'modification_date',
] as const;

export function createTestSuitesStore(db: Db, dialect: DialectName) {
  return {
    /** The suite of the workspace with that id; locked for the transaction's write on PostgreSQL. */
    async find(trx: Db, workspaceId: string, id: string, lock = false): Promise<TestSuiteRow | undefined> {
      const query = trx
        .selectFrom('test_suites')
        .selectAll()
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId);
      return (lock && dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    },

    /** The id of the workspace's suite of that name, if any. */
    async idOfName(trx: Db, workspaceId: string, name: string): Promise<string | undefined> {
      const row = await trx
        .selectFrom('test_suites')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row?.id;
    },

    /** The workspace's row locked until the transaction ends (shared/workspace-lock-store.ts). */
    lockWorkspace,

    /** Inserts the suite; false when the workspace has one of that name already. */
    async insert(trx: Db, row: TestSuiteRow): Promise<boolean> {
      const result = await trx
        .insertInto('test_suites')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) > 0;
    },

    async update(trx: Db, row: TestSuiteRow): Promise<void> {
      const { name, cases, case_count, last_modified_by, modification_date } = row;
      await trx
        .updateTable('test_suites')
        .set({ name, cases, case_count, last_modified_by, modification_date })
        .where('id', '=', row.id)
        .where('workspace_id', '=', row.workspace_id)
        .execute();
    },

    /** Deletes the workspace's suite; false when there was none. */
    async remove(trx: Db, workspaceId: string, id: string): Promise<boolean> {
      const result = await trx
        .deleteFrom('test_suites')
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** A page of the workspace's suites by name, without their cases; only `name` when given. */
    async list(
      workspaceId: string,
      { offset, limit, name }: { offset: number; limit: number; name?: string },
    ): Promise<TestSuiteSummary[]> {
      let query = db.selectFrom('test_suites').select(SUMMARY).where('workspace_id', '=', workspaceId);
      if (name !== undefined) query = query.where('name', '=', name);
      return query.orderBy('name').orderBy('id').limit(limit).offset(offset).execute();
    },

    async count(trx: Db, workspaceId: string, name?: string): Promise<number> {
      let query = trx
        .selectFrom('test_suites')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId);
      if (name !== undefined) query = query.where('name', '=', name);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /**
     * Every suite of the workspace with its cases, by name: what a change request runs before and
     * after its change. `db` may be a transaction, to read the suites as of it.
     */
    async all(trx: Db, workspaceId: string): Promise<StoredSuite[]> {
      const rows = await trx
        .selectFrom('test_suites')
        .select(['id', 'name', 'cases'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map(({ id, name, cases }) => ({ id, name, cases: JSON.parse(cases) as RuleTestCase[] }));
    },
  };
}

export type TestSuitesStore = ReturnType<typeof createTestSuitesStore>;
