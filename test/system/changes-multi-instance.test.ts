// Following changes across real service processes: two instances on one PostgreSQL database (a change
// through one reaches the other's streams within a second, and its reads and ETags at once), and
// resuming a stream across a restart of the instance it was connected to, with nothing missed or
// repeated. The restart part also runs on SQLite, with one instance.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/database.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import { createKeysService } from '../../src/modules/keys/keys-service.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';
import { openStream, type SseClient } from '../helpers/sse-client.js';
import { createTestDatabase, forEachDatabase } from '../helpers/test-app.js';

const rule = (name: string) => ({
  name,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example' } }],
});

forEachDatabase((db: DialectName) => {
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  let instances: ServiceProcess[] = [];
  const streams: SseClient[] = [];
  let key: string;

  async function call(instance: ServiceProcess, method: string, path: string, body?: unknown, headers = {}) {
    const response = await fetch(`${instance.url}${path}`, {
      method,
      headers: {
        'x-api-key': key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }
  async function follow(instance: ServiceProcess, headers: Record<string, string> = {}) {
    const client = await openStream(`${instance.url}/v1/changes/stream`, { 'x-api-key': key, ...headers });
    streams.push(client);
    await client.waitFor((c) => c.events.length > 0, 5000, 'the stream to open');
    return client;
  }

  beforeAll(async () => {
    const created = await createTestDatabase(db, { migrated: true });
    drop = created.drop;
    env = { DATABASE_URL: created.url, RATE_LIMIT_PER_MINUTE: '0' };
    const database = openDatabase(loadConfig({ DATABASE_URL: created.url }));
    await migrate(database);
    key = (
      await createKeysService({ db: database.db, keysStore: createKeysStore(database.db) }).issue(
        'team',
        'ci',
      )
    ).key;
    await database.close();
    instances = await Promise.all((db === 'postgres' ? [0, 1] : [0]).map(() => startService(env)));
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await Promise.all(instances.map((p) => p.stop()));
    await drop?.();
  });

  it.skipIf(db !== 'postgres')(
    'delivers a change made through one instance to the other’s streams within a second',
    async () => {
      const [a, b] = instances as [ServiceProcess, ServiceProcess];
      const followers = await Promise.all([follow(b), follow(b), follow(a)]);
      for (let i = 0; i < 5; i++) {
        const made = await call(a, 'POST', '/v1/rules', rule(`fan ${i}`));
        expect(made.status).toBe(201);
        const written = Date.now();
        for (const f of followers) {
          await f.waitFor((c) => c.changes().some((ch) => ch.id === made.body.data.id), 5000, `change ${i}`);
        }
        expect(Date.now() - written).toBeLessThan(1000);
      }
    },
  );

  it.skipIf(db !== 'postgres')(
    'answers reads and conditional reads on one instance with what was just written through the other',
    async () => {
      const [a, b] = instances as [ServiceProcess, ServiceProcess];
      const made = await call(a, 'POST', '/v1/rules', rule('seen everywhere'));
      const id = made.body.data.id;
      const list = await call(b, 'GET', '/v1/rules?search=everywhere');
      const single = await call(b, 'GET', `/v1/rules/${id}`);
      expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([id]);
      for (let i = 0; i < 5; i++) {
        const put = await call(a, 'PUT', `/v1/rules/${id}`, { name: `seen everywhere ${i}` });
        expect(Number(put.headers.get('rulekeeper-revision'))).toBeGreaterThan(
          Number(list.headers.get('rulekeeper-revision')),
        );
        const again = await call(b, 'GET', '/v1/rules?search=everywhere', undefined, {
          'if-none-match': list.headers.get('etag'),
        });
        expect(again.status).toBe(200);
        expect(again.body.data[0].name).toBe(`seen everywhere ${i}`);
        // Many reads at once share one revision read: every one of them still sees the write.
        const reads = await Promise.all(
          Array.from({ length: 20 }, () =>
            call(b, 'GET', `/v1/rules/${id}`, undefined, {
              'if-none-match': String(single.headers.get('etag')),
            }),
          ),
        );
        for (const one of reads) {
          expect(one.status).toBe(200);
          expect(one.body.data.name).toBe(`seen everywhere ${i}`);
        }
      }
    },
  );

  it('resumes across a restart of the instance a client follows: no change missed or repeated', async () => {
    const writer = instances[0] as ServiceProcess;
    let followed = instances.at(-1) as ServiceProcess;
    const start = Number((await call(writer, 'GET', '/v1/changes?limit=1')).body.latest);
    let client = await follow(followed, { 'last-event-id': String(start) });
    const seen: number[] = [];
    let lastId = String(start);
    const collect = (c: SseClient) => {
      for (const e of c.events.splice(0)) {
        if (e.event === 'change') seen.push(JSON.parse(e.data ?? '{}').revision);
        if (e.id) lastId = e.id;
      }
    };
    let writes = 0;
    const writeSome = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const target = instances[0] as ServiceProcess;
        if ((await call(target, 'POST', '/v1/rules', rule(`restart ${writes}`))).status === 201) writes++;
      }
    };
    await writeSome(10);
    await client.waitFor((c) => c.changes().length >= 3, 5000, 'some changes before the restart');
    // The followed instance stops (on SQLite the writer too); writes continue where they can.
    const stopping = followed.stop();
    await client.waitFor((c) => c.ended(), 10_000, 'the stream to end on shutdown');
    const stopped = await stopping;
    expect(stopped.code).toBe(0);
    collect(client);
    if (db === 'postgres') await writeSome(10);
    followed = await startService(env);
    instances[instances.length - 1] = followed;
    if (db === 'sqlite') {
      instances[0] = followed;
      await writeSome(10);
    }
    client = await follow(followed, { 'last-event-id': lastId });
    await writeSome(5);
    await client.waitFor(
      (c) => seen.length + c.events.filter((e) => e.event === 'change').length >= writes,
      10_000,
      'every change',
    );
    collect(client);
    expect(seen).toEqual(Array.from({ length: writes }, (_, i) => start + i + 1));
  });

  it('stops promptly with a stream open (SIGTERM), well within the shutdown grace period', async () => {
    const target = instances.at(-1) as ServiceProcess;
    const client = await follow(target);
    const began = Date.now();
    const exit = await target.stop();
    expect(exit.code).toBe(0);
    expect(Date.now() - began).toBeLessThan(5000);
    await client.waitFor((c) => c.ended(), 2000, 'the stream to end');
  });
});
