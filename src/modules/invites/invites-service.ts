// Invites: an admin invites an email with a role; the invite is a single-use link (a 256-bit token
// stored only hashed, 7 days) shown once and, with SMTP_URL, mailed. Accepting it makes the account (or
// proves an existing one is the acceptor's, with its password), adds the membership, and signs the
// person in. The setup link printed on a new database's first start is an invite too: role owner of
// the default workspace, 24 hours, its email chosen as it is accepted.
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import { randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import { inviteMail } from '../mail/mail-messages.js';
import type { Mailer } from '../mail/mailer.js';
import type { MembersStore } from '../members/members-store.js';
import type { SessionsService, SessionView } from '../sessions/sessions-service.js';
import { isLinkToken, linkTo, linkTokenHash, newLinkToken } from '../shared/single-use-links.js';
import { normalEmail } from '../users/users-schemas.js';
import type { UsersService } from '../users/users-service.js';
import type { UsersStore } from '../users/users-store.js';
import { checkInviteAccept, checkInviteCreate, type Invite, type NewInvite } from './invites-schemas.js';
import type { InvitesStore, PendingInvite } from './invites-store.js';

export const INVITE_TTL_MS = 7 * 24 * 3600_000;
export const SETUP_TTL_MS = 24 * 3600_000;
const NOTHING_IGNORED = new Set<string>();

/**
 * The setup link of a new database: an invite to own `workspaceId` for 24 hours, whose email is
 * chosen as it is accepted. Its token is answered once (the server prints it) and stored only hashed.
 */
export async function createSetupInvite(
  { db, store }: { db: Db; store: Pick<InvitesStore, 'insert'> },
  workspaceId: string,
  at: number,
): Promise<{ token: string; expiresAt: number }> {
  const { token, tokenHash } = newLinkToken();
  const expiresAt = at + SETUP_TTL_MS;
  await db.transaction().execute((trx) =>
    store.insert(trx, {
      id: `inv_${randomSuffix(16)}`,
      workspaceId,
      email: null,
      role: 'owner',
      kind: 'setup',
      tokenHash,
      createdBy: null,
      now: at,
      expiresAt,
    }),
  );
  return { token, expiresAt };
}

/** Every invite pending for a single sign-on was used meanwhile (its transaction rolls back). */
class NoneLeft extends Error {}

export function createInvitesService(deps: {
  db: Db;
  store: InvitesStore;
  users: Pick<UsersService, 'prepare' | 'insert'>;
  usersStore: Pick<UsersStore, 'findByEmail' | 'insert' | 'linkIdentity'>;
  members: Pick<MembersStore, 'add'>;
  sessions: Pick<SessionsService, 'authenticate' | 'open'>;
  activity: Pick<ActivityService, 'record'>;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  /** Forgets what this instance remembered of the workspace's keys and sessions. */
  forget: (workspaceId: string) => void;
  /** Sends mail; undefined without SMTP_URL. */
  mailer?: Mailer;
  /** Told when a mail could not be sent (never with the link). */
  mailFailed?: (error: unknown) => void;
  now?: () => number;
}) {
  const { db, store } = deps;
  const now = deps.now ?? Date.now;

  /**
   * `invite`, just used (store.use) in `trx`, accepted by `userId`: records it and makes them a member
   * with its role, unless they are one already (made one since the invite: they keep their role).
   */
  async function welcome(
    trx: Db,
    invite: PendingInvite,
    userId: string,
    address: string,
    at: number,
    via: string | null = null,
  ): Promise<void> {
    await store.setAcceptedBy(trx, invite.id, userId);
    const actor = { userId, via, address };
    await deps.activity.record(trx, {
      workspaceId: invite.workspaceId,
      kind: 'invite_accepted',
      actor,
      object: { type: 'invite', id: invite.id },
      detail: { role: invite.role, setup: invite.kind === 'setup' },
      at,
    });
    if (await deps.members.add(trx, invite.workspaceId, userId, invite.role, at)) {
      await deps.activity.record(trx, {
        workspaceId: invite.workspaceId,
        kind: 'member_added',
        actor,
        object: { type: 'user', id: userId },
        detail: { role: invite.role, invite: invite.id },
        at,
      });
      await deps.signals.announceAccess(trx, invite.workspaceId);
    }
  }

  async function mail(
    invite: Invite & { email: string },
    link: string,
    workspaceId: string,
  ): Promise<boolean> {
    if (!deps.mailer) return false;
    try {
      const workspace = (await store.workspaceName(workspaceId)) ?? workspaceId;
      await deps.mailer.send(
        inviteMail({ to: invite.email, workspace, role: invite.role, link, expiresAt: invite.expiresAt }),
      );
      return true;
    } catch (error) {
      deps.mailFailed?.(error);
      return false;
    }
  }

  return {
    /**
     * POST /v1/invites: an invite of `email` with `role` to the caller's workspace, its link (to the
     * console at `origin`) shown once and mailed when SMTP is set. Only an owner invites an owner; an
     * email whose user is a member already is 409; a pending invite of the same email is replaced.
     */
    async create(
      principal: Principal,
      body: unknown,
      origin: string,
      address: string | null = null,
    ): Promise<NewInvite> {
      const input = readPayload(body, checkInviteCreate, 'INVITE_PAYLOAD_INVALID', NOTHING_IGNORED);
      if (input.role === 'owner' && principal.role !== 'owner')
        throw new AppError('UNAUTHORIZED_ACTION', [
          { path: '/role', message: 'only an owner can invite an owner' },
        ]);
      const email = normalEmail(input.email);
      const at = now();
      const { token, tokenHash } = newLinkToken();
      const invite: Invite & { email: string } = {
        id: `inv_${randomSuffix(16)}`,
        email,
        role: input.role,
        createdBy: principal.keyId === '' ? null : principal.userId,
        createdAt: at,
        expiresAt: at + INVITE_TTL_MS,
      };
      const { workspaceId } = principal;
      await db.transaction().execute(async (trx) => {
        if (await store.isMember(trx, workspaceId, email)) throw new AppError('MEMBER_EXISTS');
        await store.revokePendingOf(trx, workspaceId, email, at);
        await store.insert(trx, { ...invite, workspaceId, kind: 'invite', tokenHash, now: at });
        await deps.activity.record(trx, {
          workspaceId,
          kind: 'invite_created',
          actor: actorOf(principal, address),
          object: { type: 'invite', id: invite.id },
          detail: { email, role: invite.role },
          at,
        });
      });
      const link = linkTo(origin, 'accept', token);
      return { ...invite, link, mailed: await mail(invite, link, workspaceId) };
    },

    /** GET /v1/invites: the workspace's invites still to be accepted, newest first; never a token. */
    list: (principal: Principal): Promise<Invite[]> => store.listPending(principal.workspaceId, now()),

    /** DELETE /v1/invites/:inviteId: a pending invite of another workspace is not found, as an unknown one. */
    async revoke(principal: Principal, inviteId: string, address: string | null = null): Promise<void> {
      const { workspaceId } = principal;
      const at = now();
      await db.transaction().execute(async (trx) => {
        if (!(await store.revoke(trx, workspaceId, inviteId, at))) throw new AppError('INVITE_NOT_FOUND');
        await deps.activity.record(trx, {
          workspaceId,
          kind: 'invite_revoked',
          actor: actorOf(principal, address),
          object: { type: 'invite', id: inviteId },
          at,
        });
      });
    },

    /**
     * POST /v1/invites/accept: uses the link once, makes the account of its email with the password
     * given (or, when an account with that email exists, takes the password as proof that it is the
     * acceptor's: a link never lets its holder into an account they cannot sign in to), adds the
     * membership with the invite's role, and opens a session. An unknown, used, revoked or expired
     * link is 410, whichever it is. Of two acceptances at once, one wins; the other is 410.
     */
    async accept(
      body: unknown,
      address: string,
      previous: string | undefined,
    ): Promise<{ token: string; view: SessionView }> {
      const input = readPayload(body, checkInviteAccept, 'INVITE_PAYLOAD_INVALID', NOTHING_IGNORED);
      const invite = isLinkToken(input.token)
        ? await store.findPending(linkTokenHash(input.token), now())
        : undefined;
      if (!invite) throw new AppError('LINK_INVALID');
      let email: string;
      if (invite.email === null) {
        if (input.email === undefined)
          throw new AppError('INVITE_PAYLOAD_INVALID', [
            { path: '/email', message: "the setup link needs the first owner's email" },
          ]);
        email = normalEmail(input.email);
      } else {
        if (input.email !== undefined && normalEmail(input.email) !== invite.email)
          throw new AppError('INVITE_PAYLOAD_INVALID', [
            { path: '/email', message: 'this invite is for another address: leave email out' },
          ]);
        email = invite.email;
      }
      // Hashing (a new account) or checking (an existing one) a password takes a quarter of a second:
      // done before the transaction, which then only writes.
      const existing = await deps.usersStore.findByEmail(db, email);
      const proven = existing
        ? await deps.sessions.authenticate({ email, password: input.password }, address)
        : undefined;
      const prepared = existing
        ? undefined
        : await deps.users.prepare({
            email,
            password: input.password,
            ...(input.name ? { name: input.name } : {}),
          });
      const at = now();
      const userId = await db.transaction().execute(async (trx) => {
        // The link first: of two acceptances at once, the second learns it was used, whatever else.
        if (!(await store.use(trx, invite.id, at))) throw new AppError('LINK_INVALID');
        const user =
          proven ??
          (await deps.users.insert(trx, prepared as NonNullable<typeof prepared>, at, { adopt: false })).id;
        await welcome(trx, invite, user, address, at);
        return user;
      });
      deps.forget(invite.workspaceId);
      return deps.sessions.open(userId, address, previous, 'password');
    },

    /**
     * Single sign-on of a person with no account yet: when invites are pending for the email their
     * provider verified, the account is made (no password: it signs in through the provider, linked to
     * its identity) and every such invite accepted. The invite went to that address and the provider
     * vouches for it: the same proof as holding the link. Undefined when no invite is pending.
     */
    async joinBySso(
      email: string,
      identity: { issuer: string; subject: string },
      address: string,
    ): Promise<string | undefined> {
      const at = now();
      const pending = await store.findPendingFor(email, at);
      if (pending.length === 0) return undefined;
      const userId = await db
        .transaction()
        .execute(async (trx) => {
          // Made meanwhile (an acceptance with a password): theirs to sign in to, not this one's.
          if (await deps.usersStore.findByEmail(trx, email)) return undefined;
          const id = `usr_${randomSuffix(12)}`;
          await deps.usersStore.insert(trx, { id, name: email, email, passwordHash: null, now: at });
          await deps.usersStore.linkIdentity(id, identity.issuer, identity.subject, trx);
          let joined = 0;
          for (const invite of pending)
            if (await store.use(trx, invite.id, at)) {
              await welcome(trx, invite, id, address, at, 'session');
              joined++;
            }
          // All used meanwhile: nothing is written, and the sign-in is refused as for no invite.
          if (joined === 0) throw new NoneLeft();
          return id;
        })
        .catch((error: unknown) => {
          if (error instanceof NoneLeft) return undefined;
          throw error;
        });
      for (const invite of pending) deps.forget(invite.workspaceId);
      return userId;
    },
  };
}

export type InvitesService = ReturnType<typeof createInvitesService>;
