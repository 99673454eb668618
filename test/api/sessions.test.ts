// People sign in with an email and a password and get a session cookie that every /v1 route takes as
// it takes a key; changes made with it need its CSRF token and a same-origin Origin; sign-in failures
// are limited per account and per address; sessions end on sign-out (here or everywhere), on expiry and
// when their user is disabled. Both databases; the clock is moved, never slept on.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import { createUsersService } from '../../src/modules/users/users-service.js';
import { createUsersStore } from '../../src/modules/users/users-store.js';
import { createKeys } from '../../src/services.js';
import { expectError } from '../helpers/fixtures.js';
import { addPerson, cookieOf, PASSWORD, signIn } from '../helpers/people.js';
import { buildTestApp, forEachDatabase, type TestApp, useTestApp } from '../helpers/test-app.js';

const cancel = (name: string) => ({
  name,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
});

const DAY = 24 * 3600_000;
const NEEDS_CSRF = {
  path: '',
  message: "a change made with a session needs the session's CSRF token in x-rk-csrf",
};

/** A request with a session cookie (and no key), with the CSRF token when given. */
function withSession(
  t: TestApp,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  session: { cookie: string; csrf?: string },
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return t.call(method, url, {
    key: null,
    body: options.body,
    headers: {
      cookie: session.cookie,
      ...(session.csrf === undefined ? {} : { 'x-rk-csrf': session.csrf }),
      ...options.headers,
    },
  });
}

