// Password resets as an attacker would try them, on both databases: an admin's link works once,
// within its hour, is stored only hashed, ends every session of the person; no admin makes a link for
// someone they do not administer everywhere (nor an admin for an owner); "forgot password" answers
// alike for any address and, without SMTP_URL, makes and sends nothing. The clock is moved.
import { hash } from 'node:crypto';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { at, expectError } from '../helpers/fixtures.js';
import { addPerson, PASSWORD, signIn } from '../helpers/people.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const NEW_PASSWORD = 'another horse battery staple';
const LINK = /^http:\/\/localhost(:\d+)?\/#\/reset\?token=([A-Za-z0-9_-]{43})$/;
const tokenOf = (link: string) => (LINK.exec(link) as RegExpExecArray)[2] as string;

forEachDatabase((db) => {
  const clock = { now: Date.now() };
  let log = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      log += chunk.toString();
      done();
    },
  });
  const t = useTestApp({ db, now: () => clock.now, logger: { level: 'trace', stream } });
  let serial = 0;
  const email = (who: string) => `${who}.${db}.${++serial}@example.com`;
  const secrets: string[] = [PASSWORD, NEW_PASSWORD];
  const keys = { ownerAdmin: '', admin: '', otherAdmin: '' };

  beforeAll(async () => {
    const admin = (workspace: string, user: string) =>
      t.keysService.issue(workspace, user, { scope: 'admin', expiresAt: null, name: null });
    keys.ownerAdmin = (await admin('acme', 'alice')).key;
    keys.admin = (await admin('acme', 'dave')).key;
    keys.otherAdmin = (await admin('other', 'carol')).key;
  });

  async function resetLink(userId: string, key = keys.admin) {
    const reply = await t.call('POST', `/v1/members/${userId}/reset`, { key });
    if (reply.status === 201) secrets.push(tokenOf(reply.body.data.link));
    return reply;
  }

  const reset = (token: string, password = NEW_PASSWORD) =>
    t.call('POST', '/v1/password/reset', { key: null, body: { token, password } });

  describe("an admin's link", () => {
    it('is stored only hashed, sets the password once and ends every session of the person', async () => {
      const person = await addPerson(t, email('bob'));
      const session = await signIn(t, person.email);
      const made = await resetLink(person.id);
      expect(made.status).toBe(201);
      expect(made.headers['cache-control']).toBe('no-store');
      expect(made.body.data).toMatchObject({ userId: person.id, mailed: false });
      expect(made.body.data.expiresAt).toBe(clock.now + 3600_000);
      const token = tokenOf(made.body.data.link);
      const rows = await t.database.db.selectFrom('password_resets').selectAll().execute();
      expect(rows.find((r) => r.user_id === person.id)?.token_hash).toBe(hash('sha256', token, 'hex'));
      expect(JSON.stringify(rows)).not.toContain(token);

      expect((await reset(token)).body).toEqual({ success: true, message: 'Password changed' });
      // The session opened before is over, at once.
      expectError(
        await t.call('GET', '/v1/session', { key: null, headers: { cookie: session.cookie } }),
        'SESSION_INVALID',
      );
      expectError(
        await t.call('POST', '/v1/session', { key: null, body: { email: person.email, password: PASSWORD } }),
        'INVALID_CREDENTIALS',
      );
      expect((await signIn(t, person.email, NEW_PASSWORD)).body.data.user.id).toBe(person.id);
      expectError(await reset(token, 'yet another long password'), 'LINK_INVALID');
    });

    it('expires after an hour, and a used link ends the others', async () => {
      const person = await addPerson(t, email('cy'));
      const late = tokenOf((await resetLink(person.id)).body.data.link);
      clock.now += 3600_000;
      try {
        expectError(await reset(late), 'LINK_INVALID');
      } finally {
        clock.now -= 3600_000;
      }
      const first = tokenOf((await resetLink(person.id)).body.data.link);
      const second = tokenOf((await resetLink(person.id)).body.data.link);
      expect((await reset(second)).status).toBe(200);
      expectError(await reset(first), 'LINK_INVALID');
      expectError(await reset('A'.repeat(43)), 'LINK_INVALID');
    });

    it('is made by admins of every workspace of the person only, and by owners for owners', async () => {
      // A member of acme who also belongs to other, where dave is no admin.
      const shared = await addPerson(t, email('dee'));
      const other = await t.database.db
        .selectFrom('workspaces')
        .select('id')
        .where('name', '=', 'other')
        .executeTakeFirstOrThrow();
      await t.database.db
        .insertInto('memberships')
        .values({ workspace_id: other.id, user_id: shared.id, role: 'viewer', created_at: clock.now })
        .execute();
      expectError(await resetLink(shared.id), 'UNAUTHORIZED_ACTION', [
        { path: '', message: expect.stringMatching(/workspace you do not administer/) },
      ]);
      const owner = await addPerson(t, email('eve'), { role: 'owner' });
      expectError(await resetLink(owner.id), 'UNAUTHORIZED_ACTION', [
        { path: '', message: 'only an owner can reset the password of an owner' },
      ]);
      expect((await resetLink(owner.id, keys.ownerAdmin)).status).toBe(201);
      // Another workspace's member is not found; a key-made user has no email to sign in with.
      expectError(await resetLink(shared.id, keys.otherAdmin), 'UNAUTHORIZED_ACTION', [at('')]);
      expectError(await resetLink(owner.id, keys.otherAdmin), 'MEMBER_NOT_FOUND');
      expectError(await resetLink(t.teammate.userId), 'USER_CANNOT_SIGN_IN', [at('')]);
      expectError(await resetLink(owner.id, t.teammate.key), 'UNAUTHORIZED_ACTION', [at('')]);
    });

    it('refuses a short password before using the link', async () => {
      const person = await addPerson(t, email('fay'));
      const token = tokenOf((await resetLink(person.id)).body.data.link);
      expectError(await reset(token, 'short'), 'PASSWORD_RESET_PAYLOAD_INVALID', [
        { path: '/password', message: expect.any(String) },
      ]);
      expect((await reset(token)).status).toBe(200);
    });
  });

  describe('forgot password, without SMTP_URL', () => {
    it('answers alike for a known and an unknown address, and makes no link', async () => {
      const person = await addPerson(t, email('gus'));
      const before = await t.database.db.selectFrom('password_resets').select('id').execute();
      const bodies = new Set<string>();
      for (const address of [person.email, email('nobody')]) {
        const reply = await t.call('POST', '/v1/password/forgot', { key: null, body: { email: address } });
        expect(reply.status).toBe(202);
        const { requestId: _, ...rest } = reply.body;
        bodies.add(JSON.stringify(rest));
      }
      expect([...bodies]).toEqual([
        JSON.stringify({
          success: true,
          message: 'If this address has an account, a reset link is on its way',
        }),
      ]);
      expect(await t.database.db.selectFrom('password_resets').select('id').execute()).toEqual(before);
      expectError(
        await t.call('POST', '/v1/password/forgot', { key: null, body: { email: 'not an address' } }),
        'PASSWORD_RESET_PAYLOAD_INVALID',
        [{ path: '/email', message: expect.any(String) }],
      );
    });
  });

  it('writes no password and no link token to any log line', () => {
    expect(log.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
