// An answer or nothing: an import whose client is cut off mid-request is rolled back and never
// commits later; an import or export past its time limit is abandoned with the documented answer.
// The import is held inside its transaction by a lock the test takes (the workspace's row), so each
// step happens in a known order: the server's log says when it abandoned the work and when it was
// rolled back. Both databases.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, uniqueName } from '../helpers/fixtures.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

/** The server's log lines, and a wait for the first one (from `from` on) that matches. */
function logCapture() {
  const lines: Json[] = [];
  const waiters: (() => void)[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      for (const wake of waiters.splice(0)) wake();
      callback();
    },
  });
  async function waitFor(match: (line: Json) => boolean, from = 0): Promise<number> {
    for (;;) {
      const at = lines.findIndex((line, i) => i >= from && match(line));
      if (at >= 0) return at;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  }
  return { stream, lines, waitFor };
}

const cancelRecord = (name: string): Json => ({
  objectType: 'rule',
  ruleType: 'Cancel',
  name,
  status: 'Active',
  pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'ads.example.com' } }],
});

forEachDatabase((db) => {
  describe('an import', () => {
    const logs = logCapture();
    let t: TestApp;
    let base: string;
    beforeAll(async () => {
      t = await buildTestApp({
        db,
        logger: { level: 'info', stream: logs.stream },
        env: { IMPORT_TIME_LIMIT_MS: '3000', REQUEST_TIMEOUT_MS: '200' },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    afterAll(() => t?.close());

    /** A new workspace: its key and id. */
    async function workspace() {
      const issued = await t.keysService.issue(uniqueName('ws').replace(' ', '-'), 'importer');
      return { key: issued.key, id: issued.workspaceId };
    }

    /**
     * Holds the workspace's row in an open transaction (the import's revision bump waits for it; on
     * SQLite, any other transaction does) until `release` is called.
     */
    async function holdWorkspace(workspaceId: string) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const done = t.database.db.transaction().execute(async (trx) => {
        await trx.updateTable('workspaces').set({ name: sql`name` }).where('id', '=', workspaceId).execute();
        if (db === 'postgres')
          holder = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]?.pid;
        held();
        await released;
      });
      await holding;
      return async () => {
        release();
        await done;
      };
    }
    /** The PostgreSQL backend holding the workspace's row (holdWorkspace). */
    let holder: number | undefined;

    /**
     * On PostgreSQL, until a write waits for the held workspace row (its revision bump, alone or with
     * its change row), so that it is cut off inside its transaction. (On SQLite its transaction waits
     * for the held one, which cannot be seen from here; the body is read at once there, so the cut
     * lands in the handler either way.)
     */
    async function waitingForWorkspace(): Promise<void> {
      if (db !== 'postgres') return;
      // Blocked by the very backend that holds the row: another test's waits on the same server (every
      // database's show in pg_stat_activity) are not this one's.
      await until(async () => {
        const rows = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where ${holder ?? -1}::int = any(pg_blocking_pids(pid))`.execute(t.database.db);
        return (rows.rows[0]?.n ?? 0) > 0;
      });
    }

    /** What the workspace holds: rules, ids claimed, change records, and its revision. */
    async function stored(workspaceId: string) {
      const count = async (table: 'rules' | 'id_owners' | 'changes') =>
        Number(
          (
            await t.database.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('workspace_id', '=', workspaceId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const { revision } = await t.database.db
        .selectFrom('workspaces')
        .select('revision')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return {
        rules: await count('rules'),
        owners: await count('id_owners'),
        changes: await count('changes'),
        revision: Number(revision),
      };
    }

    it('cut off mid-request is rolled back, and nothing commits after', async () => {
      const ws = await workspace();
      const before = await stored(ws.id);
      const release = await holdWorkspace(ws.id);
      const from = logs.lines.length;
      const body = JSON.stringify([cancelRecord('one'), cancelRecord('two')]);
      const client = request(`${base}/v1/import?mode=overwrite`, {
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': ws.key, 'content-type': 'application/json' },
      });
      client.on('error', () => {}); // cut off on purpose
      const sent = new Promise<void>((resolve) => client.on('finish', resolve));
      client.end(body);
      await sent;
      // Inside its transaction, waiting for the workspace's row (its rules already inserted).
      await waitingForWorkspace();
      client.destroy();
      await logs.waitFor((line) => line.msg === 'request abandoned: its work stops and is rolled back', from);
      await release();
      const end = await logs.waitFor(
        (line) => line.msg === 'client went away before the answer: its work was rolled back',
        from,
      );
      expect(logs.lines[end]?.level).toBe(30);
      expect(await stored(ws.id)).toEqual(before);
      // The service answers the next import of that workspace as usual.
      const again = await t.call('POST', '/v1/import', { key: ws.key, body: [cancelRecord('three')] });
      expect(again.status).toBe(200);
      expect((await stored(ws.id)).rules).toBe(1);
    });

    it('any write cut off before its commit is rolled back: a rule created by a client that left', async () => {
      const ws = await workspace();
      const before = await stored(ws.id);
      const release = await holdWorkspace(ws.id);
      const from = logs.lines.length;
      const client = request(`${base}/v1/rules`, {
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': ws.key, 'content-type': 'application/json' },
      });
      client.on('error', () => {}); // cut off on purpose
      const sent = new Promise<void>((resolve) => client.on('finish', resolve));
      const { objectType: _objectType, ...rule } = cancelRecord('gone');
      client.end(JSON.stringify(rule));
      await sent;
      await waitingForWorkspace();
      client.destroy();
      await logs.waitFor((line) => line.msg === 'request abandoned: its work stops and is rolled back', from);
      await release();
      await logs.waitFor(
        (line) => line.msg === 'client went away before the answer: its work was rolled back',
        from,
      );
      expect(await stored(ws.id)).toEqual(before);
    });

    it('waiting longer than REQUEST_TIMEOUT_MS (the idle timeout) is not cut off: it gets its answer', async () => {
      const ws = await workspace();
      const release = await holdWorkspace(ws.id);
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const client = request(`${base}/v1/import`, {
          method: 'POST',
          agent: false,
          headers: { 'x-api-key': ws.key, 'content-type': 'application/json' },
        });
        client.on('response', (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        client.on('error', reject);
        client.end(JSON.stringify([cancelRecord('patient')]));
      });
      // Five idle timeouts pass while the import waits for the workspace (well within its time limit).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await release();
      const reply = await answer;
      expect(reply.status, reply.text).toBe(200);
      expect((await stored(ws.id)).rules).toBe(1);
    });

    it('past IMPORT_TIME_LIMIT_MS is answered 503 Time limit exceeded, with nothing written', async () => {
      const ws = await workspace();
      const before = await stored(ws.id);
      const release = await holdWorkspace(ws.id);
      const from = logs.lines.length;
      const answer = t.call('POST', '/v1/import', { key: ws.key, body: [cancelRecord('late')] });
      await logs.waitFor((line) => line.msg === 'request abandoned: its work stops and is rolled back', from);
      await release();
      const reply = await answer;
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({
        code: 'TIME_LIMIT_EXCEEDED',
        message: 'Time limit exceeded',
        details: [{ path: '', message: expect.stringContaining('IMPORT_TIME_LIMIT_MS') }],
      });
      expect(reply.headers['retry-after']).toBeDefined();
      expect(await stored(ws.id)).toEqual(before);
    });
  });

  describe.runIf(db === 'postgres')('an export', () => {
    const logs = logCapture();
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({
        db,
        logger: { level: 'info', stream: logs.stream },
        env: { EXPORT_TIME_LIMIT_MS: '300' },
      });
    });
    afterAll(() => t?.close());

    it('past EXPORT_TIME_LIMIT_MS stops: the file is cut before its end, never a whole-looking file', async () => {
      const issued = await t.keysService.issue(uniqueName('ws').replace(' ', '-'), 'exporter');
      const imported = await t.call('POST', '/v1/import', {
        key: issued.key,
        body: [cancelRecord('a'), cancelRecord('b')],
      });
      expect(imported.status).toBe(200);
      // Reads wait while the rules table is locked whole: the export is held after its groups.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const lock = t.database.db.transaction().execute(async (trx) => {
        await sql`lock table rules in access exclusive mode`.execute(trx);
        held();
        await released;
      });
      await holding;
      const from = logs.lines.length;
      // Settled as soon as it ends (the cut may come before the checks below are reached).
      const answer = t.app
        .inject({ method: 'GET', url: '/v1/export', headers: { 'x-api-key': issued.key } })
        .then(
          () => 'a whole answer',
          (error: Error) => error.message,
        );
      await logs.waitFor((line) => line.msg === 'request abandoned: its work stops and is rolled back', from);
      release();
      await lock;
      // The status and the file's start were sent; then the connection is cut before the file's end.
      expect(await answer).toBe('response destroyed before completion');
    });
  });
});

/** Checks `condition` until it holds (each check is a query: no timing is assumed). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setImmediate(resolve));
}
