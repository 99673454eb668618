// Security events: who signed in (or failed to), made or revoked a key, invited, added, removed or
// re-roled a member, changed a setting, by which way in and from which address. GET /v1/activity lists
// them newest first beside the change log's rule and group changes; each is written in the transaction
// of the change it tells of, so it exists exactly when the change does.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('security_events')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    // No foreign key: a failed sign-in may name no user, and an event outlives what it names.
    .addColumn('actor_user_id', 'varchar(64)')
    // 'session', 'cli', or the id of the key that made the request.
    .addColumn('via', 'varchar(64)')
    // The client's address as the service saw it (IPv6 text is at most 45 characters).
    .addColumn('address', 'varchar(64)')
    .addColumn('object_type', 'varchar(16)')
    .addColumn('object_id', 'varchar(64)')
    // A small JSON object (a role before and after); null when the kind says it all.
    .addColumn('detail', 'text')
    .execute();
  // A workspace's events newest first, a page at a time (the cursor is at, id).
  await db.schema
    .createIndex('security_events_newest')
    .on('security_events')
    .columns(['workspace_id', 'at', 'id'])
    .execute();
  // The retention sweep across every workspace.
  await db.schema.createIndex('security_events_at').on('security_events').column('at').execute();
}
