// GET /v1/rules/deleted: the workspace's deleted rules that can be restored, most recently deleted
// first, paged as the other lists, each with the version that restores it as it was. Only the
// workspace's own ids (decision 15), none taken again, and the documented 400 for a bad query.
// Both databases.
import { describe, expect, it } from 'vitest';
import { at, createGroup, createRule, expectError, type Json, uniqueName } from '../helpers/fixtures.js';
import { forEachDatabase, type TestApp, useTestApp } from '../helpers/test-app.js';

/** A key of a new, empty workspace, its user's id, and the workspace's name. */
async function workspace(t: TestApp, user = 'someone') {
  const name = uniqueName('ws').replace(' ', '-');
  const issued = await t.keysService.issue(name, user);
  return { key: issued.key, userId: issued.userId, name };
}

forEachDatabase((db) => {
  const t = useTestApp({ db });

  const list = async (key: string, query = '') => {
    const reply = await t.call('GET', `/v1/rules/deleted${query}`, { key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as { data: Json[]; total: number; nextOffset: number | null };
  };
  const remove = async (id: unknown, key: string) =>
    expect((await t.call('DELETE', `/v1/rules/${id}`, { key })).status).toBe(200);

  describe('GET /v1/rules/deleted', () => {
    it('lists deleted rules newest first: who deleted each, when, and the version that restores it', async () => {
      const { key, userId } = await workspace(t, 'alice');
      const first = await createRule(t, { name: 'first', status: 'Active' }, key);
      const second = await createRule(t, { name: 'second' }, key);
      const kept = await createRule(t, { name: 'kept' }, key);
      expect(
        (await t.call('PUT', `/v1/rules/${second.id}`, { key, body: { name: 'second v2' } })).status,
      ).toBe(200);
      const before = Date.now();
      await remove(first.id, key);
      await remove(second.id, key);
      const after = Date.now();

      const page = await list(key);
      expect(page).toMatchObject({ total: 2, nextOffset: null });
      expect(page.data).toStrictEqual([
        {
          id: second.id,
          name: 'second v2',
          ruleType: 'Cancel',
          deletedAt: expect.any(Number),
          deletedBy: userId,
          deletedByName: 'alice',
          version: 3,
          rule: { ...second, name: 'second v2', modificationDate: expect.any(Number) },
        },
        {
          id: first.id,
          name: 'first',
          ruleType: 'Cancel',
          deletedAt: expect.any(Number),
          deletedBy: userId,
          deletedByName: 'alice',
          version: 2,
          rule: first,
        },
      ]);
      for (const item of page.data) {
        expect(item.deletedAt as number).toBeGreaterThanOrEqual(before);
        expect(item.deletedAt as number).toBeLessThanOrEqual(after);
      }
      expect(page.data.map((item) => item.id)).not.toContain(kept.id);

      // The version listed brings the rule back as it was when deleted.
      const [newest] = page.data;
      const restored = await t.call('POST', `/v1/rules/${second.id}/restore`, {
        key,
        body: { version: newest?.version },
      });
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(restored.body.data).toMatchObject({ id: second.id, name: 'second v2' });
    });

    it('pages as the other lists do: offset, pageSize, total and nextOffset', async () => {
      const { key } = await workspace(t);
      const rules = [];
      for (const name of ['a', 'b', 'c']) rules.push(await createRule(t, { name }, key));
      for (const rule of rules) await remove(rule.id, key);

      const one = await list(key, '?pageSize=2');
      expect(one.data.map((item) => item.name)).toStrictEqual(['c', 'b']);
      expect(one).toMatchObject({ total: 3, nextOffset: 2 });
      const two = await list(key, '?offset=2&pageSize=2');
      expect(two.data.map((item) => item.name)).toStrictEqual(['a']);
      expect(two).toMatchObject({ total: 3, nextOffset: null });
      expect(await list(key, '?offset=9')).toMatchObject({ data: [], total: 3, nextOffset: null });
    });

    it('leaves out a rule restored or imported again under its id, and deleted groups', async () => {
      const { key } = await workspace(t);
      const restored = await createRule(t, { name: 'restored' }, key);
      const imported = await createRule(t, { name: 'imported again' }, key);
      const gone = await createRule(t, { name: 'still gone' }, key);
      const group = await createGroup(t, {}, key);
      for (const rule of [restored, imported, gone]) await remove(rule.id, key);
      expect((await t.call('DELETE', `/v1/groups/${group.id}`, { key })).status).toBe(200);
      expect((await list(key)).total).toBe(3);

      expect(
        (await t.call('POST', `/v1/rules/${restored.id}/restore`, { key, body: { version: 1 } })).status,
      ).toBe(200);
      const record = { ...imported, name: 'back', objectType: 'rule' };
      const reply = await t.call('POST', '/v1/import?mode=overwrite', { key, body: [record] });
      expect(reply.body.data.items[0]).toMatchObject({ id: imported.id, outcome: 'created' });

      const page = await list(key);
      expect(page.data.map((item) => item.id)).toStrictEqual([gone.id]);
      expect(page.total).toBe(1);

      // Deleted again, the restored rule is listed again, with its newest deletion.
      await remove(restored.id, key);
      const again = await list(key);
      expect(again.data.map((item) => [item.id, item.version])).toStrictEqual([
        [restored.id, 4],
        [gone.id, 2],
      ]);
    });

    it("lists only the workspace's own: another workspace's deleted rules never appear", async () => {
      const [a, b] = [await workspace(t), await workspace(t)];
      const ours = await createRule(t, { name: 'ours' }, a.key);
      const theirs = await createRule(t, { name: 'theirs' }, b.key);
      await remove(ours.id, a.key);
      await remove(theirs.id, b.key);
      // B's deleted id imported by A gets a new id: B's deletion stays B's alone.
      const taken = await t.call('POST', '/v1/import?mode=overwrite', {
        key: a.key,
        body: [{ ...theirs, name: 'taken over', objectType: 'rule' }],
      });
      const newId = taken.body.data.items[0].id;
      expect(newId).not.toBe(theirs.id);
      await remove(newId, a.key);

      expect((await list(a.key)).data.map((item) => item.id)).toStrictEqual([newId, ours.id]);
      expect((await list(b.key)).data.map((item) => item.id)).toStrictEqual([theirs.id]);
    });

    it('is read with a read key, and answers 304 while nothing changed', async () => {
      const { key, name } = await workspace(t);
      const issued = await t.keysService.issue(name, 'reader', {
        scope: 'read',
        expiresAt: null,
        name: 'reader',
      });
      await remove((await createRule(t, {}, key)).id, key);
      const first = await t.call('GET', '/v1/rules/deleted', { key: issued.key });
      expect(first.status).toBe(200);
      expect(first.body.total).toBe(1);
      const etag = first.headers.etag as string;
      const again = await t.call('GET', '/v1/rules/deleted', {
        key: issued.key,
        headers: { 'if-none-match': etag },
      });
      expect(again.status).toBe(304);
      await remove((await createRule(t, {}, key)).id, key);
      const changed = await t.call('GET', '/v1/rules/deleted', {
        key: issued.key,
        headers: { 'if-none-match': etag },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.total).toBe(2);
    });

    it.each([
      ['an unknown parameter', 'foo=1', '/foo'],
      ['a rules filter', 'status=Active', '/status'],
      ['a negative offset', 'offset=-1', '/offset'],
      ['a non-numeric offset', 'offset=abc', '/offset'],
      ['pageSize 0', 'pageSize=0', '/pageSize'],
      ['pageSize 1001', 'pageSize=1001', '/pageSize'],
      ['a non-numeric pageSize', 'pageSize=ten', '/pageSize'],
      ['a repeated pageSize', 'pageSize=1&pageSize=1', '/pageSize'],
    ])('with %s is Invalid query', async (_title, query, path) => {
      expectError(await t.call('GET', `/v1/rules/deleted?${query}`), 'INVALID_QUERY', [at(path)]);
    });

    it('needs a key', async () => {
      expectError(await t.call('GET', '/v1/rules/deleted', { key: null }), 'API_KEY_REQUIRED');
    });
  });
});
