// People for the tests: a user with an email and a password, a member of a workspace, and their
// session cookie once signed in.

import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import type { Role } from '../../src/model/role.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';
import { createUsersService } from '../../src/modules/users/users-service.js';
import { createUsersStore } from '../../src/modules/users/users-store.js';
import type { TestApp } from './test-app.js';

export const PASSWORD = 'correct horse battery staple';

/** Makes a user with `email` and PASSWORD, a member of the workspace named `workspace` with `role`. */
export async function addPerson(
  t: TestApp,
  email: string,
  { workspace = 'acme', role = 'editor' as Role, password = PASSWORD } = {},
): Promise<{ id: string; email: string }> {
  const { db } = t.database;
  const users = createUsersService({
    db,
    store: createUsersStore(db),
    signals: t.database.signals,
    forget: () => {},
    passwordScryptN: t.config.passwordScryptN,
  });
  const keys = createKeysStore(db);
  return db.transaction().execute(async (trx) => {
    const user = await users.create(trx, { email, password }, Date.now());
    const found = await keys.findWorkspace(workspace);
    if (!found) throw new Error(`no workspace ${workspace}`);
    await keys.ensureMembership(trx, found.id, user.id, role, Date.now());
    return user;
  });
}

/** The session cookie a sign-in answer set, as a Cookie header sends it back. */
export function cookieOf(headers: Record<string, unknown>): string {
  const set = headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  if (typeof first !== 'string') throw new Error('no Set-Cookie in the answer');
  return first.split(';')[0] as string;
}

/** Signs `email` in: the Cookie header to send and the CSRF token of the session. */
export async function signIn(
  t: TestApp,
  email: string,
  password = PASSWORD,
): Promise<{ cookie: string; csrf: string; body: any }> {
  const answer = await t.call('POST', '/v1/session', { key: null, body: { email, password } });
  if (answer.status !== 200)
    throw new Error(`sign-in failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { cookie: cookieOf(answer.headers), csrf: answer.body.data.csrfToken, body: answer.body };
}

/**
 * Gives the user `name` of the database at `databaseUrl` (made by `keys create --user`, so a member
 * already) an email and PASSWORD, as for a running service's tests (the system and console suites).
 */
export async function givePassword(databaseUrl: string, name: string, email: string): Promise<void> {
  // The cost the test services run with (service-process.ts).
  const config = loadConfig({ DATABASE_URL: databaseUrl, PASSWORD_SCRYPT_N: '1024' });
  const database = openDatabase(config);
  try {
    const users = createUsersService({
      db: database.db,
      store: createUsersStore(database.db),
      signals: database.signals,
      forget: () => {},
      passwordScryptN: config.passwordScryptN,
    });
    await database.db
      .transaction()
      .execute((trx) => users.create(trx, { email, name, password: PASSWORD }, Date.now()));
  } finally {
    await database.close();
  }
}
