// rulekeeper/runtime in an environment, against a real server: one Redirect to `{{API}}` acts with dev's
// value in dev and staging's in staging, as POST /v1/trace does there; a variable's change acts on the
// next evaluation without a restart; the key's bound environment is the default; an environment the
// workspace does not have (or no longer has) stops the runtime; a follower without a copy is told of
// variable changes and reads no values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResolvedPairs } from '../../src/engine/variables-check.js';
import {
  createRuntime,
  EnvironmentNotFoundError,
  followWorkspace,
  type Runtime,
  type RuntimeChange,
} from '../../src/runtime/index.js';
import { type ServedApp, servedData } from '../helpers/served-app.js';

const data = servedData();
let server: ServedApp;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  server = await data.serve({ env: { KEY_CACHE_TTL_MS: '200' } });
});
afterAll(async () => {
  for (const runtime of runtimes) runtime.close();
  await server?.stop();
  data.remove();
});

function follow(key: string, environment?: string): { runtime: Runtime; changes: RuntimeChange[] } {
  const runtime = createRuntime({
    server: server.url,
    key,
    minRetryMs: 20,
    maxRetryMs: 200,
    reportHits: false,
    ...(environment === undefined ? {} : { environment }),
  });
  runtimes.push(runtime);
  const changes: RuntimeChange[] = [];
  runtime.on('change', (change) => changes.push(change));
  return { runtime, changes };
}

async function write(key: string, method: string, path: string, body?: unknown) {
  const reply = await server.api(key, method, path, body);
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply;
}

/** A workspace of the test's own with dev and staging, API set in both, and a Redirect to `{{API}}`. */
async function workspace(name: string) {
  const { key } = await server.keysService.issue(name, 'alice');
  await write(key, 'POST', '/environments', { name: 'dev' });
  await write(key, 'POST', '/environments', { name: 'staging' });
  await write(key, 'POST', '/variables', {
    name: 'API',
    description: 'where the app calls its API',
    secret: false,
    values: { dev: 'http://localhost:3000', staging: 'https://staging.example.com' },
  });
  const made = await write(key, 'POST', '/rules', {
    name: 'api to the environment',
    ruleType: 'Redirect',
    status: 'Active',
    pairs: [
      {
        source: { key: 'Url', operator: 'Contains', value: 'app.example.com/api/users' },
        destinationType: 'url',
        destination: '{{API}}/api/users',
      },
    ],
  });
  return { key, revision: made.revision };
}

const CALL = { url: 'https://app.example.com/api/users' };

