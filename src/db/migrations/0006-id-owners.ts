// Who owns each id, for all time: an id belongs to the workspace that first had it, also after the
// object is deleted and its history swept, so no other workspace can ever take it over (and with it
// the history and restore of what was there). Backfilled from every table that holds ids.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('id_owners')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('object_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .execute();

  // The history first, each id to the workspace of its oldest kept version: where an id was taken
  // over before this table existed, the first workspace keeps it. Then live objects without history.
  // (`where true`: SQLite needs a WHERE before ON CONFLICT in an INSERT … SELECT.)
  await sql`insert into id_owners (id, object_type, workspace_id)
    select c.object_id, c.object_type, c.workspace_id from changes c
    where c.version = (select min(o.version) from changes o
      where o.object_type = c.object_type and o.object_id = c.object_id)
    on conflict (id) do nothing`.execute(db);
  for (const [table, objectType] of [
    ['groups', 'group'],
    ['rules', 'rule'],
  ] as const) {
    await sql`insert into id_owners (id, object_type, workspace_id)
      select id, ${sql.lit(objectType)}, workspace_id from ${sql.table(table)} where true
      on conflict (id) do nothing`.execute(db);
  }
}
