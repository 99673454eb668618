// Single sign-on through a real OpenID provider (oidc-provider on loopback, PKCE required), driven over
// HTTP as a browser would: the service's start page, the provider's authorization and login, the
// callback, the console. The attacker's list of issue 33: a wrong state, a replayed code, a wrong nonce,
// an email outside OIDC_ALLOWED_DOMAINS are refused, as are unverified emails, disabled users and users
// in no workspace; the session after is never one set before; nothing secret reaches the log.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/ids.js';
import { createUsersService } from '../../src/modules/users/users-service.js';
import { createUsersStore } from '../../src/modules/users/users-store.js';
import { CookieJar } from '../helpers/cookie-jar.js';
import { startProvider, type TestProvider } from '../helpers/openid-provider.js';
import { addPerson, signIn } from '../helpers/people.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

const MINUTE = 60_000;

forEachDatabase((db) => {
  let provider: TestProvider;
  let t: TestApp;
  let service: string;
  let skew = 0;
  const logs: string[] = [];
  /** Everything that must never be written to the log, gathered as the tests see it. */
  const secrets: string[] = [];

  beforeAll(async () => {
    provider = await startProvider();
    secrets.push(provider.clientSecret);
    t = await buildTestApp({
      db,
      env: {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_ALLOWED_DOMAINS: 'example.com, Example.ORG',
      },
      logger: {
        level: 'debug',
        stream: new Writable({
          write(chunk, _encoding, done) {
            logs.push(String(chunk));
            done();
          },
        }),
      },
      now: () => Date.now() + skew,
    });
    // The provider sends the browser back to the service: it listens on a real port.
    service = await t.app.listen({ port: 0, host: '127.0.0.1' });
    provider.register(`${service}/auth/oidc/callback`);
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  const isCallback = (url: URL) => url.origin === service && url.pathname === '/auth/oidc/callback';
  const isConsole = (url: URL) => url.origin === service && url.pathname === '/';

  /** Starts a sign-in as `sub` and follows it up to the provider's redirect to the callback (not sent). */
  async function toCallback(sub: string, jar = new CookieJar()): Promise<{ jar: CookieJar; callback: URL }> {
    provider.next = sub;
    const { url } = await jar.follow(`${service}/auth/oidc/start`, isCallback);
    const callback = new URL(url);
    expect(isCallback(callback), `the flow ended at ${url}`).toBe(true);
    secrets.push(callback.searchParams.get('code') ?? '', callback.searchParams.get('state') ?? '');
    return { jar, callback };
  }

  /** Sends the callback and answers where the browser lands, and its session cookie. */
  async function finish(jar: CookieJar, callback: URL | string) {
    const { url } = await jar.follow(String(callback), isConsole);
    const landing = new URL(url);
    expect(isConsole(landing), `landed at ${url}`).toBe(true);
    const session = jar.get(service, 'rk_session');
    if (session) secrets.push(session);
    return { error: landing.searchParams.get('sso_error'), session };
  }

  const signInAs = async (sub: string, jar?: CookieJar) => {
    const flow = await toCallback(sub, jar);
    return { ...(await finish(flow.jar, flow.callback)), jar: flow.jar };
  };

  /** The login row of the sign-in the jar started (the cookie holds its id; the table its hash). */
  const loginOf = (jar: CookieJar) =>
    t.database.db
      .selectFrom('oidc_logins')
      .selectAll()
      .where('id', '=', hashApiKey(jar.get(service, 'rk_oidc') ?? ''))
      .executeTakeFirstOrThrow();

  /** Why the last refused sign-in was refused, as the log says it. */
  const lastReason = () =>
    logs
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'single sign-on refused')
      .pop()?.reason as string;

  const rulesWith = (session: string | undefined) =>
    t.call('GET', '/v1/rules', { key: null, headers: { cookie: `rk_session=${session}` } });

  const users = () =>
    createUsersService({
      db: t.database.db,
      store: createUsersStore(t.database.db),
      signals: t.database.signals,
      forget: () => {},
    });

  beforeAll(async () => {
    await addPerson(t, 'alice@example.com', { role: 'editor' });
    provider.accounts.set('alice-sub', { email: 'Alice@Example.com', email_verified: true });
    await addPerson(t, 'dora@example.org', { role: 'viewer' });
    provider.accounts.set('dora-sub', { email: 'dora@example.org', email_verified: true });
    await addPerson(t, 'eve@elsewhere.test', { role: 'editor' });
    provider.accounts.set('eve-sub', { email: 'eve@elsewhere.test', email_verified: true });
    await addPerson(t, 'uma@example.com', { role: 'editor' });
    provider.accounts.set('uma-sub', { email: 'uma@example.com', email_verified: false });
    await addPerson(t, 'dan@example.com', { role: 'editor' });
    await users().disable('dan@example.com');
    provider.accounts.set('dan-sub', { email: 'dan@example.com', email_verified: true });
    await t.database.db
      .transaction()
      .execute((trx) =>
        users().create(trx, { email: 'nina@example.com', password: 'x'.repeat(16) }, Date.now()),
      );
    provider.accounts.set('nina-sub', { email: 'nina@example.com', email_verified: true });
    provider.accounts.set('nobody-sub', { email: 'nobody@example.com', email_verified: true });
    await addPerson(t, 'mallory@example.com', { role: 'editor' });
    provider.accounts.set('mallory-sub', { email: 'mallory@example.com', email_verified: true });
    provider.accounts.set('mallory-twin', { email: 'mallory@example.com', email_verified: true });
  });

  describe('the console learns whether to show the button', () => {
    it('GET /v1/session/providers answers without a key, with where single sign-on starts', async () => {
      const answer = await t.call('GET', '/v1/session/providers', { key: null });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual({ password: true, oidc: { start: '/auth/oidc/start' } });
    });
  });

  describe('signing in', () => {
    it('starts with PKCE (S256), state and nonce, and a short-lived HttpOnly SameSite=Lax cookie', async () => {
      const jar = new CookieJar();
      const start = await jar.fetch(`${service}/auth/oidc/start`);
      expect(start.status).toBe(302);
      expect(start.headers.get('cache-control')).toBe('no-store');
      // The security headers every answer carries.
      expect(start.headers.get('x-content-type-options')).toBe('nosniff');
      const cookie = start.headers.getSetCookie().join('\n');
      expect(cookie).toMatch(/^rk_oidc=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax/);
      const authorize = new URL(start.headers.get('location') ?? '');
      expect(authorize.origin).toBe(provider.issuer);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${service}/auth/oidc/callback`);
      const login = await loginOf(jar);
      expect(authorize.searchParams.get('state')).toBe(login.state);
      expect(authorize.searchParams.get('nonce')).toBe(login.nonce);
      // The verifier never leaves the service.
      expect(authorize.href).not.toContain(login.code_verifier);
    });

    it('signs a member in: the session cookie works on /v1, and the sign-in is in the activity', async () => {
      const { error, session } = await signInAs('alice-sub');
      expect(error).toBeNull();
      expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const rules = await rulesWith(session);
      expect(rules.status).toBe(200);
      const me = await t.call('GET', '/v1/session', {
        key: null,
        headers: { cookie: `rk_session=${session}` },
      });
      expect(me.body.data.user.email).toBe('alice@example.com');
      const linked = await t.database.db
        .selectFrom('users')
        .select(['oidc_issuer', 'oidc_subject'])
        .where('email', '=', 'alice@example.com')
        .executeTakeFirstOrThrow();
      expect(linked).toEqual({ oidc_issuer: provider.issuer, oidc_subject: 'alice-sub' });
      const events = await t.database.db
        .selectFrom('security_events')
        .select(['kind', 'detail'])
        .where('kind', '=', 'sign_in')
        .where('actor_user_id', '=', me.body.data.user.id)
        .execute();
      expect(events.map((event) => JSON.parse(event.detail ?? '{}'))).toContainEqual({ sso: true });
    });

    it('finds the person again by the identity, even after the provider changes their email', async () => {
      provider.accounts.set('alice-sub', { email: 'alice.renamed@example.com', email_verified: true });
      try {
        const { error, session } = await signInAs('alice-sub');
        expect(error).toBeNull();
        const me = await t.call('GET', '/v1/session', {
          key: null,
          headers: { cookie: `rk_session=${session}` },
        });
        expect(me.body.data.user.email).toBe('alice@example.com');
      } finally {
        provider.accounts.set('alice-sub', { email: 'alice@example.com', email_verified: true });
      }
    });

    it('allows every domain of OIDC_ALLOWED_DOMAINS, compared lower-cased', async () => {
      expect((await signInAs('dora-sub')).error).toBeNull();
    });

    it('lets someone new join through the invites pending for their verified email, with their roles', async () => {
      const admin = await t.keysService.issue('acme', 'alice', {
        scope: 'admin',
        expiresAt: null,
        name: null,
      });
      const made = await t.call('POST', '/v1/invites', {
        key: admin.key,
        body: { email: 'newcomer@example.com', role: 'viewer' },
      });
      expect(made.status).toBe(201);
      provider.accounts.set('newcomer-sub', { email: 'NewComer@example.com', email_verified: true });
      const { error, session } = await signInAs('newcomer-sub');
      expect(error).toBeNull();
      const who = await t.call('GET', '/v1/whoami', {
        key: null,
        headers: { cookie: `rk_session=${session}` },
      });
      expect(who.body.data).toMatchObject({ user: { role: 'viewer', name: 'newcomer@example.com' } });
      // The invite is used: no longer pending, and it signs nobody in twice.
      const pending = await t.call('GET', '/v1/invites', { key: admin.key });
      expect(pending.body.data.map((i: { email: string }) => i.email)).not.toContain('newcomer@example.com');
      // The account has no password: it signs in through the provider only.
      expect((await signInAs('newcomer-sub')).error).toBeNull();
      expect(
        (
          await t.call('POST', '/v1/session', {
            key: null,
            body: { email: 'newcomer@example.com', password: 'any password at all' },
          })
        ).status,
      ).toBe(401);
      // An unverified email is no proof: an invite for it is not accepted.
      await t.call('POST', '/v1/invites', {
        key: admin.key,
        body: { email: 'unsure@example.com', role: 'editor' },
      });
      provider.accounts.set('unsure-sub', { email: 'unsure@example.com', email_verified: false });
      expect(await signInAs('unsure-sub')).toMatchObject({ error: 'email_unverified', session: undefined });
    });

    it('gives a new session id: neither a planted cookie nor an earlier session survives it', async () => {
      const earlier = await signIn(t, 'alice@example.com');
      const before = earlier.cookie.split('=')[1] as string;
      const jar = new CookieJar();
      jar.set(service, 'rk_session', before);
      const { error, session } = await signInAs('alice-sub', jar);
      expect(error).toBeNull();
      expect(session).not.toBe(before);
      expect((await rulesWith(before)).status).toBe(401);
      expect((await rulesWith(session)).status).toBe(200);

      const planted = new CookieJar();
      planted.set(service, 'rk_session', 'A'.repeat(43));
      const after = await signInAs('alice-sub', planted);
      expect(after.session).not.toBe('A'.repeat(43));
      expect((await rulesWith(after.session)).status).toBe(200);
    });
  });

  describe('refusals: back to the console with a short code, no session, never a 500', () => {
    it('a wrong state', async () => {
      const { jar, callback } = await toCallback('alice-sub');
      callback.searchParams.set('state', 'forged-state');
      expect(await finish(jar, callback)).toEqual({ error: 'failed', session: undefined });
      expect(lastReason()).toMatch(/unexpected "state" response parameter value/);
    });

    it('a wrong nonce (the stored one tampered with)', async () => {
      const { jar, callback } = await toCallback('alice-sub');
      await t.database.db
        .updateTable('oidc_logins')
        .set({ nonce: 'tampered-nonce' })
        .where('id', '=', hashApiKey(jar.get(service, 'rk_oidc') ?? ''))
        .execute();
      expect(await finish(jar, callback)).toEqual({ error: 'failed', session: undefined });
      expect(lastReason()).toMatch(/unexpected ID Token "nonce" claim value/);
    });

    it('a replayed callback: the sign-in under way is taken once', async () => {
      const { jar, callback } = await toCallback('alice-sub');
      const oidcCookie = jar.get(service, 'rk_oidc') as string;
      expect((await finish(jar, callback)).error).toBeNull();
      const replay = new CookieJar();
      replay.set(service, 'rk_oidc', oidcCookie);
      expect(await finish(replay, callback)).toEqual({ error: 'expired', session: undefined });
    });

    it('a replayed code, even with every check of a new sign-in made to match it: the provider refuses', async () => {
      const first = await toCallback('alice-sub');
      const used = await loginOf(first.jar);
      expect((await finish(first.jar, first.callback)).error).toBeNull();
      const second = await toCallback('alice-sub');
      await t.database.db
        .updateTable('oidc_logins')
        .set({ state: used.state, nonce: used.nonce, code_verifier: used.code_verifier })
        .where('id', '=', hashApiKey(second.jar.get(service, 'rk_oidc') ?? ''))
        .execute();
      const replay = new CookieJar();
      replay.set(service, 'rk_oidc', second.jar.get(service, 'rk_oidc') as string);
      expect(await finish(replay, first.callback)).toEqual({ error: 'failed', session: undefined });
      expect(lastReason()).toMatch(/invalid_grant/);
    });

    it('a callback without the cookie of the browser that started it', async () => {
      const { callback } = await toCallback('alice-sub');
      expect(await finish(new CookieJar(), callback)).toEqual({ error: 'expired', session: undefined });
    });

    it('a sign-in that took more than 10 minutes', async () => {
      const { jar, callback } = await toCallback('alice-sub');
      skew += 11 * MINUTE;
      try {
        expect(await finish(jar, callback)).toEqual({ error: 'expired', session: undefined });
      } finally {
        skew -= 11 * MINUTE;
      }
    });

    it('the provider refusing (access_denied)', async () => {
      const { jar, callback } = await toCallback('alice-sub');
      const denied = new URL(callback.pathname, service);
      denied.searchParams.set('error', 'access_denied');
      denied.searchParams.set('state', callback.searchParams.get('state') ?? '');
      denied.searchParams.set('iss', provider.issuer);
      expect(await finish(jar, denied)).toEqual({ error: 'failed', session: undefined });
      expect(lastReason()).toMatch(/access_denied/);
    });

    it('an email outside OIDC_ALLOWED_DOMAINS, though its user exists', async () => {
      expect(await signInAs('eve-sub')).toMatchObject({ error: 'domain_not_allowed', session: undefined });
    });

    it('an unverified email', async () => {
      expect(await signInAs('uma-sub')).toMatchObject({ error: 'email_unverified', session: undefined });
    });

    it('a disabled user', async () => {
      expect(await signInAs('dan-sub')).toMatchObject({ error: 'no_access', session: undefined });
    });

    it('a user in no workspace, and an email no user has', async () => {
      expect(await signInAs('nina-sub')).toMatchObject({ error: 'no_access', session: undefined });
      expect(await signInAs('nobody-sub')).toMatchObject({ error: 'no_access', session: undefined });
    });

    it('a second identity showing the email of a user already linked to another', async () => {
      expect((await signInAs('mallory-sub')).error).toBeNull();
      expect(await signInAs('mallory-twin')).toMatchObject({ error: 'no_access', session: undefined });
    });

    it('a callback with no query at all', async () => {
      expect(await finish(new CookieJar(), `${service}/auth/oidc/callback`)).toEqual({
        error: 'expired',
        session: undefined,
      });
    });
  });

  describe('the log', () => {
    it('holds no client secret, code, state or session id, and says why a sign-in was refused', () => {
      const text = logs.join('');
      expect(text).toMatch(/single sign-on refused/);
      expect(text).toMatch(/"reason":"the user is disabled"/);
      const leaked = secrets.filter((secret) => secret.length >= 8 && text.includes(secret));
      expect(leaked).toEqual([]);
      expect(text).not.toMatch(/code=/);
    });
  });
});

describe('around the flow: an unreachable provider, limits, no configuration', () => {
  it('sends the browser back to the console with sso_error=unavailable, and the service stays up', async () => {
    const gone = await startProvider();
    const issuer = gone.issuer;
    await gone.close();
    const t = await buildTestApp({
      env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'rulekeeper', OIDC_CLIENT_SECRET: 'secret-of-the-test' },
    });
    try {
      const start = await t.app.inject({ method: 'GET', url: '/auth/oidc/start' });
      expect(start.statusCode).toBe(302);
      expect(start.headers.location).toBe('/?sso_error=unavailable');
      expect(start.headers['set-cookie']).toBeUndefined();
      expect((await t.call('GET', '/v1/rules')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('limits the pages per address, as requests without a key are (every start writes a row)', async () => {
    const t = await buildTestApp({
      env: {
        RATE_LIMIT_PER_MINUTE: '2',
        OIDC_ISSUER: 'http://127.0.0.1:9',
        OIDC_CLIENT_ID: 'rulekeeper',
        OIDC_CLIENT_SECRET: 'secret-of-the-test',
      },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await t.app.inject({ method: 'GET', url: '/auth/oidc/start' })).statusCode);
      expect(statuses).toEqual([302, 302, 429]);
    } finally {
      await t.close();
    }
  });

  it('without single sign-on configured, the pages do not exist and providers says password alone', async () => {
    const t = await buildTestApp();
    try {
      expect((await t.app.inject({ method: 'GET', url: '/auth/oidc/start' })).statusCode).toBe(404);
      const answer = await t.call('GET', '/v1/session/providers', { key: null });
      expect(answer.body.data).toEqual({ password: true });
    } finally {
      await t.close();
    }
  });
});
