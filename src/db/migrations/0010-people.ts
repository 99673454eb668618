// People who sign in: a user may now have an email and a password (or, later, a single-sign-on
// identity) and may be disabled; sessions remember who signed in, by a hash of their cookie's id; failed
// sign-ins are counted per account and per address, in the database, so every instance refuses alike.
// Users made by `keys create --user NAME` before keep working: they have no email until given one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Lower-cased by the service before it is written, so one unique index compares emails alike on
  // both databases. Unique allows many nulls on both.
  await db.schema.alterTable('users').addColumn('email', 'varchar(320)').execute();
  await db.schema.createIndex('users_email').on('users').column('email').unique().execute();
  // `scrypt$…` (modules/users/passwords.ts); null: the user cannot sign in with a password.
  await db.schema.alterTable('users').addColumn('password_hash', 'varchar(512)').execute();
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
  // A machine's user (a workspace key's): it never signs in.
  await db.schema
    .alterTable('users')
    .addColumn('service', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('sessions')
    // The public id (`ses_…`): what logs, rate limits and fairness name; never the cookie's value.
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    // SHA-256 of the cookie's 256-bit value: a stolen table signs no one in.
    .addColumn('token_hash', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
    // What the session's CSRF tokens are made from and checked against (@fastify/csrf).
    .addColumn('csrf_secret', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Moved forward as the session is used (not on every request): the idle expiry counts from it.
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    // The absolute expiry: created_at + 30 days.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('address', 'varchar(64)')
    .execute();
  await db.schema.createIndex('sessions_by_user').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('sign_in_failures')
    // One attempt's row, so that an attempt refused for being over the limit takes back its own.
    .addColumn('id', 'varchar(64)', (c) => c.notNull())
    // `email:<address>` or `ip:<address>`.
    .addColumn('subject', 'varchar(400)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_failures_by_subject')
    .on('sign_in_failures')
    .columns(['subject', 'at'])
    .execute();
  // What the sweep of old failures reads.
  await db.schema.createIndex('sign_in_failures_by_at').on('sign_in_failures').column('at').execute();
}
