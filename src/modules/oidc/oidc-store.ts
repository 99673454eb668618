// SQL for sign-ins under way: each kept under the hash of its cookie's value until its callback takes
// it, once, or it expires.
import type { Db } from '../../db/tables.js';
import type { LoginChecks } from './oidc-client.js';

export interface StoredLogin extends LoginChecks {
  redirectUri: string;
  expiresAt: number;
}

export function createOidcStore(db: Db) {
  return {
    async insert(id: string, login: StoredLogin): Promise<void> {
      await db
        .insertInto('oidc_logins')
        .values({
          id,
          state: login.state,
          nonce: login.nonce,
          code_verifier: login.codeVerifier,
          redirect_uri: login.redirectUri,
          expires_at: login.expiresAt,
        })
        .execute();
    },

    /**
     * The sign-in `id` names, taken: deleted as it is read, so that of two callbacks with the same
     * cookie (a replay, a double click) only one finds it.
     */
    async take(id: string): Promise<StoredLogin | undefined> {
      const row = await db
        .selectFrom('oidc_logins')
        .select(['state', 'nonce', 'code_verifier', 'redirect_uri', 'expires_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return undefined;
      const deleted = await db.deleteFrom('oidc_logins').where('id', '=', id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return undefined;
      return {
        state: row.state,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
        redirectUri: row.redirect_uri,
        expiresAt: Number(row.expires_at),
      };
    },

    /** Sign-ins abandoned before `now`, gone: the table holds only the last 10 minutes' starts. */
    async sweep(now: number): Promise<void> {
      await db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute();
    },
  };
}

export type OidcStore = ReturnType<typeof createOidcStore>;