/** A sign-in attempt from `address`. */
async function attempt(t: TestApp, email: string, password: string, address = '127.0.0.1') {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/session',
    remoteAddress: address,
    payload: { email, password },
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

forEachDatabase((db) => {
  const clock = { now: Date.now() };
  const t = useTestApp({ db, now: () => clock.now });
  let serial = 0;
  const email = (who: string) => `${who}.${db}.${++serial}@example.com`;

  describe('signing in', () => {
    it('sets an HttpOnly, SameSite=Lax cookie and answers the person, their workspaces and a CSRF token', async () => {
      const alice = await addPerson(t, email('Alice'), { role: 'owner' });
      const answer = await t.call('POST', '/v1/session', {
        key: null,
        body: { email: alice.email.toUpperCase(), password: PASSWORD },
      });
      expect(answer.status).toBe(200);
      const cookie = String(answer.headers['set-cookie']);
      expect(cookie).toMatch(/^rk_session=[A-Za-z0-9_-]{43};/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      expect(answer.body.data).toMatchObject({
        user: { id: alice.id, email: alice.email.toLowerCase() },
        workspaces: [{ name: 'acme', role: 'owner' }],
      });
      expect(typeof answer.body.data.csrfToken).toBe('string');
      // Neither the password nor any hash comes back.
      expect(JSON.stringify(answer.body)).not.toMatch(/scrypt|correct horse/);
    });

    it('stores the session only as a hash of its cookie', async () => {
      const bob = await addPerson(t, email('bob'));
      const { cookie } = await signIn(t, bob.email);
      const token = cookie.split('=')[1] as string;
      const rows = await t.database.db.selectFrom('sessions').select(['id', 'token_hash']).execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.token_hash).not.toBe(token);
        expect(row.id).not.toContain(token);
      }
    });

    it('refuses a body that is not an email and a password, and sets no cookie', async () => {
      const reply = await t.call('POST', '/v1/session', { key: null, body: { email: 'a@b.example' } });
      expectError(reply, 'SIGN_IN_PAYLOAD_INVALID', [{ path: '/password', message: expect.any(String) }]);
      expect(reply.headers['set-cookie']).toBeUndefined();
    });

    it('a session id set before sign-in is not the one after, and ends', async () => {
      const dave = await addPerson(t, email('dave'));
      const planted = await signIn(t, dave.email);
      const answer = await t.call('POST', '/v1/session', {
        key: null,
        body: { email: dave.email, password: PASSWORD },
        headers: { cookie: planted.cookie },
      });
      const after = cookieOf(answer.headers);
      expect(after).not.toBe(planted.cookie);
      expectError(await withSession(t, 'GET', '/v1/rules', planted), 'SESSION_INVALID');
      expect((await withSession(t, 'GET', '/v1/rules', { cookie: after })).status).toBe(200);
    });

    it('a sign-in from another origin is refused', async () => {
      const erin = await addPerson(t, email('erin'));
      const reply = await t.call('POST', '/v1/session', {
        key: null,
        body: { email: erin.email, password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      });
      expectError(reply, 'CSRF_REFUSED', [{ path: '', message: 'the request comes from another origin' }]);
      expect(reply.headers['set-cookie']).toBeUndefined();
    });
  });

  describe('at the real cost of a password hash (2^15: the other tests use 2^10)', () => {
    const real = useTestApp({ db, env: { PASSWORD_SCRYPT_N: '32768' } });
    it('an unknown email and a wrong password get the same answer, in about the same time', async () => {
      const carol = await addPerson(real, email('carol'));
      const unknown: number[] = [];
      const wrong: number[] = [];
      const bodies = new Set<string>();
      for (let i = 0; i < 3; i++) {
        for (const [times, who] of [
          [unknown, `nobody.${i}.${db}@example.com`],
          [wrong, carol.email],
        ] as const) {
          const started = performance.now();
          const reply = await real.call('POST', '/v1/session', {
            key: null,
            body: { email: who, password: 'not the password at all' },
          });
          times.push(performance.now() - started);
          expectError(reply, 'INVALID_CREDENTIALS');
          const { requestId: _, ...rest } = reply.body;
          bodies.add(JSON.stringify(rest));
        }
      }
      expect(bodies.size).toBe(1);
      // Both verify a scrypt hash (an unknown email a decoy's): neither is a fraction of the other. A
      // loaded machine slows both alike; the bound is wide so that only a skipped hash fails it.
      expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) * 0.3);
    });
  });

  describe('a session acts as a key of its role', () => {
    let editor: { cookie: string; csrf: string };
    beforeAll(async () => {
      const person = await addPerson(t, email('editor'));
      editor = await signIn(t, person.email);
    });

    it('reads as a key reads, and GET /v1/session describes it', async () => {
      const viaKey = await t.call('GET', '/v1/rules?pageSize=1');
      const viaSession = await withSession(t, 'GET', '/v1/rules?pageSize=1', editor);
      expect(viaSession.status).toBe(200);
      expect(viaSession.body.total).toBe(viaKey.body.total);
      const session = await withSession(t, 'GET', '/v1/session', editor);
      expect(session.body.data.workspaces).toEqual([
        expect.objectContaining({ name: 'acme', role: 'editor' }),
      ]);
    });

    it('a change needs the CSRF token: without it, or with another, it is refused and nothing changes', async () => {
      const before = (await t.call('GET', '/v1/rules?pageSize=1')).body.total;
      const missing = await withSession(
        t,
        'POST',
        '/v1/rules',
        { cookie: editor.cookie },
        { body: cancel('x') },
      );
      expectError(missing, 'CSRF_REFUSED', [NEEDS_CSRF]);
      const other = await signIn(t, (await addPerson(t, email('other'))).email);
      const forged = await withSession(
        t,
        'POST',
        '/v1/rules',
        { cookie: editor.cookie, csrf: other.csrf },
        { body: cancel('x') },
      );
      expectError(forged, 'CSRF_REFUSED', [NEEDS_CSRF]);
      const crossSite = await withSession(t, 'POST', '/v1/rules', editor, {
        body: cancel('x'),
        headers: { origin: 'https://evil.example' },
      });
      expectError(crossSite, 'CSRF_REFUSED', [
        { path: '', message: 'the request comes from another origin' },
      ]);
      expect((await t.call('GET', '/v1/rules?pageSize=1')).body.total).toBe(before);
      const made = await withSession(t, 'POST', '/v1/rules', editor, {
        body: cancel('made with a session'),
        headers: { origin: 'http://localhost:80' },
      });
      expect(made.status).toBe(201);
    });

    it("a viewer's session is refused a change, naming the role", async () => {
      const viewer = await signIn(t, (await addPerson(t, email('viewer'), { role: 'viewer' })).email);
      const refused = await withSession(t, 'POST', '/v1/rules', viewer, { body: cancel('no') });
      expectError(refused, 'UNAUTHORIZED_ACTION', [
        { path: '', message: 'your role in this workspace is viewer: it cannot change rules or groups' },
      ]);
    });

    it("a viewer's session is refused every operation that needs more than reading, with its CSRF token, and nothing changes", async () => {
      const viewer = await signIn(t, (await addPerson(t, email('reviewer'), { role: 'viewer' })).email);
      const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
      const before = (await t.call('GET', '/v1/rules?pageSize=1')).body.total;
      let refused = 0;
      for (const [template, methods] of Object.entries<
        Record<string, { security?: { apiKey?: string[] }[] }>
      >(document.paths))
        for (const [method, operation] of Object.entries(methods)) {
          const needs = operation.security?.[0]?.apiKey?.[0];
          if (needs === undefined || needs === 'read') continue;
          // The role is checked right after the caller, before any id or body: placeholders do.
          const url = template.replace(/\{[^}]+\}/g, 'Placeholder_1');
          const reply = await withSession(t, method.toUpperCase() as 'POST', url, viewer, { body: {} });
          expectError(reply, 'UNAUTHORIZED_ACTION', [
            {
              path: '',
              message: expect.stringMatching(/^your role in this workspace is viewer: it cannot /),
            },
          ]);
          refused++;
        }
      // Rules, groups, their restores, import, members: every one that changes something.
      expect(refused).toBeGreaterThanOrEqual(11);
      expect((await t.call('GET', '/v1/rules?pageSize=1')).body.total).toBe(before);
    });

    it('x-rk-workspace picks a workspace the person belongs to, and no other', async () => {
      const person = await addPerson(t, email('two'), { role: 'viewer' });
      const session = await signIn(t, person.email);
      const other = (await t.call('GET', '/v1/whoami', { key: t.outsider.key })).body.data.workspace.id;
      const refused = await withSession(t, 'GET', '/v1/rules', session, {
        headers: { 'x-rk-workspace': other },
      });
      expectError(refused, 'UNAUTHORIZED_ACTION', [
        { path: '', message: `you are not a member of workspace ${other} (x-rk-workspace)` },
      ]);
      expectError(
        await withSession(t, 'GET', '/v1/rules', session, { headers: { 'x-rk-workspace': "'; drop table" } }),
        'UNAUTHORIZED_ACTION',
        [{ path: '', message: 'x-rk-workspace must be the id of a workspace you are a member of' }],
      );
    });

    it('GET /v1/whoami answers a session as it answers a key: its person, role and workspace, and no key', async () => {
      const who = await withSession(t, 'GET', '/v1/whoami', editor);
      expect(who.status).toBe(200);
      expect(who.body.data).toMatchObject({
        key: null,
        user: { role: 'editor' },
        workspace: { name: 'acme' },
      });
    });

    it('an API key has no session to show', async () => {
      expectError(await t.call('GET', '/v1/session'), 'SESSION_REQUIRED');
    });

    it('a session cookie that was never issued is refused', async () => {
      expectError(
        await withSession(t, 'GET', '/v1/rules', { cookie: `rk_session=${'A'.repeat(43)}` }),
        'SESSION_INVALID',
      );
      expectError(
        await withSession(t, 'GET', '/v1/rules', { cookie: 'rk_session=short' }),
        'SESSION_INVALID',
      );
    });
  });

  describe('sessions end', () => {
    it('on sign-out, which needs the CSRF token and clears the cookie', async () => {
      const person = await addPerson(t, email('leaver'));
      const session = await signIn(t, person.email);
      expectError(await withSession(t, 'DELETE', '/v1/session', { cookie: session.cookie }), 'CSRF_REFUSED', [
        NEEDS_CSRF,
      ]);
      const out = await withSession(t, 'DELETE', '/v1/session', session);
      expect(out.body).toStrictEqual({ success: true, message: 'Signed out' });
      expect(String(out.headers['set-cookie'])).toMatch(/^rk_session=;.*Expires=Thu, 01 Jan 1970/);
      expectError(await withSession(t, 'GET', '/v1/rules', session), 'SESSION_INVALID');
    });

    it('everywhere at once with ?everywhere=true', async () => {
      const person = await addPerson(t, email('everywhere'));
      const laptop = await signIn(t, person.email);
      const phone = await signIn(t, person.email);
      expect((await withSession(t, 'GET', '/v1/rules', phone)).status).toBe(200);
      await withSession(t, 'DELETE', '/v1/session?everywhere=true', laptop);
      expectError(await withSession(t, 'GET', '/v1/rules', phone), 'SESSION_INVALID');
    });

    it('on another instance too, which remembered the session, as soon as it hears of it', async () => {
      // A second instance on the same database, remembering sessions for an hour.
      const config = loadConfig({
        DATABASE_URL: t.config.databaseUrl,
        RATE_LIMIT_PER_MINUTE: '0',
        KEY_CACHE_TTL_MS: '3600000',
      });
      const database = openDatabase(config);
      await migrate(database);
      const other = await buildApp({
        config,
        database,
        keysService: createKeys(database, config),
        logger: false,
      });
      try {
        await other.ready();
        const person = await addPerson(t, email('travelling'));
        const session = await signIn(t, person.email);
        const read = async () =>
          (await other.inject({ method: 'GET', url: '/v1/rules', headers: { cookie: session.cookie } }))
            .statusCode;
        expect(await read()).toBe(200); // now in its cache
        await withSession(t, 'DELETE', '/v1/session?everywhere=true', session);
        // Heard through the access signal (PostgreSQL's NOTIFY, SQLite's data_version), not the hour.
        // A remembered session answers without awaiting anything: each round lets the event loop
        // turn once (setImmediate), or the signal's timer would never get its turn.
        let status = 200;
        for (const deadline = Date.now() + 10_000; status !== 401 && Date.now() < deadline; ) {
          await new Promise((resolve) => setImmediate(resolve));
          status = await read();
        }
        expect(status).toBe(401);
      } finally {
        await other.close();
        await database.close();
      }
    });

    it('when their user is disabled, who then cannot sign in either', async () => {
      const person = await addPerson(t, email('disabled'));
      const session = await signIn(t, person.email);
      const { db: database } = t.database;
      const users = createUsersService({
        db: database,
        store: createUsersStore(database),
        signals: t.database.signals,
        forget: () => {},
      });
      expect(await users.disable(person.email)).toBe(true);
      // The app's own cache hears it through the access signal; within KEY_CACHE_TTL_MS at worst.
      clock.now += t.config.keyCacheTtlMs + 1;
      expectError(await withSession(t, 'GET', '/v1/rules', session), 'SESSION_INVALID');
      expectError(
        await t.call('POST', '/v1/session', { key: null, body: { email: person.email, password: PASSWORD } }),
        'INVALID_CREDENTIALS',
      );
    });

    it('after 7 days unused, and after 30 days however used', async () => {
      const person = await addPerson(t, email('idle'));
      const idle = await signIn(t, person.email);
      clock.now += 7 * DAY + 1;
      expectError(await withSession(t, 'GET', '/v1/rules', idle), 'SESSION_INVALID');

      const busy = await signIn(t, person.email);
      for (let day = 0; day < 4; day++) {
        clock.now += 6 * DAY;
        expect((await withSession(t, 'GET', '/v1/rules', busy)).status).toBe(200);
      }
      clock.now += 5 * DAY;
      expect((await withSession(t, 'GET', '/v1/rules', busy)).status).toBe(200);
      clock.now += 1 * DAY;
      expectError(await withSession(t, 'GET', '/v1/rules', busy), 'SESSION_INVALID');
    });
  });

  describe('the activity', () => {
    it("shows a member's sign-ins, failed sign-ins and sign-outs to the workspace's admins, with the address", async () => {
      const person = await addPerson(t, email('watched'));
      // The clock stands still unless moved: each step a second later, so that their order is plain.
      await attempt(t, person.email, 'not it', '10.3.3.3');
      clock.now += 1000;
      const session = await signIn(t, person.email);
      clock.now += 1000;
      await withSession(t, 'DELETE', '/v1/session', session);
      const admin = await t.keysService.issue('acme', 'alice', {
        scope: 'admin',
        expiresAt: null,
        name: null,
      });
      const seen = await t.call('GET', `/v1/activity?actor=${person.id}`, { key: admin.key });
      expect(
        seen.body.data.map((entry: { kind: string; via: { type: string } | null }) => [
          entry.kind,
          entry.via?.type,
        ]),
      ).toEqual([
        ['sign_out', 'session'],
        ['sign_in', 'session'],
        ['sign_in_failed', 'session'],
      ]);
      expect(seen.body.data[2].address).toBe('10.3.3.3');
      // Nothing of the password or the cookie is kept in it.
      expect(JSON.stringify(seen.body)).not.toContain(session.cookie.split('=')[1]);
      expect(JSON.stringify(seen.body)).not.toContain('not it');
    });
  });

  describe('failed sign-ins are limited', () => {
    it('per account: the 11th in 15 minutes is refused, the right password too, until the oldest ages out', async () => {
      const person = await addPerson(t, email('guessed'));
      for (let i = 0; i < 10; i++) {
        const reply = await attempt(t, person.email, `wrong ${i}`, `10.0.${serial}.${i}`);
        expect(reply.status).toBe(401);
      }
      const limited = await attempt(t, person.email, PASSWORD, '10.9.9.9');
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('SIGN_IN_LIMITED');
      const wait = Number(limited.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(15 * 60);
      clock.now += wait * 1000;
      expect((await attempt(t, person.email, PASSWORD, '10.9.9.9')).status).toBe(200);
    });

    it('per address: the 11th failure from one address is refused, whatever the email', async () => {
      const person = await addPerson(t, email('neighbour'));
      const address = `10.1.${serial}.1`;
      for (let i = 0; i < 10; i++)
        expect((await attempt(t, `guess.${i}.${db}@example.com`, 'wrong', address)).status).toBe(401);
      expect((await attempt(t, person.email, PASSWORD, address)).status).toBe(429);
      // Another address is not held back.
      expect((await attempt(t, person.email, PASSWORD, `10.2.${serial}.1`)).status).toBe(200);
    });
  });
});

describe('what the logs keep of people signing in', () => {
  let log = '';
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    t = await buildTestApp({ logger: { level: 'trace', stream } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('holds no password, session cookie, CSRF token or password hash, at the most verbose level', async () => {
    const person = await addPerson(t, 'logged@example.com');
    await t.call('POST', '/v1/session', {
      key: null,
      body: { email: person.email, password: 'a wrong guess here' },
    });
    const session = await signIn(t, person.email);
    const token = session.cookie.split('=')[1] as string;
    await withSession(t, 'POST', '/v1/groups', session, { body: { name: 'logged' } });
    await withSession(
      t,
      'POST',
      '/v1/groups',
      { cookie: session.cookie, csrf: 'forged' },
      { body: { name: 'x' } },
    );
    await withSession(t, 'DELETE', '/v1/session', session);
    const hash = (
      await t.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('email', '=', person.email)
        .executeTakeFirstOrThrow()
    ).password_hash as string;
    expect(log.length).toBeGreaterThan(1000);
    for (const secret of [PASSWORD, 'a wrong guess here', token, session.csrf, hash.split('$')[5] as string])
      expect(log.includes(secret), 'a secret in the log').toBe(false);
  });
});
