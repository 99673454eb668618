// Members and their roles: a key does the smaller of its scope and its user's role, a change of role
// or a removal acts at once (on another instance too, which heard it), owners alone make and unmake
// owners, and a workspace always keeps one. Both databases.
import { Migrator } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { MIGRATIONS, migrate, openDatabase } from '../../src/db/database.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { createKeys } from '../../src/services.js';
import { expectError } from '../helpers/fixtures.js';
import { createTestDatabase, forEachDatabase, useTestApp } from '../helpers/test-app.js';

const cancel = (name: string) => ({
  name,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
});

forEachDatabase((db) => {
  const t = useTestApp({ db });
  let admin: IssuedKey;
  /** An admin key of alice, the owner (her first key writes only). */
  let owner: IssuedKey;
  let serial = 0;
  /** A new member of acme with a write key, made an editor. */
  const newEditor = async () => t.keysService.issue('acme', `editor ${db} ${++serial}`);
  const role = (key: IssuedKey, body: unknown, by = owner.key) =>
    t.call('PATCH', `/v1/members/${key.userId}`, { key: by, body });
  const remove = (key: IssuedKey, by = owner.key) =>
    t.call('DELETE', `/v1/members/${key.userId}`, { key: by });

  beforeAll(async () => {
    owner = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: null });
    admin = await t.keysService.issue('acme', `admin ${db}`, { scope: 'admin', expiresAt: null, name: null });
  });

  it('lists the members with the roles their first keys gave them, the first user the owner', async () => {
    const { body } = await t.call('GET', '/v1/members');
    const roles = Object.fromEntries(body.data.map((m: { name: string; role: string }) => [m.name, m.role]));
    expect(roles).toMatchObject({ alice: 'owner', bob: 'editor', [`admin ${db}`]: 'admin' });
    expect(roles).not.toHaveProperty('carol');
  });

  it('a write key of a member made viewer is refused every change, naming the role, and nothing changes', async () => {
    const editor = await newEditor();
    expect((await t.call('POST', '/v1/rules', { key: editor.key, body: cancel('before') })).status).toBe(201);
    const demoted = await role(editor, { role: 'viewer' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.data).toMatchObject({ userId: editor.userId, role: 'viewer' });
    const before = (await t.call('GET', '/v1/rules?pageSize=1')).body.total;
    const refused = await t.call('POST', '/v1/rules', { key: editor.key, body: cancel('after') });
    expectError(refused, 'UNAUTHORIZED_ACTION', [
      { path: '', message: 'your role in this workspace is viewer: it cannot change rules or groups' },
    ]);
    expect((await t.call('GET', '/v1/rules?pageSize=1')).body.total).toBe(before);
    // It still reads, as a viewer does.
    expect((await t.call('GET', '/v1/rules', { key: editor.key })).status).toBe(200);
  });

  it("a removed member's keys stop working at once, their streams' check included", async () => {
    const editor = await newEditor();
    expect((await t.call('GET', '/v1/whoami', { key: editor.key })).status).toBe(200);
    expect((await remove(editor)).body).toStrictEqual({ success: true, message: 'Member removed' });
    expectError(await t.call('GET', '/v1/rules', { key: editor.key }), 'API_KEY_INVALID');
    const principal = {
      ...editor,
      via: 'key' as const,
      ownerUserId: t.owner.userId,
      scope: 'write' as const,
      expiresAt: null,
    };
    expect(await t.keysService.stillValid(principal)).toBe(false);
  });

  it('admins manage editors and viewers; owners alone make, unmake or remove owners', async () => {
    const editor = await newEditor();
    expect((await role(editor, { role: 'admin' }, admin.key)).status).toBe(200);
    const makeOwner = await role(editor, { role: 'owner' }, admin.key);
    expectError(makeOwner, 'UNAUTHORIZED_ACTION', [{ path: '', message: 'only an owner can make an owner' }]);
    for (const reply of [
      await role(t.owner, { role: 'viewer' }, admin.key),
      await remove(t.owner, admin.key),
    ])
      expectError(reply, 'UNAUTHORIZED_ACTION', [
        { path: '', message: 'only an owner can change or remove an owner' },
      ]);
    // An editor or a viewer is refused member changes by role, a write key by scope.
    expectError(await role(editor, { role: 'viewer' }, t.teammate.key), 'UNAUTHORIZED_ACTION', [
      { path: '', message: "this key's scope is write: it cannot change the workspace's settings" },
    ]);
    expect((await t.call('GET', '/v1/members')).body.data).toContainEqual(
      expect.objectContaining({ userId: t.owner.userId, role: 'owner' }),
    );
  });

  it('the last owner can be neither demoted nor removed; with a second owner, either can go', async () => {
    const ownerKey = await t.keysService.issue('acme', 'alice', {
      scope: 'admin',
      expiresAt: null,
      name: null,
    });
    expectError(await role(t.owner, { role: 'admin' }, ownerKey.key), 'LAST_OWNER');
    expectError(await remove(t.owner, ownerKey.key), 'LAST_OWNER');
    const second = await newEditor();
    expect((await role(second, { role: 'owner' }, ownerKey.key)).status).toBe(200);
    expect((await role(second, { role: 'editor' }, ownerKey.key)).status).toBe(200);
    expectError(await role(t.owner, { role: 'editor' }, ownerKey.key), 'LAST_OWNER');
  });

  it('an admin of another workspace cannot see or touch these members', async () => {
    const outsideAdmin = await t.keysService.issue('other', `oscar ${db}`, {
      scope: 'admin',
      expiresAt: null,
      name: null,
    });
    const editor = await newEditor();
    expectError(await role(editor, { role: 'viewer' }, outsideAdmin.key), 'MEMBER_NOT_FOUND');
    expectError(await remove(editor, outsideAdmin.key), 'MEMBER_NOT_FOUND');
    const listed = (await t.call('GET', '/v1/members', { key: outsideAdmin.key })).body.data;
    expect(listed.map((m: { userId: string }) => m.userId)).not.toContain(editor.userId);
    expect((await t.call('GET', '/v1/rules', { key: editor.key })).status).toBe(200);
  });

  it('a bad role is refused with the field named, and changes nothing', async () => {
    const editor = await newEditor();
    const reply = await role(editor, { role: 'boss', extra: 1 }, admin.key);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('MEMBER_PAYLOAD_INVALID');
    expect(reply.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['/extra', '/role']);
    expect(
      (await t.call('POST', '/v1/rules', { key: editor.key, body: cancel('still editor') })).status,
    ).toBe(201);
  });

  it('a member demoted on one instance loses write power on another that had the key in its cache', async () => {
    // A second instance on the same database, remembering keys for an hour.
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
      const editor = await newEditor();
      const write = () =>
        other.inject({
          method: 'POST',
          url: '/v1/rules',
          headers: { 'x-api-key': editor.key },
          payload: cancel('on the other instance'),
        });
      expect((await write()).statusCode).toBe(201); // the key is now in its cache
      expect((await role(editor, { role: 'viewer' })).status).toBe(200);
      // Heard through the access signal (PostgreSQL's NOTIFY, SQLite's data_version), not the hour.
      let status = 201;
      for (const deadline = Date.now() + 10_000; status !== 403 && Date.now() < deadline; ) {
        // A remembered key awaits nothing: let the event loop turn, so the signal's timer runs.
        await new Promise((resolve) => setImmediate(resolve));
        status = (await write()).statusCode;
      }
      expect(status).toBe(403);
    } finally {
      await other.close();
      await database.close();
    }
  });
});

