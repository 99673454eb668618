// Keys over HTTP (/v1/keys): a key is shown once and never again, anywhere; members see their own
// keys and admins every key of the workspace, never another's; what a caller makes is capped by its
// role, its key's scope and its key's expiry; workspace keys for machines are for admins; a revoked
// key stops working at once, here and on another instance; a refused request changes nothing. Both
// databases.
import { beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import { hashApiKey } from '../../src/ids.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { createKeys } from '../../src/services.js';
import { expectError, type Reply } from '../helpers/fixtures.js';
import { addPerson, signIn } from '../helpers/people.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const HOUR = 3_600_000;

forEachDatabase((db) => {
  const t = useTestApp({ db });
  /** Alice's admin key: she owns acme (her first key writes only). */
  let owner: IssuedKey;
  /** Vic, a viewer of acme, with a read key. */
  let viewer: IssuedKey;
  /** Dora, an editor of acme holding an admin key. */
  let demotedAdmin: IssuedKey;
  /** Every key shown by a POST, to look for in every later answer. */
  const shown: string[] = [];
  /** Every answer received, to search for keys and hashes at the end. */
  const answers: string[] = [];

  const call = async (...args: Parameters<typeof t.call>): Promise<Reply> => {
    const reply = await t.call(...args);
    answers.push(JSON.stringify(reply.body ?? null), JSON.stringify(reply.headers));
    return reply;
  };
  const make = async (key: string, body: unknown) => {
    const reply = await call('POST', '/v1/keys', { key, body });
    if (reply.status === 201) shown.push(reply.body.data.key);
    return reply;
  };
  const list = async (key: string, query = '') => call('GET', `/v1/keys${query}`, { key });
  const ids = (reply: Reply) => (reply.body.data as { id: string }[]).map((k) => k.id);
  /** Every key of acme as its admin lists it. */
  const allOfAcme = async () => (await list(owner.key, '?pageSize=1000')).body;
  const revoke = (key: string, id: string) => call('DELETE', `/v1/keys/${id}`, { key });

  beforeAll(async () => {
    owner = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: 'admin' });
    viewer = await t.keysService.issue('acme', 'vic', { scope: 'read', expiresAt: null, name: null });
    demotedAdmin = await t.keysService.issue('acme', 'dora', { scope: 'admin', expiresAt: null, name: null });
    const demoted = await call('PATCH', `/v1/members/${demotedAdmin.userId}`, {
      key: owner.key,
      body: { role: 'editor' },
    });
    expect(demoted.status).toBe(200);
  });

  it('a member makes a personal key: shown once, working at once, listed without the key', async () => {
    const reply = await make(t.teammate.key, { name: "  Bob's laptop ", scope: 'write' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const made = reply.body.data;
    expect(made).toMatchObject({
      name: "Bob's laptop",
      scope: 'write',
      expiresAt: null,
      revokedAt: null,
      user: { id: t.teammate.userId, name: 'bob' },
      service: false,
    });
    expect(made.key).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    expect(reply.headers.location).toBe(`/v1/keys/${made.id}`);
    expect(reply.headers['cache-control']).toBe('no-store');
    const whoami = await call('GET', '/v1/whoami', { key: made.key });
    expect(whoami.body.data).toMatchObject({
      key: { id: made.id, name: "Bob's laptop", scope: 'write' },
      user: { id: t.teammate.userId, role: 'editor' },
      workspace: { name: 'acme' },
    });
    const listed = (await list(t.teammate.key)).body.data.find((k: { id: string }) => k.id === made.id);
    const { key: _shownOnce, ...rest } = made;
    expect(listed).toStrictEqual(rest);
  });

  it("a member lists only their own keys; an admin every key of the workspace; nobody another workspace's", async () => {
    const bobs = await make(t.teammate.key, { name: 'bob two', scope: 'read' });
    const carols = await make(t.outsider.key, { name: 'carol one', scope: 'read' });
    const mine = await list(t.teammate.key);
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.data.map((k: { user: { id: string } }) => k.user.id))).toStrictEqual(
      new Set([t.teammate.userId]),
    );
    expect(ids(mine)).toContain(bobs.body.data.id);
    expect(ids(mine)).toContain(t.teammate.keyId);
    const every = await allOfAcme();
    const everyId = every.data.map((k: { id: string }) => k.id);
    for (const id of [bobs.body.data.id, t.teammate.keyId, t.owner.keyId, viewer.keyId])
      expect(everyId).toContain(id);
    expect(everyId).not.toContain(carols.body.data.id);
    expect(everyId).not.toContain(t.outsider.keyId);
    expect(every.total).toBe(everyId.length);
    // Alice owns acme, but her first key writes only: it lists her own keys, as any member's.
    const ownersWriteKey = await list(t.owner.key);
    expect(new Set(ownersWriteKey.body.data.map((k: { user: { id: string } }) => k.user.id))).toStrictEqual(
      new Set([t.owner.userId]),
    );
    // An editor holding an admin key is no admin.
    expect(ids(await list(demotedAdmin.key))).toStrictEqual([demotedAdmin.keyId]);
    const theirs = ids(await list(t.outsider.key));
    expect(theirs).toContain(carols.body.data.id);
    expect(theirs).not.toContain(bobs.body.data.id);
  });

  it('pages and filters by state', async () => {
    const gone = await make(t.teammate.key, { name: 'to revoke', scope: 'read' });
    expect((await revoke(t.teammate.key, gone.body.data.id)).status).toBe(200);
    const first = await list(owner.key, '?pageSize=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.nextOffset).toBe(1);
    const second = await list(owner.key, '?pageSize=1&offset=1');
    expect(ids(second)).not.toStrictEqual(ids(first));
    expect(ids(await list(owner.key, '?state=revoked'))).toContain(gone.body.data.id);
    expect(ids(await list(owner.key, '?state=active'))).not.toContain(gone.body.data.id);
    expect(ids(await list(owner.key, '?state=expired'))).not.toContain(gone.body.data.id);
    expectError(await list(owner.key, '?state=dead'), 'INVALID_QUERY', [
      { path: '/state', message: 'must be one of active, revoked, expired' },
    ]);
    expectError(await list(owner.key, '?pageSize=0'), 'INVALID_QUERY', [
      { path: '/pageSize', message: 'must be from 1 to 1000' },
    ]);
  });

  it('caps a new key by the role: a viewer makes read keys only, and a refusal makes nothing', async () => {
    const before = await allOfAcme();
    const refused = await make(viewer.key, { name: 'escalate', scope: 'write' });
    // A viewer's key is a read key: its scope falls short first, and is named.
    expectError(refused, 'UNAUTHORIZED_ACTION', [
      { path: '/scope', message: "this key's scope is read: it cannot make a key of scope write" },
    ]);
    // A write key of a viewer: the role is what falls short.
    const writeKeyOfViewer = await t.keysService.issue('acme', 'vic', {
      scope: 'write',
      expiresAt: null,
      name: null,
    });
    expectError(
      await make(writeKeyOfViewer.key, { name: 'escalate', scope: 'write' }),
      'UNAUTHORIZED_ACTION',
      [
        {
          path: '/scope',
          message: 'your role in this workspace is viewer: it cannot make a key of scope write',
        },
      ],
    );
    expectError(await make(demotedAdmin.key, { name: 'escalate', scope: 'admin' }), 'UNAUTHORIZED_ACTION', [
      {
        path: '/scope',
        message: 'your role in this workspace is editor: it cannot make a key of scope admin',
      },
    ]);
    const after = await allOfAcme();
    expect(after.total).toBe(before.total + 1); // writeKeyOfViewer, made by the CLI's way
    const made = await make(viewer.key, { name: 'reader', scope: 'read' });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ scope: 'read', user: { id: viewer.userId }, service: false });
  });

  it("caps a new key by the calling key's scope and expiry: a leaked key makes nothing broader or longer-lived", async () => {
    const readKeyOfOwner = await t.keysService.issue('acme', 'alice', {
      scope: 'read',
      expiresAt: null,
      name: null,
    });
    expectError(await make(readKeyOfOwner.key, { name: 'escalate', scope: 'write' }), 'UNAUTHORIZED_ACTION', [
      { path: '/scope', message: "this key's scope is read: it cannot make a key of scope write" },
    ]);
    expectError(
      await make(readKeyOfOwner.key, { name: 'machine', scope: 'read', service: true }),
      'UNAUTHORIZED_ACTION',
      [
        {
          path: '/service',
          message: "this key's scope is read: only an admin or owner makes workspace keys",
        },
      ],
    );
    const until = Date.now() + HOUR;
    const shortLived = await t.keysService.issue('acme', 'alice', {
      scope: 'admin',
      expiresAt: until,
      name: null,
    });
    const at = new Date(until).toISOString();
    for (const body of [
      { name: 'forever', scope: 'read' },
      { name: 'longer', scope: 'read', expiresAt: until + 1 },
      { name: 'never', scope: 'read', expiresAt: null },
    ])
      expectError(await make(shortLived.key, body), 'UNAUTHORIZED_ACTION', [
        { path: '/expiresAt', message: `this key expires at ${at}: a key it makes cannot outlive it` },
      ]);
    const within = await make(shortLived.key, { name: 'within', scope: 'admin', expiresAt: until });
    expect(within.status).toBe(201);
    expect(within.body.data).toMatchObject({ scope: 'admin', expiresAt: until });
  });

  it('makes workspace keys for machines for admins only: a service user, a member with the role of the scope', async () => {
    const before = await allOfAcme();
    expectError(
      await make(t.teammate.key, { name: 'ci', scope: 'read', service: true }),
      'UNAUTHORIZED_ACTION',
      [
        {
          path: '/service',
          message: "this key's scope is write: only an admin or owner makes workspace keys",
        },
      ],
    );
    expectError(
      await make(demotedAdmin.key, { name: 'ci', scope: 'read', service: true }),
      'UNAUTHORIZED_ACTION',
      [
        {
          path: '/service',
          message: 'your role in this workspace is editor: only an admin or owner makes workspace keys',
        },
      ],
    );
    expect((await allOfAcme()).total).toBe(before.total);

    const reply = await make(owner.key, {
      name: 'CI reader',
      scope: 'read',
      service: true,
      expiresAt: Date.now() + HOUR,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const made = reply.body.data;
    expect(made.service).toBe(true);
    expect(made.user.id).toMatch(/^svc_[a-z0-9]{12}$/);
    expect(made.user.name).toMatch(/^CI reader \(service [a-z0-9]{12}\)$/);
    const whoami = await call('GET', '/v1/whoami', { key: made.key });
    expect(whoami.body.data.user).toStrictEqual({ id: made.user.id, name: made.user.name, role: 'viewer' });
    const members = async () => (await call('GET', '/v1/members', { key: owner.key })).body.data;
    expect(await members()).toContainEqual(expect.objectContaining({ userId: made.user.id, role: 'viewer' }));
    // It reads, and writes nothing: a read key of a viewer.
    expect((await call('GET', '/v1/rules', { key: made.key })).status).toBe(200);
    expect((await call('POST', '/v1/groups', { key: made.key, body: { name: 'x' } })).status).toBe(403);
    // The member who made it sees it only as an admin does; the service user's key is not theirs.
    expect(ids(await list(t.owner.key))).not.toContain(made.id);
    expect(ids(await list(owner.key))).toContain(made.id);
    // An admin service key: an admin member, for a machine that manages the workspace.
    const adminMachine = await make(owner.key, { name: 'provisioner', scope: 'admin', service: true });
    expect(await members()).toContainEqual(
      expect.objectContaining({ userId: adminMachine.body.data.user.id, role: 'admin' }),
    );
    // Revoked, its service user is no longer a member.
    expect((await revoke(owner.key, made.id)).status).toBe(200);
    expect((await members()).map((m: { userId: string }) => m.userId)).not.toContain(made.user.id);
    expectError(await call('GET', '/v1/rules', { key: made.key }), 'API_KEY_INVALID');
  });

  it("revokes: one's own key, and (admins) any key of the workspace; it stops working at once", async () => {
    const bobs = (await make(t.teammate.key, { name: 'short', scope: 'write' })).body.data;
    expect((await call('GET', '/v1/rules', { key: bobs.key })).status).toBe(200);
    const reply = await revoke(t.teammate.key, bobs.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ success: true, message: 'Key revoked' });
    expectError(await call('GET', '/v1/rules', { key: bobs.key }), 'API_KEY_INVALID');
    const revokedAt = (await list(t.teammate.key)).body.data.find(
      (k: { id: string }) => k.id === bobs.id,
    ).revokedAt;
    expect(revokedAt).toBeTypeOf('number');
    // Again: nothing changes.
    expect((await revoke(t.teammate.key, bobs.id)).status).toBe(200);
    const again = (await list(t.teammate.key)).body.data.find((k: { id: string }) => k.id === bobs.id);
    expect(again.revokedAt).toBe(revokedAt);

    // A key revokes itself.
    const self = (await make(t.teammate.key, { name: 'self', scope: 'read' })).body.data;
    expect((await revoke(self.key, self.id)).status).toBe(200);
    expectError(await call('GET', '/v1/whoami', { key: self.key }), 'API_KEY_INVALID');

    // Another member's key: admins only.
    const alices = (await make(t.owner.key, { name: "alice's", scope: 'write' })).body.data;
    expectError(await revoke(t.teammate.key, alices.id), 'UNAUTHORIZED_ACTION', [
      { path: '', message: "this key's scope is write: only an admin or owner revokes another member's key" },
    ]);
    expectError(await revoke(demotedAdmin.key, alices.id), 'UNAUTHORIZED_ACTION', [
      {
        path: '',
        message: "your role in this workspace is editor: only an admin or owner revokes another member's key",
      },
    ]);
    expect((await call('GET', '/v1/whoami', { key: alices.key })).status).toBe(200);
    const bobsOther = (await make(t.teammate.key, { name: 'other', scope: 'write' })).body.data;
    expect((await revoke(owner.key, bobsOther.id)).status).toBe(200);
    expectError(await call('GET', '/v1/whoami', { key: bobsOther.key }), 'API_KEY_INVALID');
  });

  it("answers another workspace's key as not found, and changes nothing", async () => {
    const alices = (await make(owner.key, { name: 'target', scope: 'write' })).body.data;
    // Carol owns `other`; her admin key, and an admin of hers.
    const carolsAdmin = await t.keysService.issue('other', 'carol', {
      scope: 'admin',
      expiresAt: null,
      name: null,
    });
    const oscar = await t.keysService.issue('other', 'oscar', {
      scope: 'admin',
      expiresAt: null,
      name: null,
    });
    const made = await call('PATCH', `/v1/members/${oscar.userId}`, {
      key: carolsAdmin.key,
      body: { role: 'admin' },
    });
    expect(made.status).toBe(200);
    for (const key of [t.outsider.key, carolsAdmin.key, oscar.key])
      expectError(await revoke(key, alices.id), 'KEY_NOT_FOUND');
    for (const id of ['key_zzzzzzzzzzzz', 'not-a-key', `key_${'a'.repeat(65)}`])
      expectError(await revoke(owner.key, id), 'KEY_NOT_FOUND');
    // The same answer as for an id of no key: nothing says it exists.
    const unknown = await revoke(carolsAdmin.key, 'key_zzzzzzzzzzzz');
    const theirs = await revoke(carolsAdmin.key, alices.id);
    expect({ ...theirs.body, requestId: '' }).toStrictEqual({ ...unknown.body, requestId: '' });
    expect((await call('GET', '/v1/whoami', { key: alices.key })).status).toBe(200);
  });

  it('refuses an invalid body with every problem, changing nothing, before any cap', async () => {
    const before = await allOfAcme();
    const cases: [unknown, { path: string; message: string }[]][] = [
      [{ scope: 'read' }, [{ path: '/name', message: 'required field missing' }]],
      [{ name: '   ', scope: 'read' }, [{ path: '/name', message: 'a non-blank name is required' }]],
      [
        { name: 'x'.repeat(101), scope: 'read' },
        [{ path: '/name', message: 'must be at most 100 characters long' }],
      ],
      [
        { name: 'tab\there', scope: 'read' },
        [{ path: '/name', message: 'must not hold control characters' }],
      ],
      [{ name: 7, scope: 'read' }, [{ path: '/name', message: 'must be a string' }]],
      [{ name: 'x' }, [{ path: '/scope', message: 'required field missing' }]],
      [{ name: 'x', scope: 'root' }, [{ path: '/scope', message: 'must be one of read, write, admin' }]],
      [
        { name: 'x', scope: 'read', service: 'yes' },
        [{ path: '/service', message: 'must be true or false' }],
      ],
      [{ name: 'x', scope: 'read', owner: 'me' }, [{ path: '/owner', message: 'unknown field "owner"' }]],
      [{ name: 'x', scope: 'read', key: 'rk_mine' }, [{ path: '/key', message: 'unknown field "key"' }]],
      [[], [{ path: '', message: 'the body must be a JSON object' }]],
    ];
    for (const [body, details] of cases)
      expectError(await make(viewer.key, body), 'KEY_PAYLOAD_INVALID', details);
    const past = await make(owner.key, { name: 'x', scope: 'read', expiresAt: 1000 });
    expect(past.body.details).toHaveLength(1);
    expect(past.body.details[0].path).toBe('/expiresAt');
    expect(past.body.details[0].message).toMatch(/^must be in the future/);
    expectError(past, 'KEY_PAYLOAD_INVALID', past.body.details);
    const several = await make(owner.key, { name: '', scope: 'root', expiresAt: 'soon' });
    expect(several.body.details.map((d: { path: string }) => d.path).sort()).toStrictEqual([
      '/expiresAt',
      '/name',
      '/scope',
    ]);
    const malformed = await call('POST', '/v1/keys', {
      key: owner.key,
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.body.code).toBe('KEY_PAYLOAD_INVALID');
    const after = await allOfAcme();
    expect(after.total).toBe(before.total);
  });

  it('a key revoked here is refused at once by another instance that had it cached', async () => {
    const config = loadConfig({
      DATABASE_URL: t.config.databaseUrl,
      RATE_LIMIT_PER_MINUTE: '0',
      KEY_CACHE_TTL_MS: String(HOUR),
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
      const made = (await make(t.teammate.key, { name: 'cached elsewhere', scope: 'read' })).body.data;
      const read = async () =>
        (await other.inject({ method: 'GET', url: '/v1/whoami', headers: { 'x-api-key': made.key } }))
          .statusCode;
      expect(await read()).toBe(200); // now in the other instance's cache, for an hour
      expect((await revoke(t.teammate.key, made.id)).status).toBe(200);
      // Heard through the access signal (PostgreSQL's NOTIFY, SQLite's data_version), not the hour.
      let status = 200;
      // Between tries a turn of the timers, where SQLite's data_version is looked at: reads answered
      // from a cache await no I/O, and a loop of them alone would never let the check run.
      for (const deadline = Date.now() + 10_000; status !== 401 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = await read();
      }
      expect(status).toBe(401);
    } finally {
      await other.close();
      await database.close();
    }
  });

  it('a person signed in makes keys up to their role, of any expiry, with the CSRF token, and revokes them', async () => {
    const person = await addPerson(t, `eve-${db}@example.com`, { role: 'editor' });
    const { cookie, csrf } = await signIn(t, person.email);
    const session = (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      body?: unknown,
      token: string | null = csrf,
    ) =>
      call(method, url, {
        key: null,
        headers: { cookie, ...(token ? { 'x-rk-csrf': token } : {}) },
        ...(body ? { body } : {}),
      });
    // Without the CSRF token, nothing is made.
    const before = await allOfAcme();
    expect((await session('POST', '/v1/keys', { name: 'no token', scope: 'read' }, null)).status).toBe(403);
    expect((await allOfAcme()).total).toBe(before.total);
    expectError(
      await session('POST', '/v1/keys', { name: 'too much', scope: 'admin' }),
      'UNAUTHORIZED_ACTION',
      [
        {
          path: '/scope',
          message: 'your role in this workspace is editor: it cannot make a key of scope admin',
        },
      ],
    );
    // A session's own expiry does not bound the keys its person makes for machines.
    const reply = await session('POST', '/v1/keys', { name: "Eve's CI", scope: 'write' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    if (reply.status === 201) shown.push(reply.body.data.key);
    expect(reply.body.data).toMatchObject({ expiresAt: null, user: { id: person.id }, service: false });
    expect(ids(await session('GET', '/v1/keys'))).toStrictEqual([reply.body.data.id]);
    expect((await session('DELETE', `/v1/keys/${reply.body.data.id}`)).status).toBe(200);
    expectError(await call('GET', '/v1/whoami', { key: reply.body.data.key }), 'API_KEY_INVALID');
  });

  it("a key made and a key revoked are in the workspace's activity for its admins, without the key", async () => {
    const made = await make(t.teammate.key, { name: 'watched key', scope: 'read' });
    expect((await revoke(owner.key, made.body.data.id)).status).toBe(200);
    const seen = await call('GET', `/v1/activity?object=${made.body.data.id}`, { key: owner.key });
    // Both may fall in one millisecond: compared by kind, not by their order.
    const byKind = Object.fromEntries(
      seen.body.data.map((entry: { kind: string; by: string; detail: unknown }) => [entry.kind, entry]),
    );
    expect(seen.body.data).toHaveLength(2);
    expect(byKind.key_created).toMatchObject({
      by: t.teammate.userId,
      detail: { name: 'watched key', scope: 'read', service: false, for: t.teammate.userId },
    });
    expect(byKind.key_revoked).toMatchObject({
      by: owner.userId,
      detail: { name: 'watched key', of: t.teammate.userId },
    });
    // An editor sees the changes of rules and groups, not these.
    expect((await call('GET', `/v1/activity?object=${made.body.data.id}`)).body.data).toEqual([]);
  });

  it('showed each key in the answer that made it and in no other, and no hash of any key in any answer', () => {
    const text = answers.join('\n');
    expect(shown.length).toBeGreaterThan(10);
    for (const key of shown) {
      expect(text.split(key).length - 1, 'the key in one answer only').toBe(1);
      expect(text.includes(hashApiKey(key)), 'its hash in no answer').toBe(false);
    }
    for (const key of [t.owner, t.teammate, owner, viewer])
      expect(text.includes(hashApiKey(key.key)), 'no hash of any key').toBe(false);
  });
});
