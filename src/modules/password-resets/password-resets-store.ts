// SQL for password reset links: made, found while usable, used once; and what deciding who may make
// one for whom reads.
import type { Db } from '../../db/tables.js';
import type { Role } from '../../model/role.js';

/** A user as a reset link for them is decided on: can they sign in, and where are they a member. */
export interface ResetTarget {
  email: string | null;
  service: boolean;
  memberships: { workspaceId: string; role: Role }[];
}

export function createPasswordResetsStore(db: Db) {
  const membershipsOf = (userId: string) =>
    db
      .selectFrom('memberships')
      .select((eb) => ['workspace_id as workspaceId', eb.ref('role').$castTo<Role>().as('role')])
      .where('user_id', '=', userId)
      .execute();

  return {
    async insert(
      trx: Db,
      reset: {
        id: string;
        userId: string;
        tokenHash: string;
        createdBy: string | null;
        now: number;
        expiresAt: number;
      },
    ): Promise<void> {
      await trx
        .insertInto('password_resets')
        .values({
          id: reset.id,
          user_id: reset.userId,
          token_hash: reset.tokenHash,
          created_by: reset.createdBy,
          created_at: reset.now,
          expires_at: reset.expiresAt,
          used_at: null,
        })
        .execute();
    },

    /** The reset `tokenHash` names while it is unused and unexpired at `now`. */
    findUsable: (tokenHash: string, now: number): Promise<{ id: string; userId: string } | undefined> =>
      db
        .selectFrom('password_resets')
        .select(['id', 'user_id as userId'])
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst(),

    /** Uses the reset once: true for exactly one of any number of transactions that try. */
    async use(trx: Db, id: string, now: number): Promise<boolean> {
      const result = await trx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Every other unused reset of the user stops working: the password they were for has changed. */
    async useAllOf(trx: Db, userId: string, now: number): Promise<void> {
      await trx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .execute();
    },

    /** Resets the person asked for by mail since `since`: mails are not sent to an inbox in a stream. */
    async countAskedSince(userId: string, since: number): Promise<number> {
      const row = await db
        .selectFrom('password_resets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('created_by', 'is', null)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** The user `userId`, as deciding on a reset link for them needs; undefined when unknown. */
    async target(userId: string): Promise<ResetTarget | undefined> {
      const user = await db
        .selectFrom('users')
        .select(['email', 'service'])
        .where('id', '=', userId)
        .executeTakeFirst();
      if (!user) return undefined;
      return { email: user.email, service: Boolean(user.service), memberships: await membershipsOf(userId) };
    },

    /** The workspaces `userId` belongs to and their role in each. */
    membershipsOf,
  };
}

export type PasswordResetsStore = ReturnType<typeof createPasswordResetsStore>;
