// The first schema: workspaces, users, API keys, groups and rules.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(256)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(256)', (c) => c.notNull().unique())
    .addColumn('owner_user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('key_hash', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(1024)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('is_favourite', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('last_modified_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('creation_date', 'bigint', (c) => c.notNull())
    .addColumn('modification_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('groups_workspace_order')
    .on('groups')
    .columns(['workspace_id', 'creation_date', 'id'])
    .execute();

  await db.schema
    .createTable('rules')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(1024)', (c) => c.notNull())
    .addColumn('name_search', 'varchar(1024)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('rule_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('group_id', 'varchar(64)', (c) => c.references('groups.id'))
    .addColumn('pairs', 'text', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('last_modified_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('creation_date', 'bigint', (c) => c.notNull())
    .addColumn('modification_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rules_workspace_order')
    .on('rules')
    .columns(['workspace_id', 'creation_date', 'id'])
    .execute();
  await db.schema.createIndex('rules_group').on('rules').columns(['group_id', 'status']).execute();
}
