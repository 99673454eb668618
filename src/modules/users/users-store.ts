// SQL for people: users with an email and a password, and the workspaces they belong to.
import type { Db } from '../../db/tables.js';
import type { Role } from '../../model/role.js';
import type { UserWorkspace } from './users-schemas.js';

/** What a sign-in needs to know of the user an email names. */
export interface SignInUser {
  id: string;
  passwordHash: string | null;
  disabledAt: number | null;
}

/** What single sign-on needs to know of a user: who, whether they may sign in, and their identity. */
export interface SsoUser {
  id: string;
  disabledAt: number | null;
  oidcIssuer: string | null;
  oidcSubject: string | null;
}

export interface UserListing {
  id: string;
  name: string;
  email: string | null;
  disabledAt: number | null;
  service: boolean;
  createdAt: number;
}

export function createUsersStore(db: Db) {
  return {
    findForSignIn: (email: string): Promise<SignInUser | undefined> =>
      db
        .selectFrom('users')
        .select(['id', 'password_hash as passwordHash', 'disabled_at as disabledAt'])
        .where('email', '=', email)
        // A machine's user never signs in, whatever is written in its row.
        .where('service', '=', 0)
        .executeTakeFirst(),

    /** The person a provider's identity (issuer, `sub`) was linked to, if any. */
    findByIdentity: (issuer: string, subject: string): Promise<SsoUser | undefined> =>
      db
        .selectFrom('users')
        .select([
          'id',
          'disabled_at as disabledAt',
          'oidc_issuer as oidcIssuer',
          'oidc_subject as oidcSubject',
        ])
        .where('oidc_issuer', '=', issuer)
        .where('oidc_subject', '=', subject)
        .where('service', '=', 0)
        .executeTakeFirst(),

    /** The person an email names, for single sign-on's first link. */
    findByEmailForSso: (email: string): Promise<SsoUser | undefined> =>
      db
        .selectFrom('users')
        .select([
          'id',
          'disabled_at as disabledAt',
          'oidc_issuer as oidcIssuer',
          'oidc_subject as oidcSubject',
        ])
        .where('email', '=', email)
        .where('service', '=', 0)
        .executeTakeFirst(),

    /**
     * Links the user to a provider's identity, unless they are linked to another identity of `issuer`
     * already (concurrently, or before): whether it is theirs now.
     */
    async linkIdentity(id: string, issuer: string, subject: string, trx: Db = db): Promise<boolean> {
      const result = await trx
        .updateTable('users')
        .set({ oidc_issuer: issuer, oidc_subject: subject })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('oidc_subject', 'is', null),
            eb('oidc_issuer', '<>', issuer),
            eb('oidc_subject', '=', subject),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    find: (id: string) =>
      db
        .selectFrom('users')
        .select(['id', 'name', 'email', 'disabled_at as disabledAt'])
        .where('id', '=', id)
        .executeTakeFirst(),

    findByName: (trx: Db, name: string) =>
      trx.selectFrom('users').select(['id', 'email']).where('name', '=', name).executeTakeFirst(),

    findByEmail: (trx: Db, email: string) =>
      trx.selectFrom('users').select(['id', 'name']).where('email', '=', email).executeTakeFirst(),

    async insert(
      trx: Db,
      /** No password (null): the person signs in through single sign-on only. */
      user: { id: string; name: string; email: string; passwordHash: string | null; now: number },
    ): Promise<void> {
      await trx
        .insertInto('users')
        .values({
          id: user.id,
          name: user.name,
          email: user.email,
          password_hash: user.passwordHash,
          created_at: user.now,
        })
        .execute();
    },

    /** Gives an existing user (one made by `keys create --user`) an email and a password. */
    async setCredentials(trx: Db, id: string, email: string, passwordHash: string): Promise<void> {
      await trx
        .updateTable('users')
        .set({ email, password_hash: passwordHash })
        .where('id', '=', id)
        .execute();
    },

    /** A new password (a reset link's): `passwordHash` is `scrypt$…`. */
    async setPassword(trx: Db, id: string, passwordHash: string): Promise<void> {
      await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
    },

    async disable(trx: Db, id: string, now: number): Promise<boolean> {
      const result = await trx
        .updateTable('users')
        .set({ disabled_at: now })
        .where('id', '=', id)
        .where('disabled_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    list: (): Promise<UserListing[]> =>
      db
        .selectFrom('users')
        .select((eb) => [
          'id',
          'name',
          'email',
          'disabled_at as disabledAt',
          eb('service', '=', 1).$castTo<boolean>().as('service'),
          'created_at as createdAt',
        ])
        .orderBy('created_at')
        .orderBy('id')
        .execute()
        .then((rows) => rows.map((row) => ({ ...row, service: Boolean(row.service) }))),

    /** The user's workspaces and roles, the oldest membership first (a session's default workspace). */
    workspacesOf: (userId: string, target: Db = db): Promise<UserWorkspace[]> =>
      target
        .selectFrom('memberships as m')
        .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select((eb) => ['w.id', 'w.name', eb.ref('m.role').$castTo<Role>().as('role')])
        .where('m.user_id', '=', userId)
        .orderBy('m.created_at')
        .orderBy('w.id')
        .execute(),
  };
}

export type UsersStore = ReturnType<typeof createUsersStore>;