describe('rulekeeper/runtime in an environment', () => {
  it("acts with dev's value in dev and staging's in staging, as the trace does in each", async () => {
    const { key, revision } = await workspace('env-two');
    const dev = follow(key, 'dev').runtime;
    const staging = follow(key, 'staging').runtime;
    await Promise.all([dev.reached(revision), staging.reached(revision)]);
    expect(dev.evaluate(CALL).outcome.url).toBe('http://localhost:3000/api/users');
    expect(staging.evaluate(CALL).outcome.url).toBe('https://staging.example.com/api/users');
    expect(dev.status().environment).toBe('dev');
    expect(staging.values()).toEqual(new Map([['API', 'https://staging.example.com']]));
    // The rules as the server has them, `{{API}}` and all: only the evaluation resolves it.
    expect(dev.rules()[0]?.pairs[0]).toMatchObject({ destination: '{{API}}/api/users' });
    for (const [environment, runtime] of [
      ['dev', dev],
      ['staging', staging],
    ] as const) {
      for (const explain of ['all', 'acted', 'none'] as const) {
        const traced = await write(key, 'POST', `/trace?explain=${explain}`, { request: CALL, environment });
        // The trace also names its environment and lists the values it used: the runtime's values().
        const { request: _echo, environment: traceEnvironment, variables, ...expected } = traced.body.data;
        expect(traceEnvironment).toBe(environment);
        expect(variables).toEqual(
          explain === 'none'
            ? expect.any(Array)
            : [expect.objectContaining({ name: 'API', value: runtime.values().get('API') })],
        );
        expect(runtime.evaluate(CALL, { explain }), `${environment} ${explain}`).toEqual(expected);
      }
    }
  });

  it("acts on a variable's change at once, without a restart, and on an environment's creation", async () => {
    const { key, revision } = await workspace('env-live');
    const { runtime, changes } = follow(key, 'staging');
    await runtime.reached(revision);
    const changed = await write(key, 'PUT', '/variables/API', {
      description: 'where the app calls its API',
      secret: false,
      values: { dev: 'http://localhost:3000', staging: 'https://staging-2.example.com' },
    });
    await runtime.reached(changed.revision);
    expect(runtime.evaluate(CALL).outcome.url).toBe('https://staging-2.example.com/api/users');
    expect(changes.at(-1)).toEqual({
      revision: changed.revision,
      reloaded: false,
      changed: [{ objectType: 'variable', id: 'API' }],
    });
    // A variable made secret acts with its value all the same (read back as null, never shown).
    const secret = await write(key, 'POST', '/variables', {
      name: 'TOKEN',
      description: '',
      secret: true,
      values: { staging: 's3cret' },
    });
    await runtime.reached(secret.revision);
    expect(runtime.values().get('TOKEN')).toBe('s3cret');
    // Another environment: told as a change, the values read again (the same ones).
    const created = await write(key, 'POST', '/environments', { name: 'qa' });
    await runtime.reached(created.revision);
    expect(changes.at(-1)?.changed).toEqual([{ objectType: 'environment', id: 'qa' }]);
    expect(runtime.evaluate(CALL).outcome.url).toBe('https://staging-2.example.com/api/users');
  });

  it("uses the key's bound environment when none is named, else default", async () => {
    const { key, revision } = await workspace('env-bound');
    const bound = await write(key, 'POST', '/keys', {
      name: 'staging ci',
      scope: 'read',
      environment: 'staging',
    });
    const stagingKey = bound.body.data.key as string;
    const byKey = follow(stagingKey).runtime;
    const unbound = follow(key).runtime;
    await Promise.all([byKey.reached(revision), unbound.reached(revision)]);
    expect(byKey.status().environment).toBe('staging');
    expect(byKey.evaluate(CALL).outcome.url).toBe('https://staging.example.com/api/users');
    // Named, the runtime's choice wins over the key's.
    const named = follow(stagingKey, 'dev').runtime;
    await named.reached(revision);
    expect(named.evaluate(CALL).outcome.url).toBe('http://localhost:3000/api/users');
    // Unbound: `default`, where API has no value, so `{{API}}` stays as written.
    expect(unbound.status().environment).toBe('default');
    expect(unbound.values().size).toBe(0);
    expect(unbound.rules()[0]?.pairs[0]).toMatchObject({ destination: '{{API}}/api/users' });
  });

  it("does not act with a rule its values make invalid there, given the rule types' checks, as the trace says", async () => {
    const { key } = await workspace('env-invalid');
    await write(key, 'POST', '/variables', {
      name: 'HEADER',
      description: '',
      secret: false,
      values: { dev: 'X-Team', staging: 'X Team' },
    });
    const made = await write(key, 'POST', '/rules', {
      name: 'tag the team',
      ruleType: 'Headers',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: 'team.example.com' },
          modifications: { Request: [{ header: '{{HEADER}}', type: 'Add', value: 'web' }], Response: [] },
        },
      ],
    });
    const request = { url: 'https://team.example.com/' };
    for (const environment of ['dev', 'staging']) {
      const runtime = createRuntime({
        server: server.url,
        key,
        environment,
        reportHits: false,
        pairsCheck: checkResolvedPairs,
      });
      runtimes.push(runtime);
      await runtime.reached(made.revision);
      const traced = await write(key, 'POST', '/trace', { request, environment });
      const { request: _echo, environment: _named, variables: _used, ...expected } = traced.body.data;
      expect(runtime.evaluate(request), environment).toEqual(expected);
    }
    // A header name with a space is no name: in staging the rule does not act, and says why.
    expect(runtimes.at(-1)?.evaluate(request).rules.at(-1)).toMatchObject({
      reason: 'invalid_in_environment',
      acted: false,
    });
    expect(runtimes.at(-2)?.evaluate(request).outcome.requestHeaders).toEqual({ 'x-team': 'web' });
  });

  it('refuses an environment the workspace does not have, and stops when its environment is deleted', async () => {
    const { key } = await workspace('env-missing');
    const typo = follow(key, 'stagign').runtime;
    const refused = await typo.ready.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(EnvironmentNotFoundError);
    expect((refused as Error).message).toBe('the workspace has no environment "stagign"');
    expect(typo.status()).toMatchObject({ state: 'stopped', revision: -1 });

    await write(key, 'POST', '/environments', { name: 'short-lived' });
    const { runtime } = follow(key, 'short-lived');
    await runtime.ready;
    const errors: Error[] = [];
    const ended = new Promise<void>((resolve) =>
      runtime.on('error', (error) => {
        errors.push(error);
        resolve();
      }),
    );
    await write(key, 'DELETE', '/environments/short-lived');
    await ended;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(EnvironmentNotFoundError);
    expect(runtime.status().state).toBe('stopped');
  });

  it('tells a follower without a copy of variable changes, reading no values', async () => {
    const { key } = await workspace('env-told');
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
      const made = await write(key, 'PUT', '/variables/API', {
        description: '',
        secret: false,
        values: { dev: 'http://localhost:3001' },
      });
      await follower.reached(made.revision);
      expect(changes.at(-1)?.changed).toEqual([{ objectType: 'variable', id: 'API' }]);
      expect(follower.values().size).toBe(0);
      expect(asked).toEqual(['/v1/changes/stream']);
    } finally {
      follower.close();
    }
  });
});
