// Two real service processes on one PostgreSQL database, writes interleaved through both: no lost
// update with If-Match, no duplicate from a retried POST, unique ids, strictly increasing
// modificationDate, consistent lists, and no rule left pointing at a deleted group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import { createKeysService } from '../../src/modules/keys/keys-service.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';
import { createTestDatabase, TEST_POSTGRES_URL } from '../helpers/test-app.js';

const title = TEST_POSTGRES_URL ? 'two instances' : 'two instances (skipped: set TEST_POSTGRES_URL to run)';

type Answer = { status: number; body: any; etag: string | null };

describe.skipIf(!TEST_POSTGRES_URL)(title, () => {
  let drop: () => Promise<void>;
  let instances: ServiceProcess[];
  let key: string;

  /** A request to instance `i` (0 or 1). */
  async function call(
    i: number,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const response = await fetch(`${instances[i % 2]?.url}${path}`, {
      method,
      headers: {
        'x-api-key': key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: await response.json(),
      etag: response.headers.get('etag'),
    } as Answer;
  }

  const rule = (name: string, groupId = '') => ({
    name,
    ruleType: 'Cancel',
    groupId,
    pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example' } }],
  });

  beforeAll(async () => {
    const created = await createTestDatabase('postgres');
    drop = created.drop;
    // Both start on the empty database at once: their migrations take turns behind the advisory lock.
    const env = { DATABASE_URL: created.url, RATE_LIMIT_PER_MINUTE: '0' };
    instances = await Promise.all([startService(env), startService(env)]);
    const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
    await migrate(database);
    key = (
      await createKeysService({ db: database.db, keysStore: createKeysStore(database.db) }).issue(
        'team',
        'ci',
      )
    ).key;
    await database.close();
  });
  afterAll(async () => {
    await Promise.all((instances ?? []).map((p) => p.stop()));
    await drop?.();
  });

  it('loses no update: of writes racing with the same If-Match through both instances, exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const made = await call(0, 'POST', '/v1/rules', rule(`contended ${round}`));
      const etag = made.etag ?? '';
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(i, 'PUT', `/v1/rules/${made.body.data.id}`, { name: `writer ${i}` }, { 'if-match': etag }),
        ),
      );
      const winners = answers.filter((a) => a.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((a) => a.status === 412)).toHaveLength(29);
      const final = await call(1, 'GET', `/v1/rules/${made.body.data.id}`);
      expect(final.body.data.name).toBe(winners[0]?.body.data.name);
    }
  });

  it('creates one object from a POST retried through both instances at once', async () => {
    const headers = { 'idempotency-key': 'retry-across-instances' };
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(i, 'POST', '/v1/rules', rule('retried'), headers)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    expect((await call(0, 'GET', '/v1/rules?search=retried')).body.total).toBe(1);
  });

  it('gives unique ids under concurrent creates on both, and both list the same complete set', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => call(i, 'POST', '/v1/rules', rule(`bulk ${i}`))),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const ids = answers.map((a) => a.body.data.id);
    expect(new Set(ids).size).toBe(60);
    const [a, b] = await Promise.all(
      [0, 1].map((i) => call(i, 'GET', '/v1/rules?search=bulk&pageSize=1000')),
    );
    expect(a?.body).toEqual(b?.body);
    expect(a?.body.data.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
  });

  it('moves modificationDate strictly forward whichever instance writes', async () => {
    const made = await call(0, 'POST', '/v1/rules', rule('clock'));
    const dates = [made.body.data.modificationDate];
    for (let i = 0; i < 20; i++) {
      const put = await call(i, 'PUT', `/v1/rules/${made.body.data.id}`, {
        status: i % 2 ? 'Active' : 'Inactive',
      });
      dates.push(put.body.data.modificationDate);
    }
    for (let i = 1; i < dates.length; i++) expect(dates[i]).toBeGreaterThan(dates[i - 1]);
  });

  it('leaves no rule pointing at a group deleted on one instance while the other moves rules into it', async () => {
    for (let round = 0; round < 15; round++) {
      const group = await call(0, 'POST', '/v1/groups', { name: `doomed ${round}` });
      const made = await call(1, 'POST', '/v1/rules', rule(`mover ${round}`));
      const [, moved] = await Promise.all([
        call(0, 'DELETE', `/v1/groups/${group.body.data.id}`),
        call(1, 'PUT', `/v1/rules/${made.body.data.id}`, { groupId: group.body.data.id }),
      ]);
      expect([200, 404]).toContain(moved.status);
      const now = await call(0, 'GET', `/v1/rules/${made.body.data.id}`);
      expect(now.body.data.groupId).toBe('');
    }
  });
});
