// rulekeeper/runtime against a real server: an exact copy of the workspace through creates, updates,
// deletes and group changes; resumed after a restart without a revision missed; `reset` (a server
// restored from an older backup) and `bulk` (a large import); a revoked key ending it with an error;
// evaluate() agreeing with POST /v1/trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRuntime,
  followWorkspace,
  KeyRefusedError,
  type Runtime,
  type RuntimeChange,
} from '../../src/runtime/index.js';
import { type ServedApp, servedData } from '../helpers/served-app.js';

const data = servedData();
let server: ServedApp;
let key: string;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  server = await data.serve({ env: { KEY_CACHE_TTL_MS: '200' } });
  ({ key } = await server.keysService.issue('acme', 'alice'));
});
afterAll(async () => {
  for (const runtime of runtimes) runtime.close();
  await server?.stop();
  data.remove();
});

function follow(withKey = key): { runtime: Runtime; changes: RuntimeChange[] } {
  const runtime = createRuntime({ server: server.url, key: withKey, minRetryMs: 20, maxRetryMs: 200 });
  runtimes.push(runtime);
  const changes: RuntimeChange[] = [];
  runtime.on('change', (change) => changes.push(change));
  return { runtime, changes };
}

async function write(method: string, path: string, body?: unknown, withKey = key) {
  const reply = await server.api(withKey, method, path, body);
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply;
}

const rule = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  ruleType: 'Redirect',
  status: 'Active',
  pairs: [
    {
      source: { key: 'Url', operator: 'Wildcard_Matches', value: `https://${name}.example/*` },
      destinationType: 'url',
      destination: `https://to.example/${name}/$1`,
    },
  ],
  ...extra,
});

/** The workspace as its lists say now (groups without the lists' counts), in list order. */
async function serverCopy(withKey = key) {
  const rules: unknown[] = [];
  for (let offset = 0; offset >= 0; ) {
    const page = (await write('GET', `/rules?pageSize=1000&offset=${offset}`, undefined, withKey)).body;
    rules.push(...page.data);
    offset = page.nextOffset ?? -1;
  }
  const groups = (await write('GET', '/groups?pageSize=1000', undefined, withKey)).body.data.map(
    ({ ruleCount: _r, activeRuleCount: _a, ...group }: Record<string, unknown>) => group,
  );
  return { rules, groups };
}

async function expectExact(runtime: Runtime, revision: number, withKey = key) {
  await runtime.reached(revision);
  const expected = await serverCopy(withKey);
  expect(runtime.rules()).toEqual(expected.rules);
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
  expect([...runtime.groups()].sort(byId)).toEqual(expected.groups.sort(byId));
}

