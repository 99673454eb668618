// Signed webhooks (decisions §19): a workspace's webhooks, the outbox of deliveries written in the
// transaction of the change they tell of, and every attempt made to send one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('description', 'varchar(500)')
    // `,type,type,` (so that one LIKE tells a subscription in the outbox's INSERT … SELECT); null: every event.
    .addColumn('events', 'varchar(1000)')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    // Write-only: kept because every delivery is signed with it, never answered after it was made.
    .addColumn('secret', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // What the outbox reads on every recorded change: the workspace's webhooks.
  await db.schema.createIndex('webhooks_by_workspace').on('webhooks').columns(['workspace_id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(96)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('webhook_id', 'varchar(64)', (c) => c.notNull())
    // The event's id: the same for every webhook told of it, and in the body (receivers dedupe by it).
    .addColumn('event_id', 'varchar(96)', (c) => c.notNull())
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    // `rules.changed`: the revision whose changes are read from the change log when sent; else null.
    .addColumn('revision', 'bigint')
    // Other events: the event's data as JSON text, given when it was queued; else null.
    .addColumn('data', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // `pending`, `delivered` or `failed` (retries ran out).
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    // Retried until then; a replay moves it a day on.
    .addColumn('give_up_at', 'bigint', (c) => c.notNull())
    // The instance sending it (a random token per claim) and until when: another waits for the lease.
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_status', 'integer')
    .addColumn('delivered_at', 'bigint')
    .execute();
  // The dispatcher's claim: pending deliveries by when they are due.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_at'])
    .execute();
  // A webhook's deliveries, newest first (the list, the pending bound).
  await db.schema
    .createIndex('webhook_deliveries_by_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'state', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('delivery_id', 'varchar(96)', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'varchar(500)')
    // The first bytes of the receiver's answer, as text.
    .addColumn('response', 'varchar(1100)')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_by_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'number'])
    .execute();
}
