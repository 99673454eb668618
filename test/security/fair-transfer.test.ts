// A large import or export of one workspace does not stop the others: its parsing, planning and
// writing, and the export's pages, run in slices, and between two the service answers everyone else.
// Checked by what happens, not by timing: another workspace's reads are answered while the import
// (or export) is still running. (How long B waits is a matter for measurement, not for a test.)
import type { AddressInfo } from 'node:net';
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
      const exported = await readsDuring(
        whole(fetch(`${base}/v1/export`, { headers: { 'x-api-key': a.key } })),
      );
      expect(exported.status).toBe(200);
      // 10,000 rules are 20 pages: B is served between them.
      expect(exported.answered).toBeGreaterThanOrEqual(3);
    });
  });
});
