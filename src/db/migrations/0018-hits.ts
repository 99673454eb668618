// Hits (decision 21): what the runtimes (the proxy, the extension, the Playwright fixture,
// rulekeeper/runtime) report of the rules that acted, as counts only. `rule_hits` keeps a count per
// rule per hour per source; `hit_reports` how many reports each source sent per hour, so that the lint
// can tell "never acted" from "nobody was reporting"; `rule_last_hits` each rule's last hit. All are
// swept after 90 days.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rule_hits')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    // No foreign key to the rule: its hits outlive a deletion (restored, it keeps them) until swept.
    .addColumn('rule_id', 'varchar(64)', (c) => c.notNull())
    // 'proxy', 'extension', 'playwright' or 'runtime'.
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    // The hour's start, epoch milliseconds.
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('hits', 'bigint', (c) => c.notNull())
    .addColumn('first_at', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    // A rule's hours are read together (per day, last hit), and the workspace's rules by last hit.
    .addPrimaryKeyConstraint('rule_hits_key', ['workspace_id', 'rule_id', 'hour', 'source'])
    .execute();
  // The retention sweep across every workspace.
  await db.schema.createIndex('rule_hits_hour').on('rule_hits').column('hour').execute();
  // A workspace's last 7 days (GET /v1/hits), without reading its 90.
  await db.schema
    .createIndex('rule_hits_recent')
    .on('rule_hits')
    .columns(['workspace_id', 'hour', 'rule_id'])
    .execute();

  // Each rule's last hit, kept beside its hours: the rules by last hit are one join, not an aggregate
  // of every hour of the workspace.
  await db.schema
    .createTable('rule_last_hits')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('rule_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rule_last_hits_key', ['workspace_id', 'rule_id'])
    .execute();
  await db.schema.createIndex('rule_last_hits_at').on('rule_last_hits').column('last_at').execute();

  await db.schema
    .createTable('hit_reports')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('reports', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('hit_reports_key', ['workspace_id', 'hour', 'source'])
    .execute();
  await db.schema.createIndex('hit_reports_hour').on('hit_reports').column('hour').execute();
}
