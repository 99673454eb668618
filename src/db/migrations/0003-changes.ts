// Workspace revisions and the change log: the outbox the change feed and stream read, and the history
// of every rule and group (its content after each change, or as it was when deleted).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('workspaces')
    .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // The highest revision whose change records the retention sweep removed: a follower asking for
  // changes after an older revision has missed some and must read everything again.
  await db.schema
    .alterTable('workspaces')
    .addColumn('swept_revision', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('changes')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('revision', 'bigint', (c) => c.notNull())
    // The change's place within its revision: one transaction may change many objects.
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('object_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('object_id', 'varchar(64)', (c) => c.notNull())
    // 1 for an object's first change, one more with each change of that object.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('change', 'varchar(16)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('by_user', 'varchar(64)', (c) => c.notNull())
    .addColumn('object', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('changes_pk', ['workspace_id', 'revision', 'seq'])
    .execute();
  await db.schema
    .createIndex('changes_object_version')
    .on('changes')
    .columns(['object_type', 'object_id', 'version'])
    .unique()
    .execute();
  await db.schema.createIndex('changes_at').on('changes').column('at').execute();
}
