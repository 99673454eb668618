// Environments and variables (decisions §20): a workspace's environments (every workspace has
// `default`), its variables, and each variable's value per environment. A key may be bound to an
// environment. Variables and environments are changes of the workspace, named in the change log by
// their names, which are unique only within a workspace: the change log's unique version index so
// takes the workspace in (a rule's or group's id is the same workspace's for all time, so nothing
// recorded before changes meaning).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('environments')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    // `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`, compared exactly (case-sensitive on both databases).
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('creation_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('environments_key', ['workspace_id', 'name'])
    .execute();
  // Every workspace that exists has its `default` environment; new ones get it as they are made.
  await sql`insert into environments (workspace_id, name, creation_date)
    select id, 'default', created_at from workspaces`.execute(db);

  await db.schema
    .createTable('variables')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    // `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // 1: its values are written but never read back through any route but the runtimes' values.
    .addColumn('secret', 'integer', (c) => c.notNull())
    // The variable's version in the change log (continuing there after a delete and a new create).
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('last_modified_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('creation_date', 'bigint', (c) => c.notNull())
    .addColumn('modification_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('variables_key', ['workspace_id', 'name'])
    .execute();

  // A variable's value in one environment; both foreign keys cascade, so deleting a variable or an
  // environment takes its values with it.
  await db.schema
    .createTable('variable_values')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('variable_name', 'varchar(64)', (c) => c.notNull())
    .addColumn('environment_name', 'varchar(64)', (c) => c.notNull())
    // At most MAX_VARIABLE_VALUE_CHARS characters, without CR, LF or NUL.
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('variable_values_key', ['workspace_id', 'variable_name', 'environment_name'])
    .addForeignKeyConstraint(
      'variable_values_variable',
      ['workspace_id', 'variable_name'],
      'variables',
      ['workspace_id', 'name'],
      (c) => c.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'variable_values_environment',
      ['workspace_id', 'environment_name'],
      'environments',
      ['workspace_id', 'name'],
      (c) => c.onDelete('cascade'),
    )
    .execute();
  // One environment's values, read by every runtime after each change.
  await db.schema
    .createIndex('variable_values_by_environment')
    .on('variable_values')
    .columns(['workspace_id', 'environment_name'])
    .execute();

  // The environment a key's evaluations use when they name none; null: `default`.
  await db.schema.alterTable('api_keys').addColumn('environment', 'varchar(64)').execute();

  // A version per object per workspace: two workspaces may each have a variable API_URL.
  await db.schema
    .createIndex('changes_object_workspace_version')
    .on('changes')
    .columns(['object_type', 'object_id', 'workspace_id', 'version'])
    .unique()
    .execute();
  await db.schema.dropIndex('changes_object_version').execute();
}
