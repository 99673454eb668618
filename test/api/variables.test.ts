// Variables (decisions §20): kept, listed, read, changed and deleted with ETags and versions; their
// values per environment; secrets never read back (not by a list, a read, history, the change feed, an
// error message nor a log line) yet resolved for runtimes' keys; every refusal (bad names and values,
// the bounds, an unknown environment, a viewer writing, a session reading values, another workspace's
// variable); and each write a revision of the workspace, in the feed and the stream.
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { at, expectError } from '../helpers/fixtures.js';
import { addPerson, signIn } from '../helpers/people.js';
import { forEachDatabase, type TestApp, useTestApp } from '../helpers/test-app.js';

/** Secret values the tests write: none may come back through any route but the runtimes' values. */
const SECRET = 'hunter2-s3cr3t-value';
const NEW_SECRET = 'rotated-0ther-s3cr3t';

function withSession(
  t: TestApp,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  session: { cookie: string; csrf: string },
  body?: unknown,
) {
  return t.call(method, url, {
    key: null,
    body,
    headers: { cookie: session.cookie, ...(method === 'GET' ? {} : { 'x-rk-csrf': session.csrf }) },
  });
}

forEachDatabase((db) => {
  let log = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      log += chunk.toString();
      done();
    },
  });
  const t = useTestApp({
    db,
    env: { MAX_VARIABLES: '6', MAX_VARIABLE_VALUE_CHARS: '64', MAX_ENVIRONMENTS: '4' },
    logger: { level: 'trace', stream },
  });
  let viewer: string;
  let editorSession: { cookie: string; csrf: string };

  beforeAll(async () => {
    viewer = (await t.keysService.issue('acme', 'vera', { scope: 'read', expiresAt: null, name: null })).key;
    await addPerson(t, `eddie.${db}@example.com`, { role: 'editor' });
    editorSession = await signIn(t, `eddie.${db}@example.com`);
    expect((await t.call('POST', '/v1/environments', { body: { name: 'staging' } })).status).toBe(201);
  });

  /** Deletes every variable of acme and of other, so that each test starts with none. */
  async function clear() {
    for (const key of [t.owner.key, t.outsider.key]) {
      const listed = await t.call('GET', '/v1/variables', { key });
      for (const variable of listed.body.data)
        expect((await t.call('DELETE', `/v1/variables/${variable.name}`, { key })).status).toBe(200);
    }
  }

  const create = (body: unknown, key = t.owner.key) => t.call('POST', '/v1/variables', { key, body });

  describe('kept, listed, read, changed and deleted', () => {
    beforeAll(clear);

    it('keeps a variable with its value per environment, lists it and reads it with an ETag', async () => {
      const made = await create({
        name: 'API_HOST',
        description: 'where the API is',
        values: { default: 'localhost:3000', staging: 'staging.example.com' },
      });
      expect(made.status).toBe(201);
      const variable = made.body.data;
      expect(variable).toStrictEqual({
        name: 'API_HOST',
        description: 'where the API is',
        secret: false,
        values: { default: 'localhost:3000', staging: 'staging.example.com' },
        version: 1,
        creationDate: expect.any(Number),
        modificationDate: variable.creationDate,
      });
      expect(made.headers.location).toBe('/v1/variables/API_HOST');
      expect(Number(made.headers['rulekeeper-revision'])).toBeGreaterThan(0);

      const listed = await t.call('GET', '/v1/variables', { key: viewer });
      expect(listed.body).toStrictEqual({ success: true, data: [variable], total: 1, nextOffset: null });
      const read = await t.call('GET', '/v1/variables/API_HOST', { key: viewer });
      expect(read.body.data).toStrictEqual(variable);
      const unchanged = await t.call('GET', '/v1/variables/API_HOST', {
        headers: { 'if-none-match': String(read.headers.etag) },
      });
      expect(unchanged.status).toBe(304);
    });

    it('changes a variable field by field; values sent replace them all; a stale If-Match is 412', async () => {
      await create({ name: 'TO_CHANGE', values: { default: 'a', staging: 'b' } });
      const first = await t.call('GET', '/v1/variables/TO_CHANGE');
      const described = await t.call('PUT', '/v1/variables/TO_CHANGE', {
        key: t.teammate.key,
        body: { description: 'now described' },
        headers: { 'if-match': String(first.headers.etag) },
      });
      expect(described.status).toBe(200);
      expect(described.body.data).toMatchObject({
        description: 'now described',
        values: { default: 'a', staging: 'b' },
        version: 2,
      });
      const replaced = await t.call('PUT', '/v1/variables/TO_CHANGE', {
        body: { values: { staging: 'c' }, name: 'TO_CHANGE', version: 2 },
      });
      expect(replaced.body.data).toMatchObject({ values: { staging: 'c' }, version: 3 });
      expect(replaced.body.data.modificationDate).toBeGreaterThan(described.body.data.modificationDate);

      const stale = await t.call('PUT', '/v1/variables/TO_CHANGE', {
        body: { description: 'stale' },
        headers: { 'if-match': String(first.headers.etag) },
      });
      expectError(stale, 'PRECONDITION_FAILED', [at('')]);
      expect((await t.call('GET', '/v1/variables/TO_CHANGE')).body.data.description).toBe('now described');
      const renamed = await t.call('PUT', '/v1/variables/TO_CHANGE', { body: { name: 'OTHER' } });
      expectError(renamed, 'VARIABLE_PAYLOAD_INVALID', [at('/name')]);
    });

    it('deletes a variable: not found after, its versions kept; made again, its versions go on', async () => {
      await create({ name: 'TO_DELETE', values: { default: 'x' } });
      const gone = await t.call('DELETE', '/v1/variables/TO_DELETE', { key: t.teammate.key });
      expect(gone.body).toStrictEqual({ success: true, message: 'Variable deleted' });
      expectError(await t.call('GET', '/v1/variables/TO_DELETE'), 'VARIABLE_NOT_FOUND');
      expectError(await t.call('DELETE', '/v1/variables/TO_DELETE'), 'VARIABLE_NOT_FOUND');
      const versions = await t.call('GET', '/v1/variables/TO_DELETE/versions', { key: viewer });
      expect(versions.body.data.map((v: { change: string }) => v.change)).toStrictEqual([
        'deleted',
        'created',
      ]);
      const again = await create({ name: 'TO_DELETE' });
      expect(again.body.data.version).toBe(3);
    });

    it('names are case-sensitive: api_host and API_HOST are two variables', async () => {
      expect((await create({ name: 'api_host' })).status).toBe(201);
      expect((await t.call('GET', '/v1/variables/api_host')).body.data.name).toBe('api_host');
      expectError(await create({ name: 'API_HOST' }), 'VARIABLE_EXISTS', [at('/name')]);
    });
  });

  describe('secrets', () => {
    beforeAll(clear);

    it('are written and never read back: list, read, write answers, history and the feed show none', async () => {
      const before = Number((await t.call('GET', '/v1/changes')).body.latest);
      const made = await create({
        name: 'API_TOKEN',
        secret: true,
        values: { default: SECRET, staging: SECRET },
      });
      expect(made.status).toBe(201);
      expect(made.body.data.values).toStrictEqual({ default: null, staging: null });
      const changed = await t.call('PUT', '/v1/variables/API_TOKEN', {
        body: { values: { default: NEW_SECRET, staging: null } },
      });
      expect(changed.body.data).toMatchObject({ secret: true, values: { default: null, staging: null } });

      const answers = [
        made,
        changed,
        await t.call('GET', '/v1/variables'),
        await t.call('GET', '/v1/variables/API_TOKEN'),
        await t.call('GET', '/v1/variables/API_TOKEN/versions'),
        await t.call('GET', `/v1/changes?after=${before}`),
        await t.call('GET', '/v1/activity'),
        await withSession(t, 'GET', '/v1/variables', editorSession),
      ];
      for (const answer of answers) {
        expect(answer.status).toBeLessThan(300);
        expect(JSON.stringify(answer.body)).not.toContain(SECRET);
        expect(JSON.stringify(answer.body)).not.toContain(NEW_SECRET);
      }
      // History tells versions apart by fingerprints: the new default's differs, staging's kept value not.
      const [latest, first] = (answers[4] as (typeof answers)[number]).body.data;
      expect(first.object.values.default).toMatch(/^sha256:[0-9a-f]{16}$/);
      expect(latest.object.values.staging).toBe(first.object.values.staging);
      expect(latest.object.values.default).not.toBe(first.object.values.default);

      // The runtimes' key reads them resolved, the null having kept staging's.
      const values = await t.call('GET', '/v1/environments/staging/values', { key: viewer });
      expect(values.body.data.values.API_TOKEN).toBe(SECRET);
      const defaults = await t.call('GET', '/v1/environments/default/values', { key: viewer });
      expect(defaults.body.data.values.API_TOKEN).toBe(NEW_SECRET);
      // No log line carries them (the trace level logs every request).
      expect(log).not.toContain(SECRET);
      expect(log).not.toContain(NEW_SECRET);
    });

    it('refusals never quote a value', async () => {
      const long = `${SECRET}${'x'.repeat(100)}`;
      const refused = [
        await create({ name: 'BAD_ONE', secret: true, values: { default: long } }),
        await create({ name: 'BAD_TWO', secret: true, values: { default: `${SECRET}\r\nX-Injected: 1` } }),
        await create({ name: 'BAD_THREE', secret: true, values: { nowhere: SECRET } }),
        await create({ name: 'BAD_FOUR', secret: true, values: { default: 42, 'not an env!': SECRET } }),
      ];
      for (const answer of refused) {
        expect(answer.status).toBe(400);
        expect(JSON.stringify(answer.body)).not.toContain(SECRET);
      }
      expect(log).not.toContain(SECRET);
    });

    it('made plain, a secret needs its values given again, so that it never becomes readable', async () => {
      await create({ name: 'TO_UNSECRET', secret: true, values: { default: SECRET } });
      const bare = await t.call('PUT', '/v1/variables/TO_UNSECRET', { body: { secret: false } });
      expectError(bare, 'VARIABLE_PAYLOAD_INVALID', [at('/values')]);
      const kept = await t.call('PUT', '/v1/variables/TO_UNSECRET', {
        body: { secret: false, values: { default: null } },
      });
      expectError(kept, 'VARIABLE_PAYLOAD_INVALID', [at('/values/default')]);
      const given = await t.call('PUT', '/v1/variables/TO_UNSECRET', {
        body: { secret: false, values: { default: 'public now' } },
      });
      expect(given.body.data).toMatchObject({ secret: false, values: { default: 'public now' } });
      const made = await t.call('PUT', '/v1/variables/TO_UNSECRET', { body: { secret: true } });
      expect(made.body.data.values).toStrictEqual({ default: null });
    });

    it('a signed-in session never reads the values, even an owner’s; a key of any scope does', async () => {
      const refused = await withSession(t, 'GET', '/v1/environments/default/values', editorSession);
      expectError(refused, 'UNAUTHORIZED_ACTION', [at('')]);
      expect(JSON.stringify(refused.body)).not.toContain(SECRET);
      const read = await t.call('GET', '/v1/environments/default/values', { key: viewer });
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ environment: 'default', revision: expect.any(Number) });
      const again = await t.call('GET', '/v1/environments/default/values', {
        key: viewer,
        headers: { 'if-none-match': String(read.headers.etag) },
      });
      expect(again.status).toBe(304);
      expectError(
        await t.call('GET', '/v1/environments/nowhere/values', { key: viewer }),
        'ENVIRONMENT_NOT_FOUND',
      );
    });
  });

  describe('refusals', () => {
    beforeAll(clear);

    it('refuses bad names, descriptions, values and fields, changing nothing', async () => {
      const before = (await t.call('GET', '/v1/changes')).body.latest;
      const cases: [unknown, string[]][] = [
        [{}, ['/name']],
        [{ name: '1ABC' }, ['/name']],
        [{ name: 'A-B' }, ['/name']],
        [{ name: `A${'B'.repeat(64)}` }, ['/name']],
        [{ name: 'A{{B}}' }, ['/name']],
        [{ name: 'OK', description: 'd'.repeat(1025) }, ['/description']],
        [{ name: 'OK', values: { default: 'a\nb' } }, ['/values/default']],
        [{ name: 'OK', values: { default: 'a\rb' } }, ['/values/default']],
        [{ name: 'OK', values: { default: 'a\u0007b' } }, ['/values/default']],
        [{ name: 'OK', values: { default: 'x'.repeat(65) } }, ['/values/default']],
        [{ name: 'OK', values: { default: null } }, ['/values/default']],
        [{ name: 'OK', values: { missing: 'x' } }, ['/values/missing']],
        [{ name: 'OK', values: { 'a/b': 'x' } }, ['/values/a~1b']],
        [{ name: 'OK', values: { a: '1', b: '2', c: '3', d: '4', e: '5' } }, ['/values']],
        [{ name: 'OK', secret: 'yes' }, ['/secret']],
        [{ name: 'OK', extra: 1 }, ['/extra']],
        [[], ['']],
      ];
      for (const [body, paths] of cases) {
        const answer = await create(body);
        expectError(
          answer,
          'VARIABLE_PAYLOAD_INVALID',
          paths.map((path) => at(path)),
        );
      }
      // A tab is fine.
      expect((await create({ name: 'TABBED', values: { default: 'a\tb' } })).status).toBe(201);
      const nul = await t.call('POST', '/v1/variables', {
        body: '{"name":"NUL","values":{"default":"a\\u0000b"}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(nul.status).toBe(400);
      expect((await t.call('GET', '/v1/changes')).body.latest).toBe(before + 1);
      expect((await t.call('GET', '/v1/variables')).body.total).toBe(1);
    });

    it('keeps at most MAX_VARIABLES', async () => {
      await clear();
      for (let i = 0; i < 6; i++) expect((await create({ name: `V${i}` })).status).toBe(201);
      expectError(await create({ name: 'ONE_MORE' }), 'VARIABLES_FULL', [at('')]);
      // Another workspace has room of its own.
      expect((await create({ name: 'V0' }, t.outsider.key)).status).toBe(201);
      await clear();
    });

    it('a viewer reads but does not write; another workspace’s variable is not found', async () => {
      await create({ name: 'MINE', values: { default: 'acme' } });
      expectError(await create({ name: 'VIEWED' }, viewer), 'UNAUTHORIZED_ACTION', [at('')]);
      expectError(
        await t.call('PUT', '/v1/variables/MINE', { key: viewer, body: {} }),
        'UNAUTHORIZED_ACTION',
        [at('')],
      );
      expectError(await t.call('DELETE', '/v1/variables/MINE', { key: viewer }), 'UNAUTHORIZED_ACTION', [
        at(''),
      ]);
      const other = t.outsider.key;
      expectError(await t.call('GET', '/v1/variables/MINE', { key: other }), 'VARIABLE_NOT_FOUND');
      expectError(await t.call('PUT', '/v1/variables/MINE', { key: other, body: {} }), 'VARIABLE_NOT_FOUND');
      expectError(await t.call('DELETE', '/v1/variables/MINE', { key: other }), 'VARIABLE_NOT_FOUND');
      expectError(await t.call('GET', '/v1/variables/MINE/versions', { key: other }), 'VARIABLE_NOT_FOUND');
      expect((await t.call('GET', '/v1/variables', { key: other })).body.total).toBe(0);
      const theirs = await t.call('GET', '/v1/environments/default/values', { key: other });
      expect(theirs.body.data.values).toStrictEqual({});
      // A name of no variable's form is not found either.
      expectError(await t.call('GET', '/v1/variables/not%20a%20name'), 'VARIABLE_NOT_FOUND');
    });

    it('an editor’s session writes variables (with its CSRF token), even while review is required', async () => {
      const admin = (
        await t.keysService.issue('acme', 'ada', { scope: 'admin', expiresAt: null, name: null })
      ).key;
      expect(
        (await t.call('PATCH', '/v1/settings', { key: admin, body: { review: 'required' } })).status,
      ).toBe(200);
      try {
        const made = await withSession(t, 'POST', '/v1/variables', editorSession, { name: 'BY_SESSION' });
        expect(made.status).toBe(201);
        const key = await t.call('PUT', '/v1/variables/BY_SESSION', {
          key: t.teammate.key,
          body: { description: 'by key' },
        });
        expect(key.status).toBe(200);
      } finally {
        await t.call('PATCH', '/v1/settings', { key: admin, body: { review: 'off' } });
      }
    });
  });

  describe('revisions and the stream', () => {
    beforeAll(clear);

    it('each write is one revision, a change of objectType variable named by its name', async () => {
      const before = Number((await t.call('GET', '/v1/changes')).body.latest);
      const made = await create({ name: 'STREAMED', values: { default: '1' } });
      const changed = await t.call('PUT', '/v1/variables/STREAMED', { body: { values: { default: '2' } } });
      const gone = await t.call('DELETE', '/v1/variables/STREAMED');
      const revisions = [made, changed, gone].map((answer) => Number(answer.headers['rulekeeper-revision']));
      expect(revisions).toStrictEqual([before + 1, before + 2, before + 3]);
      const feed = await t.call('GET', `/v1/changes?after=${before}`);
      expect(
        feed.body.data.map((c: Record<string, unknown>) => [c.revision, c.objectType, c.id, c.change]),
      ).toStrictEqual([
        [before + 1, 'variable', 'STREAMED', 'created'],
        [before + 2, 'variable', 'STREAMED', 'updated'],
        [before + 3, 'variable', 'STREAMED', 'deleted'],
      ]);
      const activity = await t.call('GET', '/v1/activity?kind=variable_updated');
      expect(activity.body.data[0]).toMatchObject({
        kind: 'variable_updated',
        object: { type: 'variable', id: 'STREAMED' },
      });
      // A refused write records nothing.
      expectError(await create({ name: 'x-bad' }), 'VARIABLE_PAYLOAD_INVALID', [at('/name')]);
      expect(Number((await t.call('GET', '/v1/changes')).body.latest)).toBe(before + 3);
    });

    it('the same name in two workspaces has versions of its own in each', async () => {
      await create({ name: 'SHARED' });
      await create({ name: 'SHARED' }, t.outsider.key);
      await t.call('PUT', '/v1/variables/SHARED', { body: { description: 'acme' } });
      const acme = await t.call('GET', '/v1/variables/SHARED/versions');
      const other = await t.call('GET', '/v1/variables/SHARED/versions', { key: t.outsider.key });
      expect(acme.body.data.map((v: { version: number }) => v.version)).toStrictEqual([2, 1]);
      expect(other.body.data.map((v: { version: number }) => v.version)).toStrictEqual([1]);
    });
  });
});