describe('rulekeeper/runtime', () => {
  it('keeps an exact copy through creates, updates, deletes and group changes', async () => {
    const { runtime, changes } = follow();
    await runtime.ready;
    expect(runtime.status()).toMatchObject({ state: 'live', rules: 0, groups: 0 });
    const group = (await write('POST', '/groups', { name: 'team' })).body.data;
    const a = (await write('POST', '/rules', rule('a'))).body.data;
    const b = (await write('POST', '/rules', rule('b', { groupId: group.id }))).body.data;
    await expectExact(runtime, (await write('PUT', `/rules/${a.id}`, { name: 'a2' })).revision);
    expect(runtime.rules().map((r) => r.name)).toEqual(['a2', 'b']);
    await expectExact(runtime, (await write('PUT', `/groups/${group.id}`, { status: 'Inactive' })).revision);
    expect(runtime.evaluate({ url: 'https://b.example/x' }).outcome.redirected).toBe(false);
    await expectExact(runtime, (await write('DELETE', `/groups/${group.id}`)).revision);
    // The group's deletion ungrouped its rule, which acts again.
    expect(runtime.rules().find((r) => r.id === b.id)?.groupId).toBe('');
    expect(runtime.evaluate({ url: 'https://b.example/x' }).outcome.url).toBe('https://to.example/b/x');
    await expectExact(runtime, (await write('DELETE', `/rules/${a.id}`)).revision);
    expect(runtime.rules().map((r) => r.id)).toEqual([b.id]);
    // Each revision applied object by object, after the one first copy.
    expect(changes[0]).toMatchObject({ reloaded: true });
    expect(changes.slice(1).every((c) => !c.reloaded)).toBe(true);
    expect(changes.at(-1)?.changed).toEqual([{ objectType: 'rule', id: a.id }]);
  });

  it('resumes after the server restarts, with the changes made while it was away and no reload', async () => {
    const { runtime, changes } = follow();
    await runtime.ready;
    const kept = (await write('POST', '/rules', rule('kept'))).body.data;
    await runtime.reached((await write('PUT', `/rules/${kept.id}`, { name: 'kept 1' })).revision);
    const before = runtime.status().revision;
    const seen = changes.length;
    const port = server.port;
    await server.stop();
    const made: string[] = [];
    let last = 0;
    // Changes made on the new server before it listens: the runtime cannot have been connected.
    server = await data.serve({
      port,
      env: { KEY_CACHE_TTL_MS: '200' },
      before: async (app) => {
        for (const name of ['r1', 'r2', 'r3']) {
          const reply = await app.api(key, 'POST', '/rules', rule(name));
          made.push(reply.body.data.id);
          last = reply.revision;
        }
        last = (await app.api(key, 'DELETE', `/rules/${kept.id}`)).revision;
      },
    });
    await expectExact(runtime, last);
    const resumed = changes.slice(seen);
    expect(resumed.every((c) => !c.reloaded)).toBe(true);
    expect(resumed.flatMap((c) => c.changed.map((x) => x.id)).sort()).toEqual([...made, kept.id].sort());
    expect(resumed.map((c) => c.revision)).toEqual([...resumed.map((c) => c.revision)].sort((x, y) => x - y));
    expect(resumed[0]?.revision).toBeGreaterThan(before);
    expect(runtime.status().state).toBe('live');
  });

  it('reads everything again on `reset`: a server restored from an older backup', async () => {
    const { runtime } = follow();
    await runtime.ready;
    const port = server.port;
    await server.stop();
    const backup = data.backup();
    server = await data.serve({ port, env: { KEY_CACHE_TTL_MS: '200' } });
    const after = (await write('POST', '/rules', rule('after-backup'))).revision;
    await runtime.reached(after);
    expect(runtime.rules().map((r) => r.name)).toContain('after-backup');
    const changesSeen: RuntimeChange[] = [];
    runtime.on('change', (c) => changesSeen.push(c));
    await server.stop();
    data.restore(backup);
    server = await data.serve({ port, env: { KEY_CACHE_TTL_MS: '200' } });
    // The runtime resumes after a revision the restored server never reached: it says reset.
    await new Promise<void>((resolve) => {
      const stop = runtime.on('change', (c) => {
        if (c.reloaded) {
          stop();
          resolve();
        }
      });
    });
    const restored = (await write('GET', '/changes?limit=1')).revision;
    await expectExact(runtime, restored);
    expect(runtime.status().revision).toBe(restored);
    expect(runtime.rules().map((r) => r.name)).not.toContain('after-backup');
  });

  it('reads the lists again on `bulk` (an import of 1,001 rules) and goes on with the same stream', async () => {
    const { runtime, changes } = follow();
    await runtime.ready;
    const records = Array.from({ length: 1001 }, (_, i) => ({ objectType: 'rule', ...rule(`bulk${i}`) }));
    const imported = await write('POST', '/import', records);
    await expectExact(runtime, imported.revision);
    expect(changes.at(-1)).toMatchObject({ revision: imported.revision, reloaded: true });
    const one = (await write('POST', '/rules', rule('after-bulk'))).revision;
    await expectExact(runtime, one);
    expect(changes.at(-1)).toMatchObject({ revision: one, reloaded: false });
  });

  it('follows variable and environment changes on the same stream: told as changes, the stream stays open', async () => {
    const { runtime, changes } = follow();
    await runtime.ready;
    const streams = changes.length;
    await write('POST', '/environments', { name: 'followed' });
    await write('POST', '/variables', { name: 'FOLLOWED', values: { followed: 'x' } });
    const gone = (await write('DELETE', '/environments/followed')).revision;
    await runtime.reached(gone);
    const seen = changes.slice(streams);
    // Revisions that arrive together are applied together: what changed, not how it was chunked.
    expect(seen.every((c) => !c.reloaded)).toBe(true);
    const named = new Set(seen.flatMap((c) => c.changed.map((x) => `${x.objectType} ${x.id}`)));
    expect([...named].sort()).toEqual(['environment followed', 'variable FOLLOWED']);
    // The runtime acts in `default`, where FOLLOWED never had a value.
    expect(runtime.values().size).toBe(0);
    // Still the same stream: a rule written next arrives as a change, not after a reconnection.
    const one = (await write('POST', '/rules', rule('after-variables'))).revision;
    await expectExact(runtime, one);
    expect(changes.at(-1)).toMatchObject({ revision: one, reloaded: false });
    expect(runtime.status()).toMatchObject({ state: 'live' });
    expect(runtime.status().problem).toBeUndefined();
  });

  it('stops with an error event, and no retry, when its key is revoked', async () => {
    const issued = await server.keysService.issue('revoked-ws', 'dave');
    const { runtime } = follow(issued.key);
    await runtime.ready;
    const errors: Error[] = [];
    const ended = new Promise<void>((resolve) =>
      runtime.on('error', (error) => {
        errors.push(error);
        resolve();
      }),
    );
    await server.keysService.revoke(issued.keyId);
    await ended;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(KeyRefusedError);
    expect((errors[0] as KeyRefusedError).status).toBe(401);
    expect(runtime.status().state).toBe('stopped');
    await expect(runtime.reached(1_000_000)).rejects.toBe(errors[0]);
  });

  it('refuses to start with a key the server does not know: ready rejects', async () => {
    const { runtime } = follow('rk_not_a_key');
    await expect(runtime.ready).rejects.toBeInstanceOf(KeyRefusedError);
    expect(runtime.status()).toMatchObject({ state: 'stopped', revision: -1 });
  });

  it('only says what changed with keepCopy: false, reading neither lists nor objects', async () => {
    const asked: string[] = [];
    const counting: typeof fetch = (input, init) => {
      asked.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return fetch(input, init);
    };
    const follower = followWorkspace({ server: server.url, key, fetch: counting, keepCopy: false });
    const changes: RuntimeChange[] = [];
    follower.on('change', (change) => changes.push(change));
    try {
      await follower.ready;
      const made = await write('POST', '/rules', rule('told'));
      await follower.reached(made.revision);
      expect(changes.at(-1)).toEqual({
        revision: made.revision,
        reloaded: false,
        changed: [{ objectType: 'rule', id: made.body.data.id }],
      });
      expect(changes[0]).toMatchObject({ reloaded: true, changed: [] });
      expect(follower.rules()).toEqual([]);
      expect(asked).toEqual(['/v1/changes/stream']);
    } finally {
      follower.close();
    }
  });

  it('reports the rules that acted on evaluate (counts only) when told to flush; reportHits: false sends none', async () => {
    const issued = await server.keysService.issue('hits-ws', 'hana');
    const { runtime } = follow(issued.key);
    await runtime.ready;
    const created = await write('POST', '/rules', rule('hit'), issued.key);
    const id = created.body.data.id;
    await runtime.reached(created.revision);
    for (const explain of ['all', 'acted', 'none'] as const)
      runtime.evaluate({ url: 'https://hit.example/a' }, { explain });
    runtime.evaluate({ url: 'https://miss.example/a' });
    await runtime.flushHits();
    const hits = async () => (await write('GET', `/rules/${id}/hits`, undefined, issued.key)).body.data;
    expect(await hits()).toMatchObject({ total7Days: 3, sources: [{ source: 'runtime', total7Days: 3 }] });

    const silent = createRuntime({ server: server.url, key: issued.key, reportHits: false });
    runtimes.push(silent);
    await silent.reached(created.revision);
    silent.evaluate({ url: 'https://hit.example/b' });
    await silent.flushHits();
    silent.close();
    expect((await hits()).total7Days).toBe(3);
  });

  it('evaluates requests as POST /v1/trace does', async () => {
    const issued = await server.keysService.issue('trace-ws', 'erin');
    const { runtime } = follow(issued.key);
    await runtime.ready;
    const inactiveGroup = (await write('POST', '/groups', { name: 'off', status: 'Inactive' }, issued.key))
      .body.data;
    const bodies = [
      rule('one'),
      rule('two', { groupId: inactiveGroup.id }),
      rule('three', { status: 'Inactive' }),
      {
        name: 'headers',
        ruleType: 'Headers',
        status: 'Active',
        pairs: [
          {
            source: { key: 'host', operator: 'Contains', value: 'example' },
            modifications: {
              Request: [{ type: 'Add', header: 'x-added', value: 'yes' }],
              Response: [{ type: 'Remove', header: 'server' }],
            },
          },
        ],
      },
      {
        name: 'cancel',
        ruleType: 'Cancel',
        status: 'Active',
        pairs: [{ source: { key: 'path', operator: 'Contains', value: '/ads/' } }],
      },
    ];
    let revision = 0;
    for (const body of bodies) revision = (await write('POST', '/rules', body, issued.key)).revision;
    await runtime.reached(revision);
    const requests = [
      { url: 'https://one.example/a?b=c' },
      { url: 'https://two.example/x' },
      { url: 'https://three.example/x', method: 'POST' },
      { url: 'https://one.example/ads/banner.png', resourceType: 'image' as const },
      { url: 'https://elsewhere.test/' },
    ];
    for (const request of requests) {
      for (const explain of ['all', 'acted', 'none'] as const) {
        const traced = await write('POST', `/trace?explain=${explain}`, { request }, issued.key);
        // The trace also says its environment: the key's, `default`, as the runtime's.
        const { request: _echo, environment, variables, ...expected } = traced.body.data;
        expect(environment).toBe(runtime.status().environment);
        expect(variables).toEqual([]);
        expect(runtime.evaluate(request, { explain }), `${request.url} ${explain}`).toEqual(expected);
      }
      const inactive = await write('POST', '/trace', { request, includeInactive: true }, issued.key);
      const { request: _echo, environment: _default, variables: _none, ...expected } = inactive.body.data;
      expect(runtime.evaluate(request, { includeInactive: true })).toEqual(expected);
    }
    expect(() => runtime.evaluate({ url: '/relative' })).toThrow(/request\/url must be an absolute/);
  });
});
