// Workspace revisions, conditional reads (ETag / If-None-Match / 304) and the change feed
// (/v1/changes): what a client polling cheaply relies on.
import { describe, expect, it } from 'vitest';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import { createChangesStore } from '../../src/modules/changes/changes-store.js';
import { createGroup, createRule, expectError, type Json, type Reply } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  const t = useTestApp({ db });

  const revisionOf = (reply: { headers: Record<string, unknown> }) =>
    Number(reply.headers['rulekeeper-revision']);
  async function revision(key?: string): Promise<number> {
    const reply = await t.call('GET', '/v1/groups?pageSize=1', key ? { key } : {});
    expect(reply.status).toBe(200);
    return revisionOf(reply);
  }
  async function feed(after: number, limit = 1000): Promise<Reply['body']> {
    const reply = await t.call('GET', `/v1/changes?after=${after}&limit=${limit}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  }

  describe('Rulekeeper-Revision', () => {
    it('on each of twenty concurrent writes is the revision that write recorded, as the feed has it', async () => {
      const before = await revision();
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          t.call('POST', '/v1/rules', {
            body: {
              name: `concurrent ${n}`,
              ruleType: 'Cancel',
              pairs: [{ source: { key: 'host', operator: 'Equals', value: `c${n}.test` } }],
            },
          }),
        ),
      );
      expect(made.map((reply) => reply.status)).toEqual(made.map(() => 201));
      const recorded = new Map<string, number>(
        (await feed(before)).data.map((item: Json) => [item.id as string, item.revision as number]),
      );
      for (const reply of made) expect(revisionOf(reply)).toBe(recorded.get(reply.body.data.id));
      expect(new Set(made.map(revisionOf)).size).toBe(20);
    });

    it('starts at 0 and moves by one with each write, on the write answer and every read after', async () => {
      expect(await revision(t.outsider.key)).toBe(0);
      const before = await revision();
      const made = await t.call('POST', '/v1/rules', {
        body: {
          name: 'r',
          ruleType: 'Cancel',
          pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a' } }],
        },
      });
      expect(revisionOf(made)).toBe(before + 1);
      const id = made.body.data.id;
      expect(revisionOf(await t.call('PUT', `/v1/rules/${id}`, { body: { name: 'r2' } }))).toBe(before + 2);
      expect(revisionOf(await t.call('GET', `/v1/rules/${id}`))).toBe(before + 2);
      expect(revisionOf(await t.call('DELETE', `/v1/rules/${id}`))).toBe(before + 3);
      expect(await revision()).toBe(before + 3);
      // Another workspace's writes do not move it.
      await createRule(t, {}, t.outsider.key);
      expect(await revision()).toBe(before + 3);
    });

    it('is on error answers of authenticated requests too, and does not move on a refused write', async () => {
      const before = await revision();
      const refused = await t.call('PUT', '/v1/rules/Cancel_zzzzz', { body: { name: 'x' } });
      expectError(refused, 'RULE_NOT_FOUND');
      expect(revisionOf(refused)).toBe(before);
      const rule = await createRule(t);
      const invalid = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { pairs: [] } });
      expectError(invalid, 'RULE_PAIRS_INVALID', [expect.anything()]);
      expect(revisionOf(invalid)).toBe(before + 1);
      expect((await feed(before)).data).toHaveLength(1);
    });

    it('moves once for a group delete that ungroups rules, which are recorded as updated', async () => {
      const group = await createGroup(t);
      const rules = [await createRule(t, { groupId: group.id }), await createRule(t, { groupId: group.id })];
      const before = await revision();
      const deleted = await t.call('DELETE', `/v1/groups/${group.id}`);
      expect(deleted.body.message).toBe('Group deleted successfully; 2 rules ungrouped');
      expect(revisionOf(deleted)).toBe(before + 1);
      const { data } = await feed(before);
      expect(data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            revision: before + 1,
            objectType: 'group',
            id: group.id,
            change: 'deleted',
          }),
          ...rules.map((r) =>
            expect.objectContaining({
              revision: before + 1,
              objectType: 'rule',
              id: r.id,
              change: 'updated',
            }),
          ),
        ]),
      );
      expect(data).toHaveLength(3);
    });
  });

  describe('conditional reads', () => {
    it('answers 304 with no body to a list whose ETag still holds, and 200 once anything changed', async () => {
      const first = await t.call('GET', '/v1/rules?pageSize=5');
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"\d+-[\w-]+"$/);
      const again = await t.call('GET', '/v1/rules?pageSize=5', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers.etag).toBe(etag);
      expect(revisionOf(again)).toBe(revisionOf(first));
      // Weak comparison and lists of tags, as HTTP says.
      const weak = await t.call('GET', '/v1/rules?pageSize=5', {
        headers: { 'if-none-match': `"x", W/${etag}` },
      });
      expect(weak.status).toBe(304);
      // Another query is another list; another workspace's list is another list.
      const other = await t.call('GET', '/v1/rules?pageSize=6', { headers: { 'if-none-match': etag } });
      expect(other.status).toBe(200);
      const foreign = await t.call('GET', '/v1/rules?pageSize=5', {
        key: t.outsider.key,
        headers: { 'if-none-match': etag },
      });
      expect(foreign.status).toBe(200);
      // A change anywhere in the workspace (here: a group) can change a list: the ETag no longer holds.
      await createGroup(t);
      const changed = await t.call('GET', '/v1/rules?pageSize=5', { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.body).toStrictEqual(first.body);
    });

    it('answers 304 on groups lists and single objects, and 200 after the object changed', async () => {
      const groups = await t.call('GET', '/v1/groups');
      const notModified = await t.call('GET', '/v1/groups', {
        headers: { 'if-none-match': String(groups.headers.etag) },
      });
      expect(notModified.status).toBe(304);

      const rule = await createRule(t);
      const read = await t.call('GET', `/v1/rules/${rule.id}`);
      const etag = String(read.headers.etag);
      const same = await t.call('GET', `/v1/rules/${rule.id}`, { headers: { 'if-none-match': etag } });
      expect(same.status).toBe(304);
      expect(same.body).toBeUndefined();
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'renamed' } });
      const changed = await t.call('GET', `/v1/rules/${rule.id}`, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.body.data.name).toBe('renamed');

      const group = await createGroup(t);
      const g = await t.call('GET', `/v1/groups/${group.id}`);
      const g304 = await t.call('GET', `/v1/groups/${group.id}`, {
        headers: { 'if-none-match': String(g.headers.etag) },
      });
      expect(g304.status).toBe(304);
    });

    it('still checks the key and access before answering 304', async () => {
      const rule = await createRule(t);
      const read = await t.call('GET', `/v1/rules/${rule.id}`);
      const headers = { 'if-none-match': String(read.headers.etag) };
      expectError(await t.call('GET', `/v1/rules/${rule.id}`, { key: null, headers }), 'API_KEY_REQUIRED');
      expectError(
        await t.call('GET', `/v1/rules/${rule.id}`, { key: t.outsider.key, headers }),
        'UNAUTHORIZED_ACTION',
      );
    });
  });

  describe('GET /v1/changes', () => {
    it('lists the changes after a revision, oldest first, and pages by whole revisions', async () => {
      const before = await revision();
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id });
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Active' } });
      await t.call('DELETE', `/v1/groups/${group.id}`); // two changes in one revision
      const all = await feed(before);
      expect(all).toStrictEqual({
        success: true,
        data: [
          {
            revision: before + 1,
            objectType: 'group',
            id: group.id,
            change: 'created',
            at: expect.any(Number),
            by: t.owner.userId,
            byName: 'alice',
          },
          {
            revision: before + 2,
            objectType: 'rule',
            id: rule.id,
            change: 'created',
            at: expect.any(Number),
            by: t.owner.userId,
            byName: 'alice',
          },
          {
            revision: before + 3,
            objectType: 'rule',
            id: rule.id,
            change: 'updated',
            at: expect.any(Number),
            by: t.owner.userId,
            byName: 'alice',
          },
          {
            revision: before + 4,
            objectType: 'group',
            id: group.id,
            change: 'deleted',
            at: expect.any(Number),
            by: t.owner.userId,
            byName: 'alice',
          },
          {
            revision: before + 4,
            objectType: 'rule',
            id: rule.id,
            change: 'updated',
            at: expect.any(Number),
            by: t.owner.userId,
            byName: 'alice',
          },
        ],
        latest: before + 4,
        nextAfter: before + 4,
      });
      // A page never ends inside a revision: the follower resumes after nextAfter and misses nothing.
      const page = await feed(before + 2, 2);
      expect(page.data.map((c: Json) => c.revision)).toEqual([before + 3]);
      expect(page.nextAfter).toBe(before + 3);
      // A revision larger than the limit comes whole.
      const big = await feed(before + 3, 1);
      expect(big.data.map((c: Json) => c.revision)).toEqual([before + 4, before + 4]);
      expect(await feed(before + 4)).toStrictEqual({
        success: true,
        data: [],
        latest: before + 4,
        nextAfter: before + 4,
      });
      // The teammate sees the same workspace's changes; the outsider sees none of them.
      const outsider = await t.call('GET', `/v1/changes?after=0`, { key: t.outsider.key });
      expect(outsider.body.data.every((c: Json) => c.by === t.outsider.userId)).toBe(true);
    });

    it('refuses bad queries, and answers 410 for a revision it cannot continue from', async () => {
      for (const query of ['after=-1', 'after=x', 'limit=0', 'limit=1001', 'since=1']) {
        expectError(await t.call('GET', `/v1/changes?${query}`), 'INVALID_QUERY', [expect.anything()]);
      }
      const latest = await revision();
      expectError(await t.call('GET', `/v1/changes?after=${latest + 1}`), 'CHANGES_EXPIRED');
      expectError(await t.call('GET', '/v1/changes', { key: null }), 'API_KEY_REQUIRED');
    });

    it('304s an unchanged feed page', async () => {
      const first = await t.call('GET', '/v1/changes?after=0');
      const again = await t.call('GET', '/v1/changes?after=0', {
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      expect(again.status).toBe(304);
    });
  });

  describe('the change record is written with its change, in one transaction', () => {
    it('a transaction that fails after recording leaves neither a revision bump nor a change record', async () => {
      const changes = createChangesService({
        store: createChangesStore(t.database.db),
        dataVersion: undefined,
        signals: t.database.signals,
      });
      const before = await revision();
      const actor = { workspaceId: t.owner.workspaceId, userId: t.owner.userId };
      await expect(
        t.database.db.transaction().execute(async (trx) => {
          await changes.record(trx, actor, [
            { objectType: 'rule', id: 'Cancel_ghost', change: 'created', object: {} },
          ]);
          throw new Error('the write fails after its change was recorded');
        }),
      ).rejects.toThrow('the write fails');
      expect(await revision()).toBe(before);
      expect((await feed(before)).data).toEqual([]);
    });
  });

  describe('retention', () => {
    it('sweeps old records but keeps the latest version of live objects; followers from before get 410', async () => {
      const changes = createChangesService({
        store: createChangesStore(t.database.db),
        dataVersion: undefined,
        signals: t.database.signals,
      });
      const rule = await createRule(t, {}, t.teammate.key);
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'kept' } });
      const gone = await createRule(t);
      await t.call('DELETE', `/v1/rules/${gone.id}`);
      const latest = await revision();
      // Nothing is old enough yet.
      expect(await changes.sweep(60_000)).toBe(0);
      const later = Date.now() + 91 * 24 * 60 * 60 * 1000;
      expect(await changes.sweep(90 * 24 * 60 * 60 * 1000, later)).toBeGreaterThan(0);
      const versions = await t.call('GET', `/v1/rules/${rule.id}/versions`);
      expect(versions.body.data.map((v: Json) => [v.version, (v.object as Json).name])).toEqual([
        [2, 'kept'],
      ]);
      expectError(await t.call('GET', `/v1/rules/${gone.id}/versions`), 'RULE_NOT_FOUND');
      expectError(await t.call('GET', '/v1/changes?after=0'), 'CHANGES_EXPIRED');
      expect(await feed(latest)).toMatchObject({ data: [], latest });
    });
  });
});
