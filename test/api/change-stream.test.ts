// GET /v1/changes/stream: server-sent events of every change, resumable, with heartbeats and a reset
// past retention; on a real listening server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import { createChangesStore } from '../../src/modules/changes/changes-store.js';
import { createGroup, createRule } from '../helpers/fixtures.js';
import { openStream, type SseClient } from '../helpers/sse-client.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];
  beforeAll(async () => {
    // A request timeout (the socket's idle timeout too) much shorter than the heartbeat period.
    t = await buildTestApp({ db, env: { CHANGES_HEARTBEAT_MS: '1000', REQUEST_TIMEOUT_MS: '300' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });

  async function stream(query = '', headers: Record<string, string> = {}, key = t.owner.key) {
    const client = await openStream(`${base}/v1/changes/stream${query}`, { 'x-api-key': key, ...headers });
    streams.push(client);
    if (client.status === 200) await client.waitFor((c) => c.events.length > 0, 5000, 'the stream to open');
    return client;
  }
  const latest = async () =>
    Number((await t.call('GET', '/v1/changes?limit=1')).headers['rulekeeper-revision']);

  describe('GET /v1/changes/stream', () => {
    it('sends every change as it happens: event change, id the revision, the feed item as data', async () => {
      const client = await stream();
      expect(client.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(client.headers.get('x-request-id')).toBeTruthy();
      expect(client.headers.get('x-content-type-options')).toBe('nosniff');
      const start = Number(client.headers.get('rulekeeper-revision'));
      // The first block names where the stream starts, so that an early reconnect resumes from it.
      expect(client.events[0]).toEqual({ comment: 'open', id: String(start) });
      const rule = await createRule(t);
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'renamed' } });
      await client.waitFor((c) => c.changes().length === 2, 5000, 'two changes');
      expect(client.changes()).toEqual([
        {
          revision: start + 1,
          objectType: 'rule',
          id: rule.id,
          change: 'created',
          at: expect.any(Number),
          by: t.owner.userId,
          byName: 'alice',
        },
        {
          revision: start + 2,
          objectType: 'rule',
          id: rule.id,
          change: 'updated',
          at: expect.any(Number),
          by: t.owner.userId,
          byName: 'alice',
        },
      ]);
      expect(client.events.filter((e) => e.event === 'change').map((e) => e.id)).toEqual([
        String(start + 1),
        String(start + 2),
      ]);
    });

    it('gives the id only to the last event of a revision, so a resume never skips part of one', async () => {
      const group = await createGroup(t);
      await createRule(t, { groupId: group.id });
      const client = await stream();
      const start = Number(client.headers.get('rulekeeper-revision'));
      await t.call('DELETE', `/v1/groups/${group.id}`);
      await client.waitFor((c) => c.changes().length === 2, 5000, 'the delete and the ungrouping');
      const events = client.events.filter((e) => e.event === 'change');
      expect(events.map((e) => e.id)).toEqual([undefined, String(start + 1)]);
    });

    it('resumes after Last-Event-ID (before ?after), with nothing missed or repeated', async () => {
      const from = await latest();
      const made = [await createRule(t), await createRule(t), await createRule(t)];
      const resumed = await stream(`?after=0`, { 'last-event-id': String(from + 1) });
      await resumed.waitFor((c) => c.changes().length === 2, 5000, 'the two changes after Last-Event-ID');
      expect(resumed.changes().map((c) => c.id)).toEqual([made[1]?.id, made[2]?.id]);
      const byQuery = await stream(`?after=${from}`);
      await byQuery.waitFor((c) => c.changes().length === 3, 5000, 'the three changes after ?after');
      const next = await createRule(t);
      await byQuery.waitFor((c) => c.changes().length === 4, 5000, 'the next change');
      expect(byQuery.changes().map((c) => c.id)).toEqual([...made.map((r) => r.id), next.id]);
    });

    it('keeps the stream open past the request timeout with heartbeat comments', async () => {
      const client = await stream();
      await client.waitFor((c) => c.events.some((e) => e.comment === 'heartbeat'), 5000, 'a heartbeat');
      expect(client.ended()).toBe(false);
      const rule = await createRule(t);
      await client.waitFor(
        (c) => c.changes().some((ch) => ch.id === rule.id),
        5000,
        'a change after a second of silence',
      );
    });

    it('tells a client asking from beyond what is kept to reset, then follows from the latest', async () => {
      const ahead = await stream(`?after=${(await latest()) + 100}`);
      expect(ahead.events[0]).toEqual({
        event: 'reset',
        id: String(await latest()),
        data: `{"latest":${await latest()}}`,
      });
      const changes = createChangesService({
        store: createChangesStore(t.database.db),
        dataVersion: undefined,
        signals: t.database.signals,
      });
      await createRule(t);
      await changes.sweep(1, Date.now() + 1000);
      const old = await stream('?after=0');
      expect(old.events[0]?.event).toBe('reset');
      const rule = await createRule(t);
      await old.waitFor((c) => c.changes().length === 1, 5000, 'the change after the reset');
      expect(old.changes()[0]?.id).toBe(rule.id);
    });

    it('refuses a bad start, and a missing key, before opening', async () => {
      expect((await stream('?after=x')).status).toBe(400);
      expect((await stream('', { 'last-event-id': 'abc' })).status).toBe(400);
      const unauthenticated = await fetch(`${base}/v1/changes/stream`);
      expect(unauthenticated.status).toBe(401);
    });

    it('sends one workspace’s changes only to its own streams', async () => {
      const mine = await stream();
      const theirs = await stream('', {}, t.outsider.key);
      const rule = await createRule(t, {}, t.outsider.key);
      await theirs.waitFor((c) => c.changes().length === 1, 5000, "the outsider's change");
      const other = await createRule(t);
      await mine.waitFor((c) => c.changes().length === 1, 5000, 'my change');
      expect(mine.changes()[0]?.id).toBe(other.id);
      expect(theirs.changes().map((c) => c.id)).toEqual([rule.id]);
    });

    it('ends every stream when the app closes, without waiting', async () => {
      const client = await stream();
      const closing = Date.now();
      await t.app.close();
      await client.waitFor((c) => c.ended(), 5000, 'the stream to end');
      expect(Date.now() - closing).toBeLessThan(3000);
    });
  });
});