describe('memberships made from the keys of before', () => {
  forEachDatabase((db) => {
    it('each user with unrevoked keys in a workspace is a member with the role of its broadest key', async () => {
      const created = await createTestDatabase(db);
      const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
      try {
        const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0009'));
        const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => before } });
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        // As the service of that time wrote them: users, a workspace owned by its first, keys.
        const at = 1;
        await database.db
          .insertInto('users')
          .values(
            ['ann', 'ben', 'cid', 'dan', 'eve'].map((name) => ({ id: `usr_${name}`, name, created_at: at })),
          )
          .execute();
        await database.db
          .insertInto('workspaces')
          .values({ id: 'ws_a', name: 'a', owner_user_id: 'usr_ann', created_at: at })
          .execute();
        const key = (user: string, scope: string, revoked: number | null = null) => ({
          id: `key_${user}_${scope}`,
          key_hash: `${user}${scope}`.padEnd(64, '0'),
          user_id: `usr_${user}`,
          workspace_id: 'ws_a',
          created_at: at,
          revoked_at: revoked,
          scope,
          expires_at: null,
          name: null,
        });
        await database.db
          .insertInto('api_keys')
          .values([
            key('ann', 'read'),
            key('ben', 'read'),
            key('ben', 'admin'),
            key('cid', 'write'),
            key('dan', 'read'),
            key('dan', 'admin', 5),
            key('eve', 'write', 5),
          ])
          .execute();
        await migrate(database);
        const rows = await database.db
          .selectFrom('memberships')
          .select(['user_id', 'role'])
          .orderBy('user_id')
          .execute();
        expect(rows).toStrictEqual([
          { user_id: 'usr_ann', role: 'owner' },
          { user_id: 'usr_ben', role: 'admin' },
          { user_id: 'usr_cid', role: 'editor' },
          // A revoked key gives nothing: dan reads, eve (revoked keys only) is no member.
          { user_id: 'usr_dan', role: 'viewer' },
        ]);
      } finally {
        await database.close();
        await created.drop();
      }
    });
  });
});
