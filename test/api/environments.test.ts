// Environments (decisions §20): every workspace has `default` (made by migration 0019 for those that
// existed, and with every new one); added, listed and deleted with their values; bounded; refused
// names; `default` and an environment a working key is bound to kept; keys bound by POST /v1/keys and
// `keys create --environment`; another workspace's environment not found; each change a revision of
// the workspace, in the feed and the stream.
import { type Kysely, Migrator } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MIGRATIONS, migrate, openDatabase } from '../../src/db/database.js';
import type { Tables } from '../../src/db/tables.js';
import { at, expectError } from '../helpers/fixtures.js';
import { createTestDatabase, forEachDatabase, TEST_POSTGRES_URL, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  const t = useTestApp({ db, env: { MAX_ENVIRONMENTS: '4' } });
  let viewer: string;
  let admin: string;

  beforeAll(async () => {
    viewer = (await t.keysService.issue('acme', 'vera', { scope: 'read', expiresAt: null, name: null })).key;
    admin = (await t.keysService.issue('acme', 'ada', { scope: 'admin', expiresAt: null, name: null })).key;
  });

  const names = async (key = t.owner.key) =>
    (await t.call('GET', '/v1/environments', { key })).body.data.map((e: { name: string }) => e.name);
  const add = (name: unknown, key = t.owner.key) =>
    t.call('POST', '/v1/environments', { key, body: { name } });

  /** Deletes every environment but default of acme and other. */
  async function clear() {
    for (const key of [t.owner.key, t.outsider.key])
      for (const name of await names(key))
        if (name !== 'default')
          expect((await t.call('DELETE', `/v1/environments/${name}`, { key })).status).toBe(204);
  }

  describe('added, listed and deleted', () => {
    beforeAll(clear);

    it('every workspace has default, from its first moment', async () => {
      expect(await names()).toStrictEqual(['default']);
      expect(await names(t.outsider.key)).toStrictEqual(['default']);
      await t.keysService.issue('brand-new', 'nina');
      const [fresh] = await t.database.db
        .selectFrom('environments')
        .innerJoin('workspaces', 'workspaces.id', 'environments.workspace_id')
        .select('environments.name')
        .where('workspaces.name', '=', 'brand-new')
        .execute();
      expect(fresh?.name).toBe('default');
    });

    it('adds one, lists it by name for a viewer, and deletes it with every value there', async () => {
      const made = await add('staging');
      expect(made.status).toBe(201);
      expect(made.body.data).toStrictEqual({ name: 'staging', creationDate: expect.any(Number) });
      expect(made.headers.location).toBe('/v1/environments/staging');
      expect(await names(viewer)).toStrictEqual(['default', 'staging']);
      const listed = await t.call('GET', '/v1/environments', { key: viewer });
      expect(listed.body).toMatchObject({ total: 2, nextOffset: null });
      const unchanged = await t.call('GET', '/v1/environments', {
        key: viewer,
        headers: { 'if-none-match': String(listed.headers.etag) },
      });
      expect(unchanged.status).toBe(304);

      await t.call('POST', '/v1/variables', {
        body: { name: 'HOST', values: { default: 'localhost', staging: 'staging.example.com' } },
      });
      await t.call('POST', '/v1/variables', { body: { name: 'ONLY_DEFAULT', values: { default: 'x' } } });
      const before = Number((await t.call('GET', '/v1/changes')).body.latest);
      const gone = await t.call('DELETE', '/v1/environments/staging');
      expect(gone.status).toBe(204);
      expect(gone.body).toBeUndefined();
      expect(Number(gone.headers['rulekeeper-revision'])).toBe(before + 1);
      expect(await names()).toStrictEqual(['default']);
      // The variable that had a value there is a new version without it, in the same revision.
      const host = await t.call('GET', '/v1/variables/HOST');
      expect(host.body.data).toMatchObject({ values: { default: 'localhost' }, version: 2 });
      expect((await t.call('GET', '/v1/variables/ONLY_DEFAULT')).body.data.version).toBe(1);
      const feed = await t.call('GET', `/v1/changes?after=${before}`);
      expect(
        feed.body.data.map((c: Record<string, unknown>) => [c.revision, c.objectType, c.id, c.change]),
      ).toStrictEqual([
        [before + 1, 'environment', 'staging', 'deleted'],
        [before + 1, 'variable', 'HOST', 'updated'],
      ]);
      expectError(await t.call('DELETE', '/v1/environments/staging'), 'ENVIRONMENT_NOT_FOUND');
      expectError(
        await t.call('GET', '/v1/environments/staging/values', { key: viewer }),
        'ENVIRONMENT_NOT_FOUND',
      );
      // Made again, it starts empty, and its change is one more version of the name.
      expect((await add('staging')).status).toBe(201);
      const values = await t.call('GET', '/v1/environments/staging/values', { key: viewer });
      expect(values.body.data.values).toStrictEqual({});
      for (const name of ['HOST', 'ONLY_DEFAULT']) await t.call('DELETE', `/v1/variables/${name}`);
    });

    it('each add and delete is one revision, a change of objectType environment named by its name', async () => {
      const before = Number((await t.call('GET', '/v1/changes')).body.latest);
      const made = await add('qa.eu-1');
      expect(Number(made.headers['rulekeeper-revision'])).toBe(before + 1);
      expect((await t.call('DELETE', '/v1/environments/qa.eu-1')).status).toBe(204);
      const feed = await t.call('GET', `/v1/changes?after=${before}`);
      expect(
        feed.body.data.map((c: Record<string, unknown>) => [c.objectType, c.id, c.change]),
      ).toStrictEqual([
        ['environment', 'qa.eu-1', 'created'],
        ['environment', 'qa.eu-1', 'deleted'],
      ]);
      const activity = await t.call('GET', '/v1/activity?kind=environment_created');
      expect(activity.body.data[0]).toMatchObject({ object: { type: 'environment', id: 'qa.eu-1' } });
    });
  });

  describe('refusals', () => {
    beforeAll(clear);

    it('refuses bad names and bodies, and a name taken (case-sensitive), changing nothing', async () => {
      const before = (await t.call('GET', '/v1/changes')).body.latest;
      for (const name of ['', '-staging', '.hidden', 'a b', 'a/b', 'x'.repeat(65), 'ü', 'a\nb', 42, null])
        expectError(await add(name), 'ENVIRONMENT_PAYLOAD_INVALID', [at('/name')]);
      expectError(
        await t.call('POST', '/v1/environments', { body: { name: 'ok', extra: 1 } }),
        'ENVIRONMENT_PAYLOAD_INVALID',
        [at('/extra')],
      );
      expectError(await t.call('POST', '/v1/environments', { body: [] }), 'ENVIRONMENT_PAYLOAD_INVALID', [
        at(''),
      ]);
      expectError(await add('default'), 'ENVIRONMENT_EXISTS', [at('/name')]);
      expect((await t.call('GET', '/v1/changes')).body.latest).toBe(before);
      expect((await add('Default')).status).toBe(201);
      await t.call('DELETE', '/v1/environments/Default');
    });

    it('keeps at most MAX_ENVIRONMENTS, default included', async () => {
      for (const name of ['e1', 'e2', 'e3']) expect((await add(name)).status).toBe(201);
      expectError(await add('e4'), 'ENVIRONMENTS_FULL', [at('')]);
      expect((await add('e1', t.outsider.key)).status).toBe(201);
      // A variable naming more environments than a workspace may have is refused before any is looked at.
      const many = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((name) => [name, '1']));
      expectError(
        await t.call('POST', '/v1/variables', { body: { name: 'MANY', values: many } }),
        'VARIABLE_PAYLOAD_INVALID',
        [at('/values')],
      );
      await clear();
    });

    it('keeps default', async () => {
      expectError(await t.call('DELETE', '/v1/environments/default'), 'ENVIRONMENT_IN_USE', [at('')]);
      expect(await names()).toContain('default');
    });

    it('a viewer reads but does not write; another workspace’s environment is not found', async () => {
      await add('mine');
      expectError(await add('viewed', viewer), 'UNAUTHORIZED_ACTION', [at('')]);
      expectError(await t.call('DELETE', '/v1/environments/mine', { key: viewer }), 'UNAUTHORIZED_ACTION', [
        at(''),
      ]);
      const other = t.outsider.key;
      expectError(await t.call('DELETE', '/v1/environments/mine', { key: other }), 'ENVIRONMENT_NOT_FOUND');
      expectError(
        await t.call('GET', '/v1/environments/mine/values', { key: other }),
        'ENVIRONMENT_NOT_FOUND',
      );
      expect(await names(other)).not.toContain('mine');
      // Nor can another workspace's variable take a value there.
      const theirs = await t.call('POST', '/v1/variables', {
        key: other,
        body: { name: 'X', values: { mine: 'x' } },
      });
      expectError(theirs, 'VARIABLE_PAYLOAD_INVALID', [at('/values/mine')]);
      expectError(await t.call('DELETE', '/v1/environments/not%20a%20name'), 'ENVIRONMENT_NOT_FOUND');
      await t.call('DELETE', '/v1/environments/mine');
    });
  });

  describe('keys bound to an environment', () => {
    beforeAll(clear);

    it('POST /v1/keys binds a key to an environment of the workspace; the key shows it', async () => {
      await add('staging');
      const made = await t.call('POST', '/v1/keys', {
        key: admin,
        body: { name: 'staging runtime', scope: 'read', service: true, environment: 'staging' },
      });
      expect(made.status).toBe(201);
      expect(made.body.data.environment).toBe('staging');
      const plain = await t.call('POST', '/v1/keys', { key: admin, body: { name: 'plain', scope: 'read' } });
      expect(plain.body.data.environment).toBeNull();
      const whoami = await t.call('GET', '/v1/whoami', { key: made.body.data.key });
      expect(whoami.body.data.key.environment).toBe('staging');
      const listed = await t.call('GET', '/v1/keys', { key: admin });
      expect(listed.body.data.find((k: { id: string }) => k.id === made.body.data.id).environment).toBe(
        'staging',
      );

      // Bound, the environment stays; revoked, the key no longer holds it.
      expectError(await t.call('DELETE', '/v1/environments/staging'), 'ENVIRONMENT_IN_USE', [
        at('', expect.stringContaining('bound')),
      ]);
      expect((await t.call('DELETE', `/v1/keys/${made.body.data.id}`, { key: admin })).status).toBe(200);
      expect((await t.call('DELETE', '/v1/environments/staging')).status).toBe(204);
    });

    it('refuses an environment the workspace does not have, or no environment name', async () => {
      for (const environment of ['nowhere', 'not a name', 42]) {
        const answer = await t.call('POST', '/v1/keys', {
          key: admin,
          body: { name: 'bad', scope: 'read', environment },
        });
        expectError(answer, 'KEY_PAYLOAD_INVALID', [at('/environment')]);
      }
      await add('theirs', t.outsider.key);
      const across = await t.call('POST', '/v1/keys', {
        key: admin,
        body: { name: 'bad', scope: 'read', environment: 'theirs' },
      });
      expectError(across, 'KEY_PAYLOAD_INVALID', [at('/environment')]);
    });

    it('keys create --environment binds the key the operator issues; an unknown one is refused', async () => {
      await add('ci');
      const issued = await t.keysService.issue('acme', 'ci-bot', {
        scope: 'read',
        expiresAt: null,
        name: null,
        environment: 'ci',
      });
      const whoami = await t.call('GET', '/v1/whoami', { key: issued.key });
      expect(whoami.body.data.key.environment).toBe('ci');
      await expect(
        t.keysService.issue('acme', 'ci-bot', {
          scope: 'read',
          expiresAt: null,
          name: null,
          environment: 'nope',
        }),
      ).rejects.toMatchObject({ code: 'ENVIRONMENT_NOT_FOUND' });
      expectError(await t.call('DELETE', '/v1/environments/ci'), 'ENVIRONMENT_IN_USE', [at('')]);
    });
  });
});

