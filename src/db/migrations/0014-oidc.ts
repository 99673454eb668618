// Single sign-on with OpenID Connect: a user may carry the identity a provider vouched for (its issuer
// and the stable `sub` it gives the person), found again by it on every later sign-in; and a sign-in
// under way keeps its state, nonce and PKCE verifier here, server-side, for at most 10 minutes, under
// the hash of a random id the browser holds in a short-lived cookie. Nothing of it is in the cookie,
// so the cookie cannot be forged into a check that passes, and a row is taken once.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('oidc_issuer', 'varchar(512)').execute();
  // OpenID Connect caps `sub` at 255 ASCII characters.
  await db.schema.alterTable('users').addColumn('oidc_subject', 'varchar(255)').execute();
  // One user per identity; unique allows many nulls on both databases (the users without one).
  await db.schema
    .createIndex('users_oidc_identity')
    .on('users')
    .columns(['oidc_issuer', 'oidc_subject'])
    .unique()
    .execute();

  await db.schema
    .createTable('oidc_logins')
    // SHA-256 of the cookie's 256-bit value: the table alone lets no one finish a sign-in.
    .addColumn('id', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('state', 'varchar(128)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(128)', (c) => c.notNull())
    .addColumn('code_verifier', 'varchar(128)', (c) => c.notNull())
    // The redirect URI the provider was given: the token request must name the same.
    .addColumn('redirect_uri', 'varchar(2048)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  // What the sweep of abandoned sign-ins reads.
  await db.schema.createIndex('oidc_logins_by_expiry').on('oidc_logins').column('expires_at').execute();
}
