// HITS_REPORTS_PER_MINUTE shared by every instance through Redis (decision 21): two apps on one database
// and one Redis count a key's reports together, and the one past the limit is refused with 429 and the
// seconds left of the key's minute, whichever instance gets it. Without Redis each instance counts alone
// (docs/reference/api.md says so); a Redis that does not answer leaves the instance counting alone.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { checkResponses } from '../helpers/contract.js';
import { expectError } from '../helpers/fixtures.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const title = REDIS_URL
  ? 'hit reports per minute across instances'
  : 'hit reports per minute across instances (skipped: set TEST_REDIS_URL)';

type App = Awaited<ReturnType<typeof buildApp>>;

describe.skipIf(!REDIS_URL)(title, () => {
  let t: TestApp;
  let second: App;
  let alone: App;
  let aloneToo: App;
  let unreachable: App;
  let redis: Redis;

  beforeAll(async () => {
    const env = { HITS_REPORTS_PER_MINUTE: '3', REDIS_URL: REDIS_URL ?? '' };
    t = await buildTestApp({ env });
    // A second instance on the same database and Redis, two without Redis, one whose Redis is not there.
    const config = loadConfig({ ...env, RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: 'sqlite::memory:' });
    const instance = async (redisUrl: string | undefined) =>
      checkResponses(
        await buildApp({ config: { ...config, redisUrl }, database: t.database, logger: false }),
      );
    second = await instance(REDIS_URL);
    alone = await instance(undefined);
    aloneToo = await instance(undefined);
    unreachable = await instance('redis://127.0.0.1:1');
    redis = new Redis(REDIS_URL ?? '');
  });
  afterAll(async () => {
    redis?.disconnect();
    for (const app of [second, alone, aloneToo, unreachable]) await app?.close();
    await t?.close();
  });

  const report = (app: App, key: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/hits',
      headers: { 'x-api-key': key },
      payload: { source: 'proxy', counts: [] },
    });
  const readKey = (name: string) =>
    t.keysService.issue('acme', name, { scope: 'read', expiresAt: null, name: null });

  it("counts a key's reports once across instances: the fourth is refused whichever instance gets it", async () => {
    const { key, keyId } = await readKey('shared-hits');
    const statuses = [];
    for (const app of [t.app, second, t.app, second]) statuses.push((await report(app, key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await report(t.app, key);
    expectError(
      { status: refused.statusCode, body: refused.json(), headers: refused.headers },
      'RATE_LIMITED',
    );
    // Retry-After is what is left of the key's shared minute, in whole seconds rounded up.
    const left = await redis.pttl(`rulekeeper-hits:${keyId}`);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(left).toBeGreaterThan(0);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil(left / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.min(60, Math.ceil(left / 1000) + 1));
    // Another key is counted apart.
    expect((await report(second, (await readKey('other-hits')).key)).statusCode).toBe(200);
  });

  it('without Redis, each instance counts alone: a key may report the limit on each', async () => {
    const { key } = await readKey('alone-hits');
    const statuses = [];
    for (const app of [alone, alone, alone, aloneToo, aloneToo, aloneToo, alone, aloneToo])
      statuses.push((await report(app, key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('a Redis that does not answer does not lift the limit: the instance counts alone meanwhile', async () => {
    const { key } = await readKey('unreachable-hits');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await report(unreachable, key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
