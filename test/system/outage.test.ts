// While PostgreSQL is unreachable the service answers 503 quickly; when it returns, the service heals
// without a restart. The server is taken away by cutting a proxy in front of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { buildTestApp, TEST_POSTGRES_URL, type TestApp } from '../helpers/test-app.js';

const title = TEST_POSTGRES_URL
  ? 'postgres outage'
  : 'postgres outage (skipped: set TEST_POSTGRES_URL to run)';

describe.skipIf(!TEST_POSTGRES_URL)(title, () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let ruleId: string;

  beforeAll(async () => {
    const server = new URL(TEST_POSTGRES_URL ?? '');
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    t = await buildTestApp({
      db: 'postgres',
      env: { DB_CONNECT_TIMEOUT_MS: '500', DB_STATEMENT_TIMEOUT_MS: '2000' },
      reach: (url) => {
        const through = new URL(url);
        through.hostname = '127.0.0.1';
        through.port = String(proxy.port);
        return through.toString();
      },
    });
    const made = await t.call('POST', '/v1/groups', { body: { name: 'survives' } });
    ruleId = made.body.data.id;
  });
  afterAll(async () => {
    await proxy.restore().catch(() => {});
    await t.close();
    await proxy.close();
  });

  it('answers 503 Service unavailable, without hanging, while the database is away', async () => {
    await proxy.cut();
    const started = Date.now();
    const ready = await t.call('GET', '/readyz');
    const read = await t.call('GET', `/v1/groups/${ruleId}`);
    const write = await t.call('POST', '/v1/groups', { body: { name: 'lost?' } });
    // A hang would take the test's whole timeout; a bounded wait means the request failed fast.
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const answer of [ready, read, write]) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({
        success: false,
        message: 'Service unavailable',
        code: 'UNAVAILABLE',
      });
      expect(answer.headers['retry-after']).toBe('5');
    }
    expect((await t.call('GET', '/healthz')).status).toBe(200);
  });

  it('heals by itself when the database returns', async () => {
    await proxy.restore();
    let ready = await t.call('GET', '/readyz');
    // The pool may hold a connection that died with the cut; it is dropped on first use.
    for (let attempt = 0; ready.status !== 200 && attempt < 5; attempt++)
      ready = await t.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    const read = await t.call('GET', `/v1/groups/${ruleId}`);
    expect(read.status).toBe(200);
    expect(read.body.data.name).toBe('survives');
    const list = await t.call('GET', '/v1/groups');
    expect(list.body.data.map((g: { name: string }) => g.name)).toEqual(['survives']);
  });
});
