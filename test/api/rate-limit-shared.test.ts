// Rate limits shared by every instance through Redis: two apps on one database count one key together.
// Without Redis, each instance counts alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { checkResponses } from '../helpers/contract.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const title = REDIS_URL
  ? 'rate limits across instances'
  : 'rate limits across instances (skipped: set TEST_REDIS_URL)';

describe.skipIf(!REDIS_URL)(title, () => {
  let t: TestApp;
  let second: Awaited<ReturnType<typeof buildApp>>;
  let alone: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '3', REDIS_URL: REDIS_URL ?? '' };
    t = await buildTestApp({ env });
    // A second instance on the same database and Redis, and one without Redis.
    const config = loadConfig({ ...env, DATABASE_URL: 'sqlite::memory:' });
    second = await checkResponses(await buildApp({ config, database: t.database, logger: false }));
    alone = await checkResponses(
      await buildApp({ config: { ...config, redisUrl: undefined }, database: t.database, logger: false }),
    );
  });
  afterAll(async () => {
    await second?.close();
    await alone?.close();
    await t?.close();
  });

  const get = (app: typeof second, key: string, remoteAddress?: string) =>
    app.inject({ method: 'GET', url: '/v1/rules', headers: { 'x-api-key': key }, remoteAddress });

  it('counts a key once across instances: the fourth request is refused whichever instance gets it', async () => {
    const key = (await t.keysService.issue('acme', 'shared-limit')).key;
    const statuses = [];
    for (const app of [t.app, second, t.app, second]) statuses.push((await get(app, key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await get(t.app, key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ message: 'Too many requests', code: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    // An instance without Redis keeps its own count.
    expect((await get(alone, key)).statusCode).toBe(200);
  });

  it('counts requests without a valid key by client address', async () => {
    // An address of this run's own: Redis keeps a minute's counts between runs.
    const address = `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 255) + 1}`;
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await get(second, `rk_${'x'.repeat(40)}${i}`, address)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
