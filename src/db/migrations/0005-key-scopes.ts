// Keys with a scope (read, write or admin), an optional expiry and an optional name. Keys issued
// before keep what they could do: scope `write`, no expiry, no name.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('scope', 'varchar(16)', (c) => c.notNull().defaultTo('write'))
    .execute();
  // Epoch milliseconds; null: the key does not expire.
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('name', 'varchar(256)').execute();
}