/** Every migration before 0019. */
const BEFORE = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0019'));

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_POSTGRES_URL)(`migration 0019 on ${kind}`, () => {
    it('gives every workspace that existed its default environment, and keeps rules’ versions', async () => {
      const created = await createTestDatabase(kind);
      const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
      try {
        const db = database.db as Kysely<Tables>;
        const old = new Migrator({ db, provider: { getMigrations: async () => BEFORE } });
        expect((await old.migrateToLatest()).error).toBeUndefined();
        await db.insertInto('users').values({ id: 'usr_1', name: 'u', created_at: 1 }).execute();
        await db
          .insertInto('workspaces')
          .values([
            { id: 'ws_a', name: 'a', owner_user_id: 'usr_1', created_at: 5 },
            { id: 'ws_b', name: 'b', owner_user_id: 'usr_1', created_at: 7 },
          ])
          .execute();
        await migrate(database);
        const rows = await db.selectFrom('environments').selectAll().orderBy('workspace_id').execute();
        expect(rows.map((r) => [r.workspace_id, r.name, Number(r.creation_date)])).toEqual([
          ['ws_a', 'default', 5],
          ['ws_b', 'default', 7],
        ]);
        // The same name in two workspaces may have the same version in the change log now.
        const change = (workspace: string) => ({
          workspace_id: workspace,
          revision: 1,
          seq: 0,
          object_type: 'variable' as const,
          object_id: 'API_HOST',
          version: 1,
          change: 'created' as const,
          at: 1,
          by_user: 'usr_1',
          object: '{}',
        });
        await db
          .insertInto('changes')
          .values([change('ws_a'), change('ws_b')])
          .execute();
        await expect(
          db
            .insertInto('changes')
            .values({ ...change('ws_a'), revision: 2 })
            .execute(),
        ).rejects.toThrow();
      } finally {
        await database.close();
        await created.drop();
      }
    });
  });
}
