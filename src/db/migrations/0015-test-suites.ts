// Test suites kept in the workspace (/v1/test-suites): files of the `rulekeeper test` format, each a
// name unique in its workspace and its cases as JSON text, run by the console, `rulekeeper test
// --suite` and, as evidence, by change requests.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('test_suites')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    // Trimmed, at most 256 characters (test-suites-input.ts).
    .addColumn('name', 'varchar(256)', (c) => c.notNull())
    // The cases as sent (a JSON array), within the body limit and MAX_TEST_SUITE_CASES.
    .addColumn('cases', 'text', (c) => c.notNull())
    // How many cases: the list says it without reading every suite's cases.
    .addColumn('case_count', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('last_modified_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('creation_date', 'bigint', (c) => c.notNull())
    .addColumn('modification_date', 'bigint', (c) => c.notNull())
    .execute();
  // One suite of a name per workspace (the CLI finds it by name); also the list's order.
  await db.schema
    .createIndex('test_suites_by_name')
    .on('test_suites')
    .columns(['workspace_id', 'name'])
    .unique()
    .execute();
}
