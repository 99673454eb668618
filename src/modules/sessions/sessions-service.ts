// Signing people in and out, and finding who a session cookie speaks for. A session is an opaque
// 256-bit value in a cookie, stored only as its hash; it holds 7 days from its last use and 30 in all,
// and ends on sign-out, on "sign out everywhere" and when its user is disabled, on every instance (the
// access signal). Failed sign-ins are counted per account and per address, in the database, so that
// every instance refuses the eleventh alike.
import { randomBytes } from 'node:crypto';
import { Tokens } from '@fastify/csrf';
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import { hashApiKey, randomSuffix } from '../../ids.js';
import type { SecurityKind } from '../activity/activity-kinds.js';
import type { ActivityService } from '../activity/activity-service.js';
import type { KeyPrincipal } from '../keys/keys-store.js';
import { decoyHash, verifyPassword } from '../users/passwords.js';
import { checkCredentials, normalEmail, type User, type UserWorkspace } from '../users/users-schemas.js';
import type { UsersStore } from '../users/users-store.js';
import type { SessionsStore } from './sessions-store.js';

export const IDLE_MS = 7 * 24 * 3600_000;
export const ABSOLUTE_MS = 30 * 24 * 3600_000;
/** A session's last use is written at most this often: not a write per request. */
const TOUCH_EVERY_MS = 3600_000;
export const FAILURE_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES = 10;
const MAX_CACHED = 10_000;
const NOTHING_IGNORED = new Set<string>();

/** A person's session, as every route sees a caller; its scope is what its role reaches. */
export interface SessionPrincipal extends KeyPrincipal {
  via: 'session';
  /** What its CSRF tokens are checked against. */
  csrfSecret: string;
}

export type SessionCheck = { principal: SessionPrincipal } | { error: AppError };

/** What a signed-in person sees of their session: POST and GET /v1/session. */
export interface SessionView {
  user: User;
  workspaces: UserWorkspace[];
  /** Sent back in `x-rk-csrf` with every change made with this session. */
  csrfToken: string;
  expiresAt: number;
}

const notMember = (workspaceId: string | undefined) =>
  new AppError('UNAUTHORIZED_ACTION', [
    {
      path: '',
      message:
        workspaceId === undefined
          ? 'you are a member of no workspace'
          : `you are not a member of workspace ${workspaceId} (x-rk-workspace)`,
    },
  ]);

