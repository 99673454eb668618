// SQL for sessions and for the failed sign-ins that limit guessing.
import type { Db } from '../../db/tables.js';
import type { Role } from '../../model/role.js';

/** A session as its cookie finds it, with what decides whether it still holds. */
export interface SessionRow {
  id: string;
  userId: string;
  csrfSecret: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  /** Ended (signed out) or its user disabled: it holds no more. */
  over: boolean;
}

export interface SessionMembership {
  workspaceId: string;
  ownerUserId: string;
  role: Role;
}

export function createSessionsStore(db: Db) {
  return {
    async insert(
      trx: Db,
      session: {
        id: string;
        tokenHash: string;
        userId: string;
        csrfSecret: string;
        now: number;
        expiresAt: number;
        address: string;
      },
    ): Promise<void> {
      await trx
        .insertInto('sessions')
        .values({
          id: session.id,
          token_hash: session.tokenHash,
          user_id: session.userId,
          csrf_secret: session.csrfSecret,
          created_at: session.now,
          last_seen_at: session.now,
          expires_at: session.expiresAt,
          ended_at: null,
          address: session.address,
        })
        .execute();
    },

    findByTokenHash: (tokenHash: string): Promise<SessionRow | undefined> =>
      db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select((eb) => [
          's.id',
          's.user_id as userId',
          's.csrf_secret as csrfSecret',
          's.created_at as createdAt',
          's.last_seen_at as lastSeenAt',
          's.expires_at as expiresAt',
          eb
            .or([eb('s.ended_at', 'is not', null), eb('u.disabled_at', 'is not', null)])
            .$castTo<boolean>()
            .as('over'),
        ])
        .where('s.token_hash', '=', tokenHash)
        .executeTakeFirst()
        .then((row) => row && { ...row, over: Boolean(row.over) }),

    /**
     * The user's membership in `workspaceId`, or in their oldest workspace without one; undefined when
     * they are no member there (or of any workspace).
     */
    membership: (userId: string, workspaceId: string | undefined): Promise<SessionMembership | undefined> => {
      let query = db
        .selectFrom('memberships as m')
        .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select((eb) => [
          'm.workspace_id as workspaceId',
          'w.owner_user_id as ownerUserId',
          eb.ref('m.role').$castTo<Role>().as('role'),
        ])
        .where('m.user_id', '=', userId);
      if (workspaceId !== undefined) query = query.where('m.workspace_id', '=', workspaceId);
      return query.orderBy('m.created_at').orderBy('m.workspace_id').limit(1).executeTakeFirst();
    },

    /** Whether the session still holds at `now` and its user is still a member of `workspaceId`. */
    async isActive(id: string, workspaceId: string, now: number, idleBefore: number): Promise<boolean> {
      const row = await db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .innerJoin('memberships as m', (join) =>
          join.onRef('m.user_id', '=', 's.user_id').on('m.workspace_id', '=', workspaceId),
        )
        .select('s.id')
        .where('s.id', '=', id)
        .where('s.ended_at', 'is', null)
        .where('u.disabled_at', 'is', null)
        .where('s.expires_at', '>', now)
        .where('s.last_seen_at', '>', idleBefore)
        .executeTakeFirst();
      return row !== undefined;
    },

    async touch(id: string, now: number): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
    },

    /** Ends one session (`id`), or every session of `userId`; answers the workspaces to tell. */
    async end(trx: Db, which: { id: string } | { userId: string }, now: number): Promise<void> {
      let query = trx.updateTable('sessions').set({ ended_at: now }).where('ended_at', 'is', null);
      query = 'id' in which ? query.where('id', '=', which.id) : query.where('user_id', '=', which.userId);
      await query.execute();
    },

    async endByTokenHash(tokenHash: string, now: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set({ ended_at: now })
        .where('token_hash', '=', tokenHash)
        .where('ended_at', 'is', null)
        .execute();
    },

    /** Sessions of the user that hold no more, gone for good: a user's table of sessions stays short. */
    async sweep(trx: Db, userId: string, now: number, idleBefore: number): Promise<void> {
      await trx
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .where((eb) =>
          eb.or([
            eb('ended_at', 'is not', null),
            eb('expires_at', '<=', now),
            eb('last_seen_at', '<=', idleBefore),
          ]),
        )
        .execute();
    },

    async recordFailure(id: string, subjects: string[], at: number): Promise<void> {
      await db
        .insertInto('sign_in_failures')
        .values(subjects.map((subject) => ({ id, subject, at })))
        .execute();
    },

    /** Per subject: the failures since `since` and the oldest of them. */
    failuresSince: (subjects: string[], since: number) =>
      db
        .selectFrom('sign_in_failures')
        .select((eb) => ['subject', eb.fn.countAll<number>().as('count'), eb.fn.min('at').as('oldest')])
        .where('subject', 'in', subjects)
        .where('at', '>', since)
        .groupBy('subject')
        .execute()
        .then((rows) =>
          rows.map((row) => ({ ...row, count: Number(row.count), oldest: Number(row.oldest) })),
        ),

    /** Takes back an attempt's rows, and with `subject` every failure of that subject. */
    async forgetFailures(id: string, subject?: string): Promise<void> {
      await db
        .deleteFrom('sign_in_failures')
        .where((eb) =>
          subject === undefined ? eb('id', '=', id) : eb.or([eb('id', '=', id), eb('subject', '=', subject)]),
        )
        .execute();
    },

    async sweepFailures(before: number): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('at', '<=', before).execute();
    },
  };
}

export type SessionsStore = ReturnType<typeof createSessionsStore>;
