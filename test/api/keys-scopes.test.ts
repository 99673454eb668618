// Keys with a scope, an expiry and a name: GET /v1/whoami, an expired key refused (also when it was
// cached, from its very expiry), stillValid for what outlives a request, the migration of existing
// keys, and routes that must say what scope they need. The matrix of every route × scope is in
// authorization-matrix.test.ts.
import Fastify, { type FastifyInstance } from 'fastify';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import * as initial from '../../src/db/migrations/0001-initial.js';
import * as idempotency from '../../src/db/migrations/0002-idempotency.js';
import * as changes from '../../src/db/migrations/0003-changes.js';
import { createKeysService } from '../../src/modules/keys/keys-service.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';
import { authenticationPlugin } from '../../src/plugins/authentication.js';
import { createRule, expectError, type Reply } from '../helpers/fixtures.js';
import { createTestDatabase, forEachDatabase, useTestApp } from '../helpers/test-app.js';

const options = (
  scope: 'read' | 'write' | 'admin',
  expiresAt: number | null = null,
  name: string | null = null,
) => ({
  scope,
  expiresAt,
  name,
});

forEachDatabase((db) => {
  // Keys are remembered for a minute: an expiry must still end them on time.
  const t = useTestApp({ db, env: { KEY_CACHE_TTL_MS: '60000' } });

  describe('GET /v1/whoami', () => {
    it('tells each key its id, name, scope, expiry, user and workspace', async () => {
      const expiresAt = Date.now() + 86_400_000;
      const reader = await t.keysService.issue('acme', 'rita', options('read', expiresAt, 'CI reader'));
      const listed = (await t.keysService.list()).find((row) => row.id === reader.keyId);
      const reply = await t.call('GET', '/v1/whoami', { key: reader.key });
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({
        success: true,
        data: {
          key: {
            id: reader.keyId,
            name: 'CI reader',
            scope: 'read',
            expiresAt,
            createdAt: listed?.createdAt,
            environment: null,
          },
          user: { id: reader.userId, name: 'rita', role: 'viewer' },
          workspace: { id: reader.workspaceId, name: 'acme' },
        },
      });
    });

    it('answers a key issued as before: write, no expiry, no name', async () => {
      const reply = await t.call('GET', '/v1/whoami', { key: t.outsider.key });
      expect(reply.body.data).toStrictEqual({
        key: {
          id: expect.stringMatching(/^key_/),
          name: null,
          scope: 'write',
          expiresAt: null,
          createdAt: expect.any(Number),
          environment: null,
        },
        user: { id: t.outsider.userId, name: 'carol', role: 'owner' },
        workspace: { id: t.outsider.workspaceId, name: 'other' },
      });
    });

    it('never says anything about another key', async () => {
      const reply = await t.call('GET', '/v1/whoami', { key: t.teammate.key });
      const text = JSON.stringify(reply.body);
      expect(text).toContain(t.teammate.userId);
      for (const other of [t.owner, t.outsider]) {
        expect(text).not.toContain(other.userId);
        expect(text).not.toContain(other.keyId);
      }
    });
  });

  describe('a read key', () => {
    it('reads, traces and follows changes, and is refused every change before anything else is looked at', async () => {
      const reader = await t.keysService.issue('acme', 'rita', options('read'));
      const rule = await createRule(t, { name: 'shared' });
      expect((await t.call('GET', `/v1/rules/${rule.id}`, { key: reader.key })).body.data).toStrictEqual(
        rule,
      );
      const trace = await t.call('POST', '/v1/trace', {
        key: reader.key,
        body: { request: { url: 'https://a.example/' } },
      });
      expect(trace.status).toBe(200);
      const refused = [
        ['PUT', `/v1/rules/${rule.id}`, { name: 'changed' }],
        ['DELETE', `/v1/rules/${rule.id}`, undefined],
        ['POST', '/v1/rules', { not: 'a rule' }],
        ['POST', '/v1/groups/not-a-group/restore', { version: 1 }],
      ] as const;
      for (const [method, path, body] of refused) {
        const reply = await t.call(method, path, { key: reader.key, ...(body ? { body } : {}) });
        expectError(reply, 'UNAUTHORIZED_ACTION', [
          { path: '', message: "this key's scope is read: it cannot change rules or groups" },
        ]);
      }
      expect((await t.call('GET', `/v1/rules/${rule.id}`)).body.data).toStrictEqual(rule);
    });
  });

  describe('expiry', () => {
    it('refuses a key from its expiry on, though it was cached for longer, saying it expired', async () => {
      const expiresAt = Date.now() + 3000;
      const issued = await t.keysService.issue('acme', 'eve', options('write', expiresAt));
      const accepted: number[] = [];
      let refused: Reply | undefined;
      let refusedAt = 0;
      // Until refused, or well past the expiry (the cache alone would keep it for a minute).
      while (!refused && Date.now() < expiresAt + 15_000) {
        const sentAt = Date.now();
        const reply = await t.call('GET', '/v1/rules', { key: issued.key });
        if (reply.status === 200) accepted.push(sentAt);
        else [refused, refusedAt] = [reply, Date.now()];
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(accepted.length).toBeGreaterThan(0); // it was used, so cached, before it expired
      // Every request it was accepted for was sent before the expiry; the refusal came soon after it.
      for (const sentAt of accepted) expect(sentAt).toBeLessThan(expiresAt);
      expect(refusedAt - expiresAt).toBeLessThan(5000);
      const expired = [{ path: '', message: `this key expired at ${new Date(expiresAt).toISOString()}` }];
      expectError(refused as Reply, 'API_KEY_INVALID', expired);
      // And for good, on every route.
      expectError(await t.call('GET', '/v1/whoami', { key: issued.key }), 'API_KEY_INVALID', expired);
    });

    it('says nothing about a key that is unknown or revoked', async () => {
      const issued = await t.keysService.issue('acme', 'rob', options('write', Date.now() - 1));
      expect(await t.keysService.revoke(issued.keyId)).toBe(true);
      for (const key of [issued.key, `rk_${'B'.repeat(43)}`]) {
        expectError(await t.call('GET', '/v1/rules', { key }), 'API_KEY_INVALID');
      }
    });
  });

  describe('stillValid: whether a key a request came with may still be used', () => {
    const principalOf = async (key: string) => {
      const found = await t.keysService.authenticate(key);
      if (!found) throw new Error('the key was refused');
      return found;
    };

    it('is true for a valid key, false once it is revoked here (at once) or has expired', async () => {
      const issued = await t.keysService.issue('acme', 'sam', options('read', Date.now() + 60_000));
      const principal = await principalOf(issued.key);
      expect(await t.keysService.stillValid(principal)).toBe(true);
      expect(await t.keysService.revoke(issued.keyId)).toBe(true);
      expect(await t.keysService.stillValid(principal)).toBe(false);
      expect(await t.keysService.stillValid({ ...principal, expiresAt: Date.now() - 1 })).toBe(false);
    });

    it('sees a revocation made elsewhere (another instance, the CLI) when it asks the database', async () => {
      const issued = await t.keysService.issue('acme', 'sue', options('write'));
      const principal = await principalOf(issued.key);
      // An instance that remembers nothing asks the database every time.
      const uncached = createKeysService({ db: t.database.db, keysStore: createKeysStore(t.database.db) });
      expect(await uncached.stillValid(principal)).toBe(true);
      const elsewhere = createKeysService({ db: t.database.db, keysStore: createKeysStore(t.database.db) });
      expect(await elsewhere.revoke(issued.keyId)).toBe(true);
      expect(await uncached.stillValid(principal)).toBe(false);
      // and an expiry written to the database counts too
      const other = await t.keysService.issue('acme', 'sid', options('write'));
      const otherPrincipal = await principalOf(other.key);
      await t.database.db
        .updateTable('api_keys')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', other.keyId)
        .execute();
      expect(await uncached.stillValid(otherPrincipal)).toBe(false);
    });
  });
});

describe('keys issued before scopes existed', () => {
  forEachDatabase((db) => {
    it('become write keys without expiry or name, and keep working', async () => {
      const created = await createTestDatabase(db);
      const config = loadConfig({ DATABASE_URL: created.url });
      const database = openDatabase(config);
      try {
        const before = { '0001-initial': initial, '0002-idempotency': idempotency, '0003-changes': changes };
        const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => before } });
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const keys = createKeysStore(database.db);
        // As the service of that time wrote it (no scope, expiry or name columns yet).
        const hash = 'a'.repeat(64);
        await database.db.transaction().execute(async (trx) => {
          // The rows as written then (today's ensureWorkspace also makes the workspace's environment).
          const userId = await keys.ensureUser(trx, 'old', 'usr_old', 1);
          const workspaceId = 'ws_old';
          await trx
            .insertInto('workspaces')
            .values({ id: workspaceId, name: 'old', owner_user_id: userId, created_at: 1 })
            .execute();
          await trx
            .insertInto('api_keys')
            .values({
              id: 'key_old',
              key_hash: hash,
              user_id: userId,
              workspace_id: workspaceId,
              created_at: 1,
              revoked_at: null,
            } as never)
            .execute();
        });
        await migrate(database);
        expect(await keys.list()).toStrictEqual([
          expect.objectContaining({ id: 'key_old', scope: 'write', expiresAt: null, name: null }),
        ]);
        expect(await keys.findPrincipal(hash)).toStrictEqual(
          // Its user, the workspace's first, became its owner (migration 0009).
          expect.objectContaining({ keyId: 'key_old', scope: 'write', expiresAt: null, role: 'owner' }),
        );
      } finally {
        await database.close();
        await created.drop();
      }
    });
  });
});

describe('a /v1 route must say which scope it needs', () => {
  const authenticators = {} as Parameters<typeof authenticationPlugin>[1];
  /** Starts an app whose routes behind the key check are `routes`; rejects as the start would. */
  async function start(routes: (api: FastifyInstance) => void) {
    const app = Fastify();
    try {
      await app.register(async (api) => {
        authenticationPlugin(api, authenticators, { publicUrl: undefined });
        routes(api);
      });
      await app.ready();
    } finally {
      await app.close();
    }
  }

  it('starts when every route does', async () => {
    await start((api) => api.get('/declared', { config: { scope: 'read' } }, async () => ({})));
  });

  it('stops the start when one does not', async () => {
    await expect(
      start((api) => {
        api.get('/declared', { config: { scope: 'read' } }, async () => ({}));
        api.post('/forgotten', async () => ({}));
      }),
    ).rejects.toThrow(/POST \/forgotten declares no key scope/);
  });

  it('refuses a scope it does not know', async () => {
    await expect(
      start((api) => api.get('/odd', { config: { scope: 'owner' as 'read' } }, async () => ({}))),
    ).rejects.toThrow(/GET \/odd declares no key scope/);
  });
});