export function createSessionsService(deps: {
  db: Db;
  store: SessionsStore;
  users: UsersStore;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  activity: Pick<ActivityService, 'record'>;
  /** scrypt's N of the decoy an unknown email is checked against: that of real hashes. */
  passwordScryptN?: number;
  /** How long a session's principal is remembered (KEY_CACHE_TTL_MS, as for keys). */
  cacheTtlMs: number;
  now?: () => number;
}) {
  const { db, store, users } = deps;
  const now = deps.now ?? Date.now;
  const tokens = new Tokens({});
  // By the token's hash and the workspace asked for; forgotten when access changes anywhere.
  const cache = new Map<string, { checked: { principal: SessionPrincipal }; until: number }>();
  let forgets = 0;

  function view(user: User, workspaces: UserWorkspace[], csrfSecret: string, expiresAt: number): SessionView {
    return { user, workspaces, csrfToken: tokens.create(csrfSecret), expiresAt };
  }

  /**
   * Records `kind` in the activity of every workspace the user belongs to (their admins see it there),
   * and, when `announce`, tells every instance that access changed in each.
   */
  async function tellWorkspaces(
    trx: Db,
    userId: string,
    kind: SecurityKind,
    address: string,
    at: number,
    { announce = false, detail }: { announce?: boolean; detail?: Record<string, boolean> } = {},
  ): Promise<void> {
    for (const workspace of await users.workspacesOf(userId, trx)) {
      await deps.activity.record(trx, {
        workspaceId: workspace.id,
        kind,
        actor: { userId, via: 'session', address },
        object: { type: 'user', id: userId },
        ...(detail ? { detail } : {}),
        at,
      });
      if (announce) await deps.signals.announceAccess(trx, workspace.id);
    }
  }

  /** Ends the session, or all of the user's, and tells every instance. */
  async function end(principal: SessionPrincipal, everywhere: boolean, address: string): Promise<void> {
    const at = now();
    await db.transaction().execute(async (trx) => {
      await store.end(trx, everywhere ? { userId: principal.userId } : { id: principal.keyId }, at);
      await tellWorkspaces(trx, principal.userId, 'sign_out', address, at, {
        announce: true,
        detail: { everywhere },
      });
    });
    forget();
  }

  /**
   * A new session for the user, signed in from `address`: the cookie's value (shown once) and what
   * the person sees. `previous`, a session cookie the browser already had, ends: the id after sign-in
   * is never one set before it. Password and single sign-on alike end here.
   */
  async function open(
    userId: string,
    address: string,
    previous: string | undefined,
    how: 'password' | 'sso',
  ): Promise<{ token: string; view: SessionView }> {
    const at = now();
    if (previous !== undefined) await store.endByTokenHash(hashApiKey(previous), at);
    const token = randomBytes(32).toString('base64url');
    const csrfSecret = tokens.secretSync();
    const expiresAt = at + ABSOLUTE_MS;
    await db.transaction().execute(async (trx) => {
      await store.sweep(trx, userId, at, at - IDLE_MS);
      await store.insert(trx, {
        id: `ses_${randomSuffix(16)}`,
        tokenHash: hashApiKey(token),
        userId,
        csrfSecret,
        now: at,
        expiresAt,
        address,
      });
      await tellWorkspaces(trx, userId, 'sign_in', address, at, { detail: { sso: how === 'sso' } });
    });
    return { token, view: await describe(userId, csrfSecret, expiresAt) };
  }

  /**
   * The id of the user `email` and `password` are the credentials of, or 401 Invalid credentials, the
   * same answer in about the same time whether the email is unknown, the password wrong or the user
   * disabled; 429 past 10 failures of the account or the address in 15 minutes. Whoever proves an
   * account is theirs goes through here: signing in, and accepting an invite as an existing user.
   */
  async function authenticate(
    credentials: { email: string; password: string },
    address: string,
  ): Promise<string> {
    const email = normalEmail(credentials.email);
    const account = `email:${email}`;
    const attempt = randomSuffix(16);
    const at = now();
    // The attempt counts as failed until it succeeds: guesses sent at once cannot all slip under
    // the limit by being counted before any of them failed.
    await store.sweepFailures(at - FAILURE_WINDOW_MS);
    await store.recordFailure(attempt, [account, `ip:${address}`], at);
    const over = (await store.failuresSince([account, `ip:${address}`], at - FAILURE_WINDOW_MS)).filter(
      (subject) => subject.count > MAX_FAILURES,
    );
    if (over.length > 0) {
      // A refused attempt is not a failure: the limit lifts when the counted ones age out.
      await store.forgetFailures(attempt);
      const lifts = Math.max(...over.map((subject) => subject.oldest)) + FAILURE_WINDOW_MS;
      throw new AppError('SIGN_IN_LIMITED', undefined, Math.max(1, Math.ceil((lifts - at) / 1000)));
    }
    const user = await users.findForSignIn(email);
    const matches = await verifyPassword(
      credentials.password,
      user?.passwordHash ?? (await decoyHash(deps.passwordScryptN)),
    );
    if (!user?.passwordHash || !matches || user.disabledAt !== null) {
      // Their admins see guesses at a member's password; an unknown email belongs to no workspace.
      if (user)
        await db.transaction().execute((trx) => tellWorkspaces(trx, user.id, 'sign_in_failed', address, at));
      throw new AppError('INVALID_CREDENTIALS');
    }
    await store.forgetFailures(attempt, account);
    return user.id;
  }

  async function describe(userId: string, csrfSecret: string, expiresAt: number): Promise<SessionView> {
    const [found, workspaces] = await Promise.all([users.find(userId), users.workspacesOf(userId)]);
    if (!found) throw new AppError('SESSION_INVALID');
    return view({ id: found.id, name: found.name, email: found.email }, workspaces, csrfSecret, expiresAt);
  }

  function forget(): void {
    forgets++;
    cache.clear();
  }

  async function resolve(token: string, workspaceId: string | undefined): Promise<SessionCheck> {
    const tokenHash = hashApiKey(token);
    const before = forgets;
    const session = await store.findByTokenHash(tokenHash);
    const at = now();
    if (!session || session.over) return { error: new AppError('SESSION_INVALID') };
    const expiresAt = Math.min(session.expiresAt, session.lastSeenAt + IDLE_MS);
    if (expiresAt <= at) return { error: new AppError('SESSION_INVALID') };
    const membership = await store.membership(session.userId, workspaceId);
    if (!membership) return { error: notMember(workspaceId) };
    if (at - session.lastSeenAt >= TOUCH_EVERY_MS) await store.touch(session.id, at);
    const principal: SessionPrincipal = {
      via: 'session',
      keyId: session.id,
      userId: session.userId,
      workspaceId: membership.workspaceId,
      ownerUserId: membership.ownerUserId,
      role: membership.role,
      // A session has no scope of its own: its role alone says what it may do (and a refusal names it).
      scope: 'admin',
      // Remembered no longer than the idle expiry a touch now would push back.
      expiresAt: Math.min(session.expiresAt, Math.max(session.lastSeenAt, at) + IDLE_MS),
      csrfSecret: session.csrfSecret,
    };
    if (deps.cacheTtlMs > 0 && forgets === before) {
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
      cache.set(`${tokenHash}\n${workspaceId ?? ''}`, {
        checked: { principal },
        until: Math.min(at + deps.cacheTtlMs, expiresAt),
      });
    }
    return { principal };
  }

  return {
    /**
     * Who the session cookie `token` speaks for in the workspace `x-rk-workspace` names (their oldest
     * without one), or why not; a remembered session answers without awaiting the database.
     */
    check(token: string, workspaceId: string | undefined): SessionCheck | Promise<SessionCheck> {
      const cached = cache.get(`${hashApiKey(token)}\n${workspaceId ?? ''}`);
      if (cached && cached.until > now()) return cached.checked;
      return resolve(token, workspaceId);
    },

    /**
     * POST /v1/session: a new session for the email and password (see `open`), or 401 Invalid
     * credentials, the same answer in about the same time whether the email is unknown, the password
     * wrong or the user disabled.
     */
    async signIn(
      body: unknown,
      address: string,
      previous: string | undefined,
    ): Promise<{ token: string; view: SessionView }> {
      const credentials = readPayload(body, checkCredentials, 'SIGN_IN_PAYLOAD_INVALID', NOTHING_IGNORED);
      return open(await authenticate(credentials, address), address, previous, 'password');
    },

    authenticate,
    open,
    /** GET /v1/session: the person, their workspaces and a CSRF token. */
    describe,

    /** Whether `token` is a CSRF token of the session's. */
    verifyCsrf: (principal: SessionPrincipal, token: string) => tokens.verify(principal.csrfSecret, token),

    end,
    forget,

    /** For what outlives its request (a change stream): whether the session still holds. */
    async stillValid(principal: SessionPrincipal): Promise<boolean> {
      const at = now();
      if (principal.expiresAt !== null && principal.expiresAt <= at) return false;
      return store.isActive(principal.keyId, principal.workspaceId, at, at - IDLE_MS);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
