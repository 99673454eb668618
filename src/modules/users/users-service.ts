// People: made with an email and a password (the CLI, an invite, the setup link), listed, disabled.
// A disabled user's sessions and keys stop working on every instance (the access signal).
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { randomSuffix } from '../../ids.js';
import { MAX_NAME_LENGTH } from '../../model/common.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.js';
import { EMAIL_PATTERN, MAX_EMAIL_LENGTH, type NewUser, normalEmail } from './users-schemas.js';
import type { UsersStore } from './users-store.js';

const EMAIL = new RegExp(EMAIL_PATTERN);

/** Problems with a new user's email, name and password, each named by its field. */
export function newUserProblems(user: NewUser): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (user.email.length > MAX_EMAIL_LENGTH || !EMAIL.test(user.email))
    details.push({ path: '/email', message: 'must be an email address' });
  const name = user.name?.trim();
  if (name !== undefined && (name === '' || name.length > MAX_NAME_LENGTH))
    details.push({ path: '/name', message: `must be 1 to ${MAX_NAME_LENGTH} characters` });
  if (user.password.length < MIN_PASSWORD_LENGTH || user.password.length > MAX_PASSWORD_LENGTH)
    details.push({
      path: '/password',
      message: `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    });
  return details;
}

/** A new user checked, with the hash of their password: written by `insert` in a transaction. */
export interface PreparedUser {
  email: string;
  name: string;
  passwordHash: string;
}

export interface CreatedUser {
  id: string;
  name: string;
  email: string;
}

export function createUsersService(deps: {
  db: Db;
  store: UsersStore;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  /** Forgets what this instance remembered of keys and sessions (the others hear the signal). */
  forget: () => void;
  /** scrypt's N for new passwords (PASSWORD_SCRYPT_N); the documented default without it. */
  passwordScryptN?: number;
}) {
  const { db, store } = deps;

  /**
   * The new user checked and their password hashed, before any transaction: scrypt takes a quarter
   * of a second, which no transaction should wait on (SQLite's writer would, for every request).
   */
  async function prepare(input: NewUser): Promise<PreparedUser> {
    const email = normalEmail(input.email);
    const details = newUserProblems({ ...input, email });
    if (details.length > 0) throw new AppError('USER_PAYLOAD_INVALID', details);
    return {
      email,
      name: input.name?.trim() || email,
      passwordHash: await hashPassword(input.password, deps.passwordScryptN),
    };
  }

  /**
   * Writes a prepared user in `trx`. With `adopt`, a user of that name without an email (made by
   * `keys create --user`) is given the email and password: the operator's way to let such a user sign
   * in. Without it (a link's acceptance) a taken name is 409: whoever holds a link must never be able
   * to take over an account by naming it.
   */
  async function insert(
    trx: Db,
    user: PreparedUser,
    now: number,
    { adopt }: { adopt: boolean },
  ): Promise<CreatedUser> {
    const { email, name, passwordHash } = user;
    if (await store.findByEmail(trx, email)) throw new AppError('USER_EXISTS');
    const named = await store.findByName(trx, name);
    if (named && (named.email !== null || !adopt))
      throw new AppError('USER_EXISTS', [{ path: '/name', message: 'this name is taken' }]);
    if (named) {
      await store.setCredentials(trx, named.id, email, passwordHash);
      return { id: named.id, name, email };
    }
    const id = `usr_${randomSuffix(12)}`;
    await store.insert(trx, { id, name, email, passwordHash, now });
    return { id, name, email };
  }

  return {
    /**
     * A user who signs in with `email` and `password`, made in `trx` (an invite's acceptance makes the
     * membership in the same transaction). A user of that name without an email (made by
     * `keys create --user`) is given them; an email already taken is 409.
     */
    async create(trx: Db, input: NewUser, now: number): Promise<CreatedUser> {
      return insert(trx, await prepare(input), now, { adopt: true });
    },

    prepare,
    insert,

    list: () => store.list(),

    /** Disables the user named by email or id: they can no longer sign in, and their sessions and keys stop. */
    async disable(who: string): Promise<boolean> {
      const found = await db.transaction().execute(async (trx) => {
        const user = who.startsWith('usr_') ? { id: who } : await store.findByEmail(trx, normalEmail(who));
        if (!user) return false;
        if (!(await store.disable(trx, user.id, Date.now()))) return false;
        for (const workspace of await store.workspacesOf(user.id, trx))
          await deps.signals.announceAccess(trx, workspace.id);
        return true;
      });
      deps.forget();
      return found;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
