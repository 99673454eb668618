// Password resets: a single-use link (a 256-bit token stored only hashed, 1 hour) that sets a new
// password and ends every session of the person, on every instance. An admin makes one for a member;
// with SMTP_URL set, anyone may ask for one to be mailed to their address ("forgot password"), which
// answers the same, at once, whether or not the address has an account: the look-up and the mail
// happen after the answer.
import { detached } from '../../db/abandon.js';
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import { randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import type { Role } from '../../model/role.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import { resetMail } from '../mail/mail-messages.js';
import type { Mailer } from '../mail/mailer.js';
import type { SessionsStore } from '../sessions/sessions-store.js';
import { isLinkToken, linkTo, linkTokenHash, newLinkToken } from '../shared/single-use-links.js';
import { hashPassword } from '../users/passwords.js';
import { normalEmail } from '../users/users-schemas.js';
import type { UsersStore } from '../users/users-store.js';
import { checkForgotPassword, checkNewPassword, type ResetLink } from './password-resets-schemas.js';
import type { PasswordResetsStore, ResetTarget } from './password-resets-store.js';

export const RESET_TTL_MS = 3600_000;
/** One mailed link per person in this time, however often "forgot password" is asked for them. */
export const ASK_INTERVAL_MS = 5 * 60_000;
const NOTHING_IGNORED = new Set<string>();
const ADMINS = new Set<Role>(['admin', 'owner']);

/**
 * Why the caller may not make a reset link for `target`, or undefined when they may. The link signs
 * its holder in as the member in every workspace the member belongs to, so the caller must be an
 * admin (an owner for an owner) in each of them, not only in this one: an admin of one workspace never
 * gains another's through a shared member.
 */
function refusal(
  callerRoles: Map<string, Role>,
  target: ResetTarget,
  callerId: string,
  targetId: string,
): string | undefined {
  if (callerId === targetId) return undefined;
  for (const { workspaceId, role } of target.memberships) {
    const caller = callerRoles.get(workspaceId);
    if (caller === undefined || !ADMINS.has(caller))
      return 'this member belongs to a workspace you do not administer: only its admins can reset their password';
    if (role === 'owner' && caller !== 'owner') return 'only an owner can reset the password of an owner';
  }
  return undefined;
}

export function createPasswordResetsService(deps: {
  db: Db;
  store: PasswordResetsStore;
  users: Pick<UsersStore, 'findForSignIn' | 'setPassword' | 'workspacesOf'>;
  sessions: Pick<SessionsStore, 'end'>;
  activity: Pick<ActivityService, 'record'>;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  /** Forgets every key and session this instance remembered (the others hear the signal). */
  forget: () => void;
  /** scrypt's N for the new password (PASSWORD_SCRYPT_N). */
  passwordScryptN?: number;
  /** Sends mail; undefined without SMTP_URL. */
  mailer?: Mailer;
  /** Where mailed links lead (PUBLIC_URL, which SMTP_URL requires). */
  publicUrl?: string;
  /** Told when asked-for work failed after its answer (never with the token). */
  failed?: (error: unknown) => void;
  now?: () => number;
}) {
  const { db, store } = deps;
  const now = deps.now ?? Date.now;
  /** Work still running after its answer ("forgot password"): awaited on shutdown and by tests. */
  const running = new Set<Promise<void>>();

  async function insert(userId: string, createdBy: string | null, trx: Db, at: number) {
    const { token, tokenHash } = newLinkToken();
    const expiresAt = at + RESET_TTL_MS;
    await store.insert(trx, {
      id: `pwr_${randomSuffix(16)}`,
      userId,
      tokenHash,
      createdBy,
      now: at,
      expiresAt,
    });
    return { token, expiresAt };
  }

  async function mail(to: string, link: string, expiresAt: number): Promise<boolean> {
    if (!deps.mailer) return false;
    try {
      await deps.mailer.send(resetMail({ to, link, expiresAt }));
      return true;
    } catch (error) {
      deps.failed?.(error);
      return false;
    }
  }

  /** "Forgot password", after its answer: a link mailed when the address is a person's who may sign in. */
  async function mailAskedFor(email: string): Promise<void> {
    const user = await deps.users.findForSignIn(email);
    if (!user || user.disabledAt !== null || !deps.publicUrl) return;
    const at = now();
    if ((await store.countAskedSince(user.id, at - ASK_INTERVAL_MS)) > 0) return;
    const { token, expiresAt } = await db.transaction().execute((trx) => insert(user.id, null, trx, at));
    await mail(email, linkTo(deps.publicUrl, 'reset', token), expiresAt);
  }

  return {
    /**
     * POST /v1/members/:userId/reset: a reset link for a member of the caller's workspace, shown once
     * (to the console at `origin`) and mailed when SMTP is set.
     */
    async createForMember(
      principal: Principal,
      userId: string,
      origin: string,
      address: string | null = null,
    ): Promise<ResetLink> {
      const target = await store.target(userId);
      if (!target?.memberships.some((m) => m.workspaceId === principal.workspaceId))
        throw new AppError('MEMBER_NOT_FOUND');
      if (target.service || target.email === null)
        throw new AppError('USER_CANNOT_SIGN_IN', [
          {
            path: '',
            message: target.service
              ? "a machine's user has no password"
              : 'this member has no email to sign in with (rulekeeper users create --email E --name NAME gives one)',
          },
        ]);
      const callerRoles = new Map(
        (await store.membershipsOf(principal.userId)).map((m) => [m.workspaceId, m.role] as const),
      );
      const why = refusal(callerRoles, target, principal.userId, userId);
      if (why) throw new AppError('UNAUTHORIZED_ACTION', [{ path: '', message: why }]);
      const at = now();
      const { token, expiresAt } = await db.transaction().execute(async (trx) => {
        const made = await insert(userId, principal.userId, trx, at);
        await deps.activity.record(trx, {
          workspaceId: principal.workspaceId,
          kind: 'password_reset_created',
          actor: actorOf(principal, address),
          object: { type: 'user', id: userId },
          at,
        });
        return made;
      });
      const link = linkTo(origin, 'reset', token);
      // A mailed link leads to PUBLIC_URL whatever address the admin's request came to.
      const mailed = deps.publicUrl
        ? await mail(target.email, linkTo(deps.publicUrl, 'reset', token), expiresAt)
        : false;
      return { userId, link, expiresAt, mailed };
    },

    /**
     * POST /v1/password/forgot: checks the body, then answers at once; a link is mailed afterwards
     * only when SMTP is set and the address is a person's who may sign in (at most one every 5
     * minutes). The answer is the same, in the same time, for any address.
     */
    forgot(body: unknown): void {
      const { email } = readPayload(
        body,
        checkForgotPassword,
        'PASSWORD_RESET_PAYLOAD_INVALID',
        NOTHING_IGNORED,
      );
      if (!deps.mailer) return;
      const work = detached(() => mailAskedFor(normalEmail(email))).catch((error) => deps.failed?.(error));
      running.add(work);
      work.finally(() => running.delete(work));
    },

    /**
     * POST /v1/password/reset: the link's user gets the new password, and every session of theirs
     * ends on every instance (their keys stay: they are not the password). Other reset links of
     * theirs stop working. An unknown, used or expired link is 410, whichever it is.
     */
    async reset(body: unknown, address: string): Promise<void> {
      const input = readPayload(body, checkNewPassword, 'PASSWORD_RESET_PAYLOAD_INVALID', NOTHING_IGNORED);
      const reset = isLinkToken(input.token)
        ? await store.findUsable(linkTokenHash(input.token), now())
        : undefined;
      if (!reset) throw new AppError('LINK_INVALID');
      const passwordHash = await hashPassword(input.password, deps.passwordScryptN);
      const at = now();
      await db.transaction().execute(async (trx) => {
        if (!(await store.use(trx, reset.id, at))) throw new AppError('LINK_INVALID');
        await store.useAllOf(trx, reset.userId, at);
        await deps.users.setPassword(trx, reset.userId, passwordHash);
        await deps.sessions.end(trx, { userId: reset.userId }, at);
        for (const workspace of await deps.users.workspacesOf(reset.userId, trx)) {
          await deps.activity.record(trx, {
            workspaceId: workspace.id,
            kind: 'password_reset',
            actor: { userId: reset.userId, via: null, address },
            object: { type: 'user', id: reset.userId },
            at,
          });
          await deps.signals.announceAccess(trx, workspace.id);
        }
      });
      deps.forget();
    },

    /** Resolves once the work still running after its answer is done. */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

export type PasswordResetsService = ReturnType<typeof createPasswordResetsService>;
