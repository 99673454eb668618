// Single-use links that let a person in: invites to a workspace with a role (and the setup link printed
// on a new database's first start, an invite whose email is chosen when it is accepted), and password
// resets. Each link carries a 256-bit token that is stored only as its SHA-256: a stolen table opens
// nothing. A link is used at most once (accepted_at / used_at set in the transaction that uses it).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invites')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    // Lower-cased; null for the setup link, whose email is chosen as it is accepted.
    .addColumn('email', 'varchar(320)')
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    // 'invite' or 'setup'.
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(128)', (c) => c.notNull().unique())
    // Null for the setup link (the server made it) and for invites made from the command line.
    .addColumn('created_by', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('accepted_by', 'varchar(64)')
    .addColumn('revoked_at', 'bigint')
    .execute();
  // A workspace's invites, newest first (GET /v1/invites).
  await db.schema
    .createIndex('invites_by_workspace')
    .on('invites')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'varchar(128)', (c) => c.notNull().unique())
    // The admin who made the link; null when the person asked for it by mail ("forgot password").
    .addColumn('created_by', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('password_resets_by_user')
    .on('password_resets')
    .columns(['user_id', 'created_at'])
    .execute();
}
