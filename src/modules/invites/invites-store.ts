// SQL for invites: made, listed while pending, revoked, and used once.
import type { Db } from '../../db/tables.js';
import type { Role } from '../../model/role.js';

/** An invite as a link's token finds it, while it may still be used. */
export interface PendingInvite {
  id: string;
  workspaceId: string;
  email: string | null;
  role: Role;
  kind: 'invite' | 'setup';
}

/** An invite as GET /v1/invites lists it: never its token nor the token's hash. */
export interface ListedInvite {
  id: string;
  email: string | null;
  role: Role;
  createdBy: string | null;
  createdAt: number;
  expiresAt: number;
}

export function createInvitesStore(db: Db) {
  /** Invites neither used, revoked nor expired at `now`, as a link or a sign-on finds them. */
  const pending = (now: number) =>
    db
      .selectFrom('invites')
      .select((eb) => [
        'id',
        'workspace_id as workspaceId',
        'email',
        eb.ref('role').$castTo<Role>().as('role'),
        eb.ref('kind').$castTo<'invite' | 'setup'>().as('kind'),
      ])
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now);

  return {
    async insert(
      trx: Db,
      invite: {
        id: string;
        workspaceId: string;
        email: string | null;
        role: Role;
        kind: 'invite' | 'setup';
        tokenHash: string;
        createdBy: string | null;
        now: number;
        expiresAt: number;
      },
    ): Promise<void> {
      await trx
        .insertInto('invites')
        .values({
          id: invite.id,
          workspace_id: invite.workspaceId,
          email: invite.email,
          role: invite.role,
          kind: invite.kind,
          token_hash: invite.tokenHash,
          created_by: invite.createdBy,
          created_at: invite.now,
          expires_at: invite.expiresAt,
          accepted_at: null,
          accepted_by: null,
          revoked_at: null,
        })
        .execute();
    },

    /** The invite `tokenHash` names, when it is neither used, revoked nor expired at `now`. */
    findPending: (tokenHash: string, now: number): Promise<PendingInvite | undefined> =>
      pending(now).where('token_hash', '=', tokenHash).executeTakeFirst(),

    /** The invites (not the setup link) still pending for `email` at `now`, in any workspace. */
    findPendingFor: (email: string, now: number): Promise<PendingInvite[]> =>
      pending(now).where('email', '=', email).where('kind', '=', 'invite').orderBy('created_at').execute(),

    /**
     * Uses the invite, once: true for exactly one of any number of transactions that try (the update
     * takes the row's lock on PostgreSQL; the later one then finds it used; SQLite writes one at a time).
     */
    async use(trx: Db, id: string, now: number): Promise<boolean> {
      const result = await trx
        .updateTable('invites')
        .set({ accepted_at: now })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async setAcceptedBy(trx: Db, id: string, userId: string): Promise<void> {
      await trx.updateTable('invites').set({ accepted_by: userId }).where('id', '=', id).execute();
    },

    /** The workspace's invites still to be accepted at `now`, newest first. */
    listPending: (workspaceId: string, now: number): Promise<ListedInvite[]> =>
      db
        .selectFrom('invites')
        .select((eb) => [
          'id',
          'email',
          eb.ref('role').$castTo<Role>().as('role'),
          'created_by as createdBy',
          'created_at as createdAt',
          'expires_at as expiresAt',
        ])
        .where('workspace_id', '=', workspaceId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    /** Revokes the workspace's pending invite `id`; false when there is no such pending invite there. */
    async revoke(trx: Db, workspaceId: string, id: string, now: number): Promise<boolean> {
      const result = await trx
        .updateTable('invites')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Revokes the workspace's pending invites of `email`: a new invite replaces them. */
    async revokePendingOf(trx: Db, workspaceId: string, email: string, now: number): Promise<void> {
      await trx
        .updateTable('invites')
        .set({ revoked_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('email', '=', email)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .execute();
    },

    /** Whether the user whose email is `email` is a member of the workspace. */
    async isMember(trx: Db, workspaceId: string, email: string): Promise<boolean> {
      const row = await trx
        .selectFrom('memberships as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('m.user_id')
        .where('m.workspace_id', '=', workspaceId)
        .where('u.email', '=', email)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The workspace's name, for the mail that invites to it. */
    workspaceName: (workspaceId: string): Promise<string | undefined> =>
      db
        .selectFrom('workspaces')
        .select('name')
        .where('id', '=', workspaceId)
        .executeTakeFirst()
        .then((row) => row?.name),
  };
}

export type InvitesStore = ReturnType<typeof createInvitesStore>;
