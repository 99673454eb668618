// Test suites kept in the workspace (/v1/test-suites): kept, listed, read, changed and deleted; run
// against the workspace's rules with each case's verdict; every refusal (cases a `rulekeeper test`
// file could not hold, over the bounds, a name taken, a viewer writing, another workspace's suite);
// and `rulekeeper test --suite NAME` against this server and against its database.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

/** Processes on a loaded two-core machine: the limit only catches hangs (as the system suites'). */
const CLI_TIME = 180_000;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `rulekeeper test ...args` from the sources, as an operator runs the command. */
function rulekeeper(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

const redirect = {
  name: 'checkout to staging',
  ruleType: 'Redirect',
  status: 'Active',
  pairs: [
    {
      source: { key: 'host', operator: 'Equals', value: 'shop.example.com' },
      destinationType: 'url',
      destination: 'https://staging.example.com/checkout',
    },
  ],
};

const passing = {
  name: 'checkout goes to staging',
  request: { url: 'https://shop.example.com/checkout' },
  expect: { url: 'https://staging.example.com/checkout', redirected: true },
};
const failing = {
  name: 'ads are blocked',
  request: { url: 'https://ads.example.net/banner.js' },
  expect: { cancelled: true },
};

forEachDatabase((db) => {
  const t = useTestApp({ db, env: { MAX_TEST_SUITES: '3', MAX_TEST_SUITE_CASES: '5' } });
  let reader: string;
  let ruleId: string;

  beforeAll(async () => {
    reader = (await t.keysService.issue('acme', 'rita', { scope: 'read', expiresAt: null, name: null })).key;
    const created = await t.call('POST', '/v1/rules', { body: redirect });
    expect(created.status).toBe(201);
    ruleId = created.body.data.id;
  });

  /** Deletes every suite of acme and of other, so that each test starts with none. */
  async function clear() {
    for (const key of [t.owner.key, t.outsider.key]) {
      const listed = await t.call('GET', '/v1/test-suites', { key });
      for (const suite of listed.body.data)
        expect((await t.call('DELETE', `/v1/test-suites/${suite.id}`, { key })).status).toBe(200);
    }
  }

  async function create(body: unknown, key = t.owner.key) {
    return t.call('POST', '/v1/test-suites', { key, body });
  }

  describe('kept, listed, read, changed and deleted', () => {
    beforeAll(clear);

    it('keeps a suite, lists it without its cases, and answers it whole', async () => {
      const made = await create({ name: '  checkout  ', cases: [passing, failing] });
      expect(made.status).toBe(201);
      const suite = made.body.data;
      expect(suite).toStrictEqual({
        id: expect.stringMatching(/^suite_[a-z0-9]+$/),
        name: 'checkout',
        caseCount: 2,
        cases: [passing, failing],
        createdBy: t.owner.userId,
        lastModifiedBy: t.owner.userId,
        creationDate: expect.any(Number),
        modificationDate: suite.creationDate,
      });
      expect(made.headers.location).toBe(`/v1/test-suites/${suite.id}`);

      const { cases: _cases, ...summary } = suite;
      const listed = await t.call('GET', '/v1/test-suites', { key: reader });
      expect(listed.body).toStrictEqual({ success: true, data: [summary], total: 1, nextOffset: null });
      const named = await t.call('GET', '/v1/test-suites?name=checkout');
      expect(named.body.data).toStrictEqual([summary]);
      const none = await t.call('GET', '/v1/test-suites?name=check');
      expect(none.body).toMatchObject({ data: [], total: 0 });

      const read = await t.call('GET', `/v1/test-suites/${suite.id}`, { key: reader });
      expect(read.body.data).toStrictEqual(suite);
      const unchanged = await t.call('GET', `/v1/test-suites/${suite.id}`, {
        headers: { 'if-none-match': String(read.headers.etag) },
      });
      expect(unchanged.status).toBe(304);
    });

    it('renames a suite and replaces its cases, each field alone, by the editor who did', async () => {
      const { id } = (await create({ name: 'to change', cases: [passing] })).body.data;
      const renamed = await t.call('PUT', `/v1/test-suites/${id}`, {
        key: t.teammate.key,
        body: { name: 'changed' },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({ name: 'changed', cases: [passing], caseCount: 1 });
      expect(renamed.body.data.lastModifiedBy).toBe(t.teammate.userId);
      expect(renamed.body.data.createdBy).toBe(t.owner.userId);

      const replaced = await t.call('PUT', `/v1/test-suites/${id}`, {
        body: { cases: [failing, passing, failing] },
        headers: { 'if-match': String(renamed.headers.etag) },
      });
      expect(replaced.body.data).toMatchObject({ name: 'changed', caseCount: 3 });
      expect(replaced.body.data.cases).toStrictEqual([failing, passing, failing]);
      expect(replaced.body.data.modificationDate).toBeGreaterThan(renamed.body.data.modificationDate);

      // The ETag read before the last change no longer holds.
      const stale = await t.call('PUT', `/v1/test-suites/${id}`, {
        body: { name: 'stale' },
        headers: { 'if-match': String(renamed.headers.etag) },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.code).toBe('PRECONDITION_FAILED');
      expect((await t.call('GET', `/v1/test-suites/${id}`)).body.data.name).toBe('changed');
    });

    it('deletes a suite: it is not found after', async () => {
      const { id } = (await create({ name: 'to delete', cases: [] })).body.data;
      const gone = await t.call('DELETE', `/v1/test-suites/${id}`, { key: t.teammate.key });
      expect(gone.body).toStrictEqual({ success: true, message: 'Test suite deleted' });
      expectError(await t.call('GET', `/v1/test-suites/${id}`), 'TEST_SUITE_NOT_FOUND');
      expectError(await t.call('DELETE', `/v1/test-suites/${id}`), 'TEST_SUITE_NOT_FOUND');
    });
  });

  describe('run', () => {
    beforeAll(clear);

    it("judges each case against the workspace's rules as they are now, and a viewer may run it", async () => {
      const { id } = (
        await create({
          name: 'checkout',
          cases: [
            passing,
            failing,
            { name: 'acted', request: passing.request, expect: { acted: [ruleId] } },
            { name: 'not a URL', request: { url: 'nowhere' }, expect: {} },
          ],
        })
      ).body.data;
      const run = await t.call('POST', `/v1/test-suites/${id}/run`, { key: reader });
      expect(run.status).toBe(200);
      expect(run.body.data).toStrictEqual({
        suite: { id, name: 'checkout' },
        cases: [
          { name: passing.name, passed: true, problems: [] },
          { name: failing.name, passed: false, problems: ['outcome.cancelled: expected true, got false'] },
          { name: 'acted', passed: true, problems: [] },
          {
            name: 'not a URL',
            passed: false,
            problems: [
              expect.stringMatching(/^the trace was refused: 400 Invalid trace request \/request\/url/),
            ],
          },
        ],
        passed: 2,
        failed: 2,
        ranAt: expect.any(Number),
      });

      // The rule deactivated: the case that expected it now fails, saying what differed.
      expect((await t.call('PUT', `/v1/rules/${ruleId}`, { body: { status: 'Inactive' } })).status).toBe(200);
      const after = await t.call('POST', `/v1/test-suites/${id}/run`, { key: reader });
      expect(after.body.data.cases[0]).toStrictEqual({
        name: passing.name,
        passed: false,
        problems: [
          'outcome.url: expected "https://staging.example.com/checkout", got "https://shop.example.com/checkout"',
          'outcome.redirected: expected true, got false',
        ],
      });
      expect(after.body.data.cases[2].problems).toStrictEqual([`acted: expected ["${ruleId}"], got []`]);
      expect((await t.call('PUT', `/v1/rules/${ruleId}`, { body: { status: 'Active' } })).status).toBe(200);
    });
  });

  describe('refusals', () => {
    beforeAll(clear);

    it('refuses cases a `rulekeeper test` file could not hold, naming the case as people count', async () => {
      const bad = await create({ name: 'bad', cases: [passing, { name: 'no expect', request: {} }] });
      expectError(bad, 'TEST_SUITE_PAYLOAD_INVALID', [
        {
          path: '/cases/1',
          message: 'case 2 must have a name, a request object and an expect object',
        },
      ]);
      const notList = await create({ name: 'bad', cases: { passing } });
      expectError(notList, 'TEST_SUITE_PAYLOAD_INVALID', [{ path: '/cases', message: expect.any(String) }]);
      const arrayRequest = await create({ name: 'bad', cases: [{ ...passing, request: [] }] });
      expectError(arrayRequest, 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/cases/0', message: 'case 1 must have a name, a request object and an expect object' },
      ]);
      expectError(await create({ name: '  ', cases: [] }), 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/name', message: 'a non-blank name is required' },
      ]);
      expectError(await create({ name: 'x'.repeat(257), cases: [] }), 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/name', message: 'must be at most 256 characters long' },
      ]);
      expectError(await create({ name: 'no cases' }), 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/cases', message: expect.any(String) },
      ]);
      expectError(await create({ name: 'x', cases: [], extra: 1 }), 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/extra', message: expect.any(String) },
      ]);
      expectError(await create([passing]), 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '', message: 'the body must be a JSON object' },
      ]);
      expect((await t.call('GET', '/v1/test-suites')).body.total).toBe(0);

      const { id } = (await create({ name: 'good', cases: [passing] })).body.data;
      const put = await t.call('PUT', `/v1/test-suites/${id}`, { body: { cases: [passing, 7] } });
      expectError(put, 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/cases/1', message: 'case 2 must have a name, a request object and an expect object' },
      ]);
      expect((await t.call('GET', `/v1/test-suites/${id}`)).body.data.cases).toStrictEqual([passing]);
    });

    it('refuses more cases than a suite holds, and more suites than a workspace keeps', async () => {
      await clear();
      const many = Array.from({ length: 6 }, (_, i) => ({ ...passing, name: `case ${i + 1}` }));
      expectError(await create({ name: 'many', cases: many }), 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/cases', message: 'a suite holds at most 5 cases; this one has 6' },
      ]);
      const { id } = (await create({ name: 'one', cases: [passing] })).body.data;
      expectError(
        await t.call('PUT', `/v1/test-suites/${id}`, { body: { cases: many } }),
        'TEST_SUITE_PAYLOAD_INVALID',
        [{ path: '/cases', message: 'a suite holds at most 5 cases; this one has 6' }],
      );
      await create({ name: 'two', cases: [] });
      await create({ name: 'three', cases: [] });
      expectError(await create({ name: 'four', cases: [] }), 'TEST_SUITES_FULL', [
        { path: '', message: 'a workspace keeps at most 3 test suites; delete one first' },
      ]);
      // Paged by name, as the house's lists are.
      const first = await t.call('GET', '/v1/test-suites?pageSize=2');
      expect(first.body).toMatchObject({ total: 3, nextOffset: 2 });
      expect(first.body.data.map((suite: { name: string }) => suite.name)).toStrictEqual(['one', 'three']);
      const last = await t.call('GET', '/v1/test-suites?pageSize=2&offset=2');
      expect(last.body).toMatchObject({ total: 3, nextOffset: null });
      expect(last.body.data.map((suite: { name: string }) => suite.name)).toStrictEqual(['two']);
      // Another workspace has room of its own.
      expect((await create({ name: 'four', cases: [] }, t.outsider.key)).status).toBe(201);
      expect((await t.call('GET', '/v1/test-suites')).body.total).toBe(3);
    });

    it('refuses a suite of 100,000 cases at once, and a body over the limit', async () => {
      await clear();
      const tiny = { name: '', request: {}, expect: {} };
      const huge = await create({ name: 'huge', cases: Array.from({ length: 100_000 }, () => tiny) });
      expectError(huge, 'PAYLOAD_TOO_LARGE');
      // Within the body limit, but far over the count: refused before any case is looked at.
      const many = await create({ name: 'many', cases: Array.from({ length: 20_000 }, () => tiny) });
      expectError(many, 'TEST_SUITE_PAYLOAD_INVALID', [
        { path: '/cases', message: 'a suite holds at most 5 cases; this one has 20000' },
      ]);
    });

    it('refuses a name another suite of the workspace has', async () => {
      await clear();
      await create({ name: 'same', cases: [] });
      expectError(await create({ name: ' same ', cases: [] }), 'TEST_SUITE_EXISTS', [
        { path: '/name', message: 'the workspace has a suite named "same" already' },
      ]);
      const { id } = (await create({ name: 'other', cases: [] })).body.data;
      expectError(
        await t.call('PUT', `/v1/test-suites/${id}`, { body: { name: 'same' } }),
        'TEST_SUITE_EXISTS',
        [{ path: '/name', message: 'the workspace has a suite named "same" already' }],
      );
      // The same name in another workspace is another suite.
      expect((await create({ name: 'same', cases: [] }, t.outsider.key)).status).toBe(201);
      // Two at once: one is kept, the other told the name is taken.
      const both = await Promise.all([
        create({ name: 'race', cases: [] }),
        create({ name: 'race', cases: [] }),
      ]);
      expect(both.map((reply) => reply.status).sort()).toStrictEqual([201, 409]);
    });

    it('lets a viewer read and run, never write', async () => {
      await clear();
      const { id } = (await create({ name: 'kept', cases: [passing] })).body.data;
      const writes = [
        await create({ name: 'mine', cases: [] }, reader),
        await t.call('PUT', `/v1/test-suites/${id}`, { key: reader, body: { name: 'mine' } }),
        await t.call('DELETE', `/v1/test-suites/${id}`, { key: reader }),
      ];
      for (const reply of writes)
        expectError(reply, 'UNAUTHORIZED_ACTION', [
          { path: '', message: "this key's scope is read: it cannot change rules or groups" },
        ]);
      expect((await t.call('GET', `/v1/test-suites/${id}`, { key: reader })).body.data.name).toBe('kept');
      expect((await t.call('POST', `/v1/test-suites/${id}/run`, { key: reader })).status).toBe(200);
    });

    it("answers another workspace's suite as not found, whatever is asked of it", async () => {
      await clear();
      const { id } = (await create({ name: 'ours', cases: [passing] })).body.data;
      const key = t.outsider.key;
      for (const reply of [
        await t.call('GET', `/v1/test-suites/${id}`, { key }),
        await t.call('PUT', `/v1/test-suites/${id}`, { key, body: { name: 'theirs' } }),
        await t.call('PUT', `/v1/test-suites/${id}`, { key, body: { cases: 'not even valid' } }),
        await t.call('POST', `/v1/test-suites/${id}/run`, { key }),
        await t.call('DELETE', `/v1/test-suites/${id}`, { key }),
        await t.call('GET', '/v1/test-suites/suite_nosuchsuite'),
        await t.call('GET', '/v1/test-suites/Group_abcde'),
        await t.call('GET', `/v1/test-suites/${'x'.repeat(300)}`),
      ])
        expectError(reply, 'TEST_SUITE_NOT_FOUND');
      expect((await t.call('GET', '/v1/test-suites', { key })).body.data).toStrictEqual([]);
      expect((await t.call('GET', `/v1/test-suites/${id}`)).body.data.name).toBe('ours');
    });

    it('refuses a list query it does not know', async () => {
      expectError(await t.call('GET', '/v1/test-suites?pageSize=0'), 'INVALID_QUERY', [
        { path: '/pageSize', message: 'must be from 1 to 1000' },
      ]);
      expectError(await t.call('GET', '/v1/test-suites?sort=name'), 'INVALID_QUERY', [
        { path: '/sort', message: expect.any(String) },
      ]);
    });
  });

  describe('all: every suite of a workspace with its cases, for evidence', () => {
    it("answers the workspace's suites by name, and none of another's", async () => {
      await clear();
      const b = (await create({ name: 'b', cases: [failing] })).body.data;
      const a = (await create({ name: 'a', cases: [passing, failing] })).body.data;
      await create({ name: 'theirs', cases: [passing] }, t.outsider.key);
      const { createTestSuitesStore } = await import('../../src/modules/test-suites/test-suites-store.js');
      const store = createTestSuitesStore(t.database.db, t.database.dialect);
      expect(await store.all(t.database.db, t.owner.workspaceId)).toStrictEqual([
        { id: a.id, name: 'a', cases: [passing, failing] },
        { id: b.id, name: 'b', cases: [failing] },
      ]);
    });
  });

  describe('rulekeeper test --suite NAME', () => {
    let server: string;
    beforeAll(async () => {
      await clear();
      await create({ name: 'good', cases: [passing] });
      await create({ name: 'mixed', cases: [passing, failing] });
      // Closed with the app.
      server = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });

    it.each(['server', 'workspace'])(
      'runs a suite as a file is run (%s), exit 0 when all pass',
      async (mode) => {
        const args = mode === 'server' ? ['--server', server, '--key', reader] : ['--workspace', 'acme'];
        const env = { DATABASE_URL: t.config.databaseUrl };
        const good = await rulekeeper(['test', '--suite', 'good', ...args], env);
        expect(good.stderr).toBe('');
        expect(good.stdout).toContain('ok    checkout goes to staging');
        expect(good.stdout).toContain('1 passed, 0 failed');
        expect(good.code).toBe(0);

        const mixed = await rulekeeper(['test', '--suite', 'mixed', ...args], env);
        expect(mixed.stdout).toContain('ok    checkout goes to staging');
        expect(mixed.stdout).toContain(
          'FAIL  ads are blocked\n        outcome.cancelled: expected true, got false',
        );
        expect(mixed.stdout).toContain('1 passed, 1 failed');
        expect(mixed.code).toBe(1);

        const missing = await rulekeeper(['test', '--suite', 'nope', ...args], env);
        expect(missing.stderr).toBe(
          'rulekeeper test: no test suite named "nope" in the workspace (see GET /v1/test-suites)\n',
        );
        expect(missing.code).toBe(2);
      },
      CLI_TIME,
    );

    it(
      'takes a file or a suite, not both',
      async () => {
        const both = await rulekeeper(['test', 'cases.json', '--suite', 'good', '--workspace', 'acme'], {
          DATABASE_URL: t.config.databaseUrl,
        });
        expect(both.stderr).toBe('rulekeeper test: give a FILE of cases or --suite NAME (one of them)\n');
        expect(both.code).toBe(2);
      },
      CLI_TIME,
    );
  });
});

forEachDatabase((db) => {
  // Traces on the event loop itself (as with TRACE_WORKERS=0): the worst case for everyone else.
  const t = useTestApp({ db, env: { TRACE_WORKERS: '0' } });

  it('answers other requests while a suite of 1000 cases runs', async () => {
    const cases = Array.from({ length: 1000 }, (_, i) => ({ ...failing, name: `case ${i + 1}` }));
    const made = await t.call('POST', '/v1/test-suites', { body: { name: 'long', cases } });
    expect(made.status).toBe(201);
    const finished: string[] = [];
    const run = t.call('POST', `/v1/test-suites/${made.body.data.id}/run`).then((reply) => {
      finished.push('run');
      return reply;
    });
    const other = t.call('GET', '/v1/rules', { key: t.outsider.key }).then((reply) => {
      finished.push('other');
      return reply;
    });
    expect((await other).status).toBe(200);
    const ran = await run;
    expect(finished).toStrictEqual(['other', 'run']);
    expect(ran.body.data).toMatchObject({ passed: 0, failed: 1000 });
  });
});
