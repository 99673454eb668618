// Invites and the setup link, as an attacker would try them, on both databases: a link works once
// (also when two acceptances race), expires, can be revoked, is stored only hashed and appears in no
// log line; only admins invite (only owners invite owners), each in their own workspace; accepting
// never opens an existing account without its password, nor adopts another user by name. The clock is
// moved, never slept on.
import { hash } from 'node:crypto';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSetupInvite } from '../../src/modules/invites/invites-service.js';
import { createInvitesStore } from '../../src/modules/invites/invites-store.js';
import { at, expectError } from '../helpers/fixtures.js';
import { addPerson, cookieOf, PASSWORD, signIn } from '../helpers/people.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const DAY = 24 * 3600_000;
const NEW_PASSWORD = 'a brand new password of mine';
const LINK = /^http:\/\/localhost(:\d+)?\/#\/accept\?token=([A-Za-z0-9_-]{43})$/;

/** The token inside an invite link. */
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
  /** Every secret the tests handle: none may reach a log line. */
  const secrets: string[] = [PASSWORD, NEW_PASSWORD];
  const keys = { ownerAdmin: '', admin: '', viewer: '', otherAdmin: '' };

  beforeAll(async () => {
    const admin = (workspace: string, user: string) =>
      t.keysService.issue(workspace, user, { scope: 'admin', expiresAt: null, name: null });
    keys.ownerAdmin = (await admin('acme', 'alice')).key;
    keys.admin = (await admin('acme', 'dave')).key;
    keys.viewer = (
      await t.keysService.issue('acme', 'vera', { scope: 'read', expiresAt: null, name: null })
    ).key;
    keys.otherAdmin = (await admin('other', 'carol')).key;
  });

  async function invite(address: string, role = 'editor', key = keys.admin) {
    const reply = await t.call('POST', '/v1/invites', { key, body: { email: address, role } });
    if (reply.status === 201) secrets.push(tokenOf(reply.body.data.link));
    return reply;
  }

  const accept = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.call('POST', '/v1/invites/accept', { key: null, body, headers });

  describe('making, listing and revoking', () => {
    it('answers the link once, stores only its hash, and lists the invite without it', async () => {
      const to = email('bob');
      const made = await invite(to.toUpperCase());
      expect(made.status).toBe(201);
      expect(made.headers['cache-control']).toBe('no-store');
      expect(made.body.data).toMatchObject({ email: to, role: 'editor', mailed: false });
      expect(made.body.data.expiresAt - made.body.data.createdAt).toBe(7 * DAY);
      const token = tokenOf(made.body.data.link);
      const rows = await t.database.db.selectFrom('invites').selectAll().execute();
      const row = rows.find((r) => r.id === made.body.data.id);
      expect(row?.token_hash).toBe(hash('sha256', token, 'hex'));
      expect(JSON.stringify(rows)).not.toContain(token);

      const listed = await t.call('GET', '/v1/invites', { key: keys.admin });
      expect(listed.status).toBe(200);
      const mine = listed.body.data.find((i: { id: string }) => i.id === made.body.data.id);
      expect(mine).toEqual({
        id: made.body.data.id,
        email: to,
        role: 'editor',
        createdBy: made.body.data.createdBy,
        createdAt: made.body.data.createdAt,
        expiresAt: made.body.data.expiresAt,
      });
      expect(JSON.stringify(listed.body)).not.toContain(token);
    });

    it('lets no viewer or editor invite, and no admin invite an owner', async () => {
      expectError(await invite(email('x'), 'viewer', keys.viewer), 'UNAUTHORIZED_ACTION', [
        { path: '', message: expect.stringMatching(/scope is read|viewer/) },
      ]);
      expectError(await invite(email('x'), 'viewer', t.teammate.key), 'UNAUTHORIZED_ACTION', [
        { path: '', message: expect.stringMatching(/write|editor/) },
      ]);
      expectError(await invite(email('x'), 'owner', keys.admin), 'UNAUTHORIZED_ACTION', [
        { path: '/role', message: 'only an owner can invite an owner' },
      ]);
      expect((await invite(email('x'), 'owner', keys.ownerAdmin)).status).toBe(201);
      expectError(await t.call('GET', '/v1/invites', { key: keys.viewer }), 'UNAUTHORIZED_ACTION', [at('')]);
    });

    it('keeps each workspace to its own: another admin neither lists nor revokes an invite', async () => {
      const made = await invite(email('frank'));
      const theirs = await t.call('GET', '/v1/invites', { key: keys.otherAdmin });
      expect(theirs.body.data.map((i: { id: string }) => i.id)).not.toContain(made.body.data.id);
      expectError(
        await t.call('DELETE', `/v1/invites/${made.body.data.id}`, { key: keys.otherAdmin }),
        'INVITE_NOT_FOUND',
      );
      expectError(
        await t.call('DELETE', '/v1/invites/inv_nosuchinvite00', { key: keys.admin }),
        'INVITE_NOT_FOUND',
      );
      expectError(await t.call('DELETE', '/v1/invites/not-an-id', { key: keys.admin }), 'INVITE_NOT_FOUND');
      const revoked = await t.call('DELETE', `/v1/invites/${made.body.data.id}`, { key: keys.admin });
      expect(revoked.body).toEqual({ success: true, message: 'Invite revoked' });
      const listed = await t.call('GET', '/v1/invites', { key: keys.admin });
      expect(listed.body.data.map((i: { id: string }) => i.id)).not.toContain(made.body.data.id);
      expectError(
        await accept({ token: tokenOf(made.body.data.link), password: NEW_PASSWORD }),
        'LINK_INVALID',
      );
    });

    it('refuses to invite a member, and a new invite of an address replaces the pending one', async () => {
      const member = await addPerson(t, email('gina'));
      expectError(await invite(member.email), 'MEMBER_EXISTS');
      const to = email('hank');
      const first = await invite(to);
      const second = await invite(to);
      expectError(
        await accept({ token: tokenOf(first.body.data.link), password: NEW_PASSWORD }),
        'LINK_INVALID',
      );
      expect((await accept({ token: tokenOf(second.body.data.link), password: NEW_PASSWORD })).status).toBe(
        200,
      );
    });

    it('refuses a body that is not an invite, naming each problem', async () => {
      expectError(
        await t.call('POST', '/v1/invites', { key: keys.admin, body: { email: 'nope', role: 'boss', x: 1 } }),
        'INVITE_PAYLOAD_INVALID',
        [
          { path: '/email', message: expect.any(String) },
          { path: '/role', message: expect.any(String) },
          { path: '/x', message: expect.any(String) },
        ],
      );
    });
  });

  describe('accepting', () => {
    it('makes the account, adds the membership with the role, and signs the person in', async () => {
      const to = email('ivy');
      const made = await invite(to, 'viewer');
      const answer = await accept({
        token: tokenOf(made.body.data.link),
        name: 'Ivy',
        password: NEW_PASSWORD,
      });
      expect(answer.status).toBe(200);
      expect(String(answer.headers['set-cookie'])).toMatch(/^rk_session=[A-Za-z0-9_-]{43};.*HttpOnly/);
      expect(answer.body.data).toMatchObject({
        user: { name: 'Ivy', email: to },
        workspaces: [{ name: 'acme', role: 'viewer' }],
      });
      expect(JSON.stringify(answer.body)).not.toContain(NEW_PASSWORD);
      // The cookie is a session like any other, and the password signs in.
      const session = await t.call('GET', '/v1/session', {
        key: null,
        headers: { cookie: cookieOf(answer.headers) },
      });
      expect(session.body.data.user.email).toBe(to);
      expect((await signIn(t, to, NEW_PASSWORD)).body.data.workspaces).toEqual([
        expect.objectContaining({ name: 'acme', role: 'viewer' }),
      ]);
      const members = await t.call('GET', '/v1/members', { key: keys.admin });
      expect(members.body.data).toContainEqual(expect.objectContaining({ name: 'Ivy', role: 'viewer' }));
      // Once.
      expectError(
        await accept({ token: tokenOf(made.body.data.link), password: NEW_PASSWORD }),
        'LINK_INVALID',
      );
    });

    it('answers an unknown, used, revoked or expired link alike, saying nothing more', async () => {
      const made = await invite(email('jack'));
      const token = tokenOf(made.body.data.link);
      clock.now += 7 * DAY + 1;
      try {
        const expired = await accept({ token, password: NEW_PASSWORD });
        const unknown = await accept({ token: 'A'.repeat(43), password: NEW_PASSWORD });
        expectError(expired, 'LINK_INVALID');
        expectError(unknown, 'LINK_INVALID');
        const { requestId: _a, ...one } = expired.body;
        const { requestId: _b, ...other } = unknown.body;
        expect(one).toEqual(other);
        expect(one.details).toBeUndefined();
      } finally {
        clock.now -= 7 * DAY + 1;
      }
      // Not expired a millisecond before.
      expect((await accept({ token, password: NEW_PASSWORD })).status).toBe(200);
    });

    it('of two acceptances at once, exactly one wins', async () => {
      const to = email('kim');
      const token = tokenOf((await invite(to)).body.data.link);
      const answers = await Promise.all([
        accept({ token, name: 'Kim one', password: NEW_PASSWORD }),
        accept({ token, name: 'Kim two', password: NEW_PASSWORD }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 410]);
      const users = await t.database.db.selectFrom('users').select('id').where('email', '=', to).execute();
      expect(users).toHaveLength(1);
    });

    it('opens an existing account only with its password, and keeps that password', async () => {
      const elsewhere = await addPerson(t, email('lou'), { workspace: 'other', role: 'editor' });
      const token = tokenOf((await invite(elsewhere.email, 'admin')).body.data.link);
      expectError(await accept({ token, password: NEW_PASSWORD, name: 'Taken over' }), 'INVALID_CREDENTIALS');
      // The failed proof used nothing: the owner of the account still can.
      const answer = await accept({ token, password: PASSWORD, name: 'ignored' });
      expect(answer.status).toBe(200);
      expect(answer.body.data.user).toEqual({
        id: elsewhere.id,
        name: elsewhere.email,
        email: elsewhere.email,
      });
      const roles = answer.body.data.workspaces.map(
        (w: { name: string; role: string }) => `${w.name} ${w.role}`,
      );
      expect(roles.sort()).toEqual(['acme admin', 'other editor']);
      expect((await signIn(t, elsewhere.email, PASSWORD)).body.data.user.id).toBe(elsewhere.id);
    });

    it('never gives a link holder a user of the name they choose (a key-made user without an email)', async () => {
      const token = tokenOf((await invite(email('mo'))).body.data.link);
      expectError(await accept({ token, name: 'alice', password: NEW_PASSWORD }), 'USER_EXISTS', [
        { path: '/name', message: 'this name is taken' },
      ]);
      const alice = await t.database.db
        .selectFrom('users')
        .select(['email', 'password_hash'])
        .where('name', '=', 'alice')
        .executeTakeFirstOrThrow();
      expect(alice).toEqual({ email: null, password_hash: null });
      expect((await accept({ token, name: 'Mo', password: NEW_PASSWORD })).status).toBe(200);
    });

    it('refuses a short password, an email that is not the invite’s, and another site', async () => {
      const token = tokenOf((await invite(email('ned'))).body.data.link);
      expectError(await accept({ token, password: 'short' }), 'USER_PAYLOAD_INVALID', [
        { path: '/password', message: 'must be 12 to 256 characters' },
      ]);
      expectError(
        await accept({ token, email: 'someone.else@example.com', password: NEW_PASSWORD }),
        'INVITE_PAYLOAD_INVALID',
        [{ path: '/email', message: 'this invite is for another address: leave email out' }],
      );
      expectError(
        await accept({ token, password: NEW_PASSWORD }, { origin: 'https://evil.example' }),
        'CSRF_REFUSED',
        [{ path: '', message: 'the request comes from another origin' }],
      );
      expectError(await accept({ password: NEW_PASSWORD }), 'INVITE_PAYLOAD_INVALID', [
        { path: '/token', message: expect.any(String) },
      ]);
      expect((await accept({ token, password: NEW_PASSWORD })).status).toBe(200);
    });

    it('records the invite made and accepted in the activity, without its token', async () => {
      const to = email('olga');
      const made = await invite(to);
      await accept({ token: tokenOf(made.body.data.link), password: NEW_PASSWORD });
      const activity = await t.call('GET', `/v1/activity?object=${made.body.data.id}`, { key: keys.admin });
      expect(activity.body.data.map((e: { kind: string }) => e.kind).sort()).toEqual([
        'invite_accepted',
        'invite_created',
      ]);
      expect(JSON.stringify(activity.body)).not.toContain(tokenOf(made.body.data.link));
    });
  });

  describe('the setup link', () => {
    const setupLink = async () =>
      (
        await createSetupInvite(
          { db: t.database.db, store: createInvitesStore(t.database.db) },
          t.owner.workspaceId,
          clock.now,
        )
      ).token;

    it('makes the first owner with the email chosen as it is accepted, once, for 24 hours', async () => {
      const token = await setupLink();
      secrets.push(token);
      expectError(await accept({ token, password: NEW_PASSWORD }), 'INVITE_PAYLOAD_INVALID', [
        { path: '/email', message: "the setup link needs the first owner's email" },
      ]);
      const owner = email('pat');
      const answer = await accept({ token, email: owner, password: NEW_PASSWORD });
      expect(answer.status).toBe(200);
      expect(answer.body.data.workspaces).toEqual([expect.objectContaining({ name: 'acme', role: 'owner' })]);
      expectError(await accept({ token, email: email('quinn'), password: NEW_PASSWORD }), 'LINK_INVALID');

      const late = await setupLink();
      secrets.push(late);
      clock.now += DAY;
      try {
        expectError(
          await accept({ token: late, email: email('rae'), password: NEW_PASSWORD }),
          'LINK_INVALID',
        );
      } finally {
        clock.now -= DAY;
      }
    });
  });

  it('writes no password and no link token to any log line', async () => {
    expect(log.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
