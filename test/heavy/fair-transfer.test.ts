// A large import or export of one workspace does not stop the others: its parsing, planning and
// writing, and the export's pages, run in slices, and between two the service answers everyone else.
// Checked by what happens, not by timing: another workspace's reads are answered while the import
// (or export) is still running. (How long B waits is a matter for measurement, not for a test.)
import type { AddressInfo } from 'node:net';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, uniqueName } from '../helpers/fixtures.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

const RECORDS = 10_000;

const file = (): Json[] =>
  Array.from({ length: RECORDS }, (_, n) => ({
    objectType: 'rule',
    ruleType: 'Cancel',
    name: `rule ${n}`,
    status: 'Active',
    pairs: [{ source: { key: 'Url', operator: 'Contains', value: `ads${n}.example.com` } }],
  }));

/** The answer's status, once all of it has arrived. */
async function whole(answer: Promise<Response>): Promise<number> {
  const response = await answer;
  await response.arrayBuffer();
  return response.status;
}

forEachDatabase((db) => {
  describe(`a ${RECORDS.toLocaleString('en')}-record transfer`, () => {
    let t: TestApp;
    let base: string;
    beforeAll(async () => {
      t = await buildTestApp({ db });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    afterAll(() => t?.close());

    /**
     * Workspace B reads its rule again and again until `work` answers; answers how many of B's reads
     * were answered (each 200) before it did.
     */
    async function readsDuring(work: Promise<number>): Promise<{ answered: number; status: number }> {
      const b = await t.keysService.issue(uniqueName('b').replace(' ', '-'), 'bob');
      const rule = await t.call('POST', '/v1/rules', {
        key: b.key,
        body: {
          name: 'b',
          ruleType: 'Cancel',
          pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'x' } }],
        },
      });
      let done = false;
      const finished = work.then((status) => {
        done = true;
        return status;
      });
      let answered = 0;
      while (!done) {
        const reply = await fetch(`${base}/v1/rules/${rule.body.data.id}`, {
          headers: { 'x-api-key': b.key },
        });
        expect(reply.status).toBe(200);
        await reply.arrayBuffer();
        if (!done) answered++;
      }
      return { answered, status: await finished };
    }

    let a: { key: string };
    it("lets another workspace's reads through while the import runs", async () => {
      a = await t.keysService.issue(uniqueName('a').replace(' ', '-'), 'alice');
      const body = JSON.stringify(file());
      const imported = await readsDuring(
        whole(
          fetch(`${base}/v1/import`, {
            method: 'POST',
            headers: { 'x-api-key': a.key, 'content-type': 'application/json' },
            body,
          }),
        ),
      );
      expect(imported.status).toBe(200);
      // Parsing, planning and writing 10,000 records is dozens of slices: B is served between them.
      expect(imported.answered).toBeGreaterThanOrEqual(10);
    });

    it("lets another workspace's reads through while the export runs", async () => {
      const b = await t.keysService.issue(uniqueName('b').replace(' ', '-'), 'bob');
      const exported = await fetch(`${base}/v1/export`, { headers: { 'x-api-key': a.key } });
      const reader = (exported.body as ReadableStream<Uint8Array>).getReader();
      // The export has begun and cannot end before its client reads on (10,000 rules are megabytes):
      // B's reads are answered meanwhile.
      const first = await reader.read();
      expect(first.done).toBe(false);
      for (let n = 0; n < 3; n++) {
        const reply = await fetch(`${base}/v1/rules`, { headers: { 'x-api-key': b.key } });
        expect(reply.status).toBe(200);
        await reply.arrayBuffer();
      }
      let text = Buffer.from(first.value as Uint8Array).toString();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += Buffer.from(chunk.value).toString();
      expect(exported.status).toBe(200);
      expect(JSON.parse(text)).toHaveLength(RECORDS);
    });
  });

  describe('an import on its worker', () => {
    let t: TestApp;
    beforeAll(async () => {
      // Too little heap for what follows: the worker is ended, never the service.
      t = await buildTestApp({
        db,
        env: { IMPORT_WORKER_MEMORY_MB: '64', MAX_IMPORT_BYTES: String(64 * 1024 * 1024) },
      });
    });
    afterAll(() => t?.close());

    it("past its worker's memory before it commits is 503 with nothing written; the next import works", async () => {
      // Eight responses of 4 MB each: one batch of records, held with their rows, outgrows 64 MiB.
      const heavy = Array.from({ length: 8 }, (_, n) => ({
        objectType: 'rule',
        ruleType: 'Response',
        name: `heavy ${n}`,
        status: 'Active',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: `api${n}.example.com` },
            response: { type: 'static', value: `${n}`.padEnd(4 * 1024 * 1024, 'x') },
          },
        ],
      }));
      const refused = await t.call('POST', '/v1/import', { body: heavy });
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('UNAVAILABLE');
      expect(refused.body.details[0].message).toMatch(/the import used more than its 64 MiB/);
      expect((await t.call('GET', '/v1/rules')).body.total).toBe(0);
      const small = await t.call('POST', '/v1/import', { body: file().slice(0, 10) });
      expect(small.status).toBe(200);
      expect((await t.call('GET', '/v1/rules')).body.total).toBe(10);
    });

    it('past its memory in the lint after it committed, the import stands and says so, without findings', async () => {
      const before = (await t.call('GET', '/v1/rules')).body.total;
      // 60,000 rules are written in batches within 64 MiB; linting them all at once is not.
      const many = Array.from({ length: 6 }, file).flat();
      const imported = await t.call('POST', '/v1/import', { body: many });
      expect(imported.status).toBe(200);
      expect(imported.body.data.created).toBe(many.length);
      expect((await t.call('GET', '/v1/rules')).body.total).toBe(before + many.length);
    }, 180_000); // 60,000 records on a loaded machine: the bound only catches a hang
  });

  describe('writes while an import runs', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({ db });
    });
    afterAll(() => t?.close());

    it("another workspace's write during an import is answered, never refused for the lock", async () => {
      const importing = t.call('POST', '/v1/import', { body: file() });
      const writes = await Promise.all(
        Array.from({ length: 5 }, (_, n) =>
          t.call('POST', '/v1/rules', {
            key: t.outsider.key,
            body: {
              name: `during ${n}`,
              ruleType: 'Cancel',
              pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'x' } }],
            },
          }),
        ),
      );
      expect(writes.map((w) => w.status)).toEqual([201, 201, 201, 201, 201]);
      expect((await importing).body.data.created).toBe(RECORDS);
      expect((await t.call('GET', '/v1/rules', { key: t.outsider.key })).body.total).toBe(5);
    });

    it('a key may have two imports under way: a third is 429, and the two are written whole', async () => {
      const key = (await t.keysService.issue(uniqueName('many').replace(' ', '-'), 'mia')).key;
      const answers = await Promise.all(
        Array.from({ length: 3 }, () => t.call('POST', '/v1/import', { key, body: file() })),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 200, 429]);
      expect(answers.find((answer) => answer.status === 429)?.body.code).toBe('RATE_LIMITED');
      expect((await t.call('GET', '/v1/rules?pageSize=1', { key })).body.total).toBe(2 * RECORDS);
    }, 180_000);
  });
});

describe('an import while another process holds SQLite for longer than the busy timeout', () => {
  let t: TestApp & { config: { databaseUrl: string } };
  beforeAll(async () => {
    t = await buildTestApp({ db: 'sqlite' });
  });
  afterAll(() => t?.close());

  it('is 503 Service unavailable with nothing written, and works once the lock is gone', async () => {
    // An operator's script, say, in a write transaction of its own.
    const other = new SQLite(t.config.databaseUrl.slice('sqlite:'.length));
    other.exec('begin immediate');
    try {
      const refused = await t.call('POST', '/v1/import', { body: file().slice(0, 10) });
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('UNAVAILABLE');
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      other.exec('rollback');
      other.close();
    }
    expect((await t.call('GET', '/v1/rules')).body.total).toBe(0);
    const imported = await t.call('POST', '/v1/import', { body: file().slice(0, 10) });
    expect(imported.status).toBe(200);
    expect((await t.call('GET', '/v1/rules')).body.total).toBe(10);
  });
});
