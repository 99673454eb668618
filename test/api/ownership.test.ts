// Ownership is forever: an id is its workspace's also after deletion. Another workspace cannot take a
// deleted id over by importing it (it gets a new id, said in its warnings), and a deleted object's
// history and restore do not exist for anyone else (404); live objects stay 403. Both databases.
import { describe, expect, it } from 'vitest';
import { expectError, type Json, uniqueName } from '../helpers/fixtures.js';
import { forEachDatabase, type TestApp, useTestApp } from '../helpers/test-app.js';

/** A key of a new, empty workspace. */
async function workspace(t: TestApp): Promise<string> {
  return (await t.keysService.issue(uniqueName('ws').replace(' ', '-'), 'someone')).key;
}

const secretRule = (name: string): Json => ({
  name,
  ruleType: 'Headers',
  status: 'Active',
  pairs: [
    {
      source: { key: 'Url', operator: 'Contains', value: 'api.example.com' },
      modifications: {
        Request: [{ header: 'Authorization', value: 'Bearer secret-of-b', type: 'Add' }],
        Response: [],
      },
    },
  ],
});

forEachDatabase((db) => {
  const t = useTestApp({ db });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, body?: unknown) =>
    t.call(method, url, { key, ...(body === undefined ? {} : { body }) });

  /** Workspace B's rule with a secret in a header, changed once and deleted: three kept versions. */
  async function deletedRuleOfB(b: string): Promise<Json> {
    const created = await call('POST', '/v1/rules', b, secretRule('b-rule'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rule = created.body.data as Json;
    expect((await call('PUT', `/v1/rules/${rule.id}`, b, { name: 'b-rule v2' })).status).toBe(200);
    expect((await call('DELETE', `/v1/rules/${rule.id}`, b)).status).toBe(200);
    return rule;
  }

  describe("another workspace's deleted id", () => {
    it.each(['overwrite', 'copy'])(
      'imported with mode=%s gets a new id (said in its warnings in overwrite); B keeps its history, A reads none',
      async (mode) => {
        const [a, b] = [await workspace(t), await workspace(t)];
        const rule = await deletedRuleOfB(b);
        const record = { ...secretRule('taken over'), id: rule.id, objectType: 'rule' };
        const reply = await call('POST', `/v1/import?mode=${mode}`, a, [record]);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        const [item] = reply.body.data.items;
        expect(item).toMatchObject({ outcome: 'created', sourceId: rule.id });
        expect(item.id).not.toBe(rule.id);
        if (mode === 'overwrite')
          expect(item.warnings).toContainEqual(expect.stringContaining(`"${rule.id}"`));

        // The id is still nobody's live object; for A it does not exist at all.
        expectError(await call('GET', `/v1/rules/${rule.id}`, a), 'RULE_NOT_FOUND');
        expectError(await call('GET', `/v1/rules/${rule.id}/versions`, a), 'RULE_NOT_FOUND');
        expectError(await call('POST', `/v1/rules/${rule.id}/restore`, a, { version: 1 }), 'RULE_NOT_FOUND');
        const ours = await call('GET', `/v1/rules/${rule.id}/versions`, b);
        expect(ours.status).toBe(200);
        expect(ours.body.data.map((v: Json) => [v.version, v.change])).toEqual([
          [3, 'deleted'],
          [2, 'updated'],
          [1, 'created'],
        ]);
        // A's new rule's history is A's alone, and holds nothing of B's.
        const theirs = await call('GET', `/v1/rules/${item.id}/versions`, a);
        expect(theirs.body.data.map((v: Json) => [v.version, (v.object as Json).name])).toEqual([
          [1, 'taken over'],
        ]);
        // B can still bring its rule back under its id.
        const restored = await call('POST', `/v1/rules/${rule.id}/restore`, b, { version: 2 });
        expect(restored.status, JSON.stringify(restored.body)).toBe(200);
        expect(restored.body.data).toMatchObject({ id: rule.id, name: 'b-rule v2' });
      },
    );

    it('restore across workspaces is 404 for a deleted id and 403 for a live one; nothing is written', async () => {
      const [a, b] = [await workspace(t), await workspace(t)];
      const rule = await deletedRuleOfB(b);
      const group = (await call('POST', '/v1/groups', b, { name: 'b-group' })).body.data as Json;
      expect((await call('DELETE', `/v1/groups/${group.id}`, b)).status).toBe(200);
      const live = (await call('POST', '/v1/rules', b, secretRule('live'))).body.data as Json;
      const before = (await call('GET', '/v1/changes?after=0&limit=1', b)).body.latest;

      expectError(await call('POST', `/v1/rules/${rule.id}/restore`, a, { version: 1 }), 'RULE_NOT_FOUND');
      expectError(await call('POST', `/v1/groups/${group.id}/restore`, a, { version: 1 }), 'GROUP_NOT_FOUND');
      expectError(await call('GET', `/v1/groups/${group.id}/versions`, a), 'GROUP_NOT_FOUND');
      expectError(
        await call('POST', `/v1/rules/${live.id}/restore`, a, { version: 1 }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(await call('GET', `/v1/rules/${live.id}/versions`, a), 'UNAUTHORIZED_ACTION');

      expectError(await call('GET', `/v1/rules/${rule.id}`, b), 'RULE_NOT_FOUND');
      expectError(await call('GET', `/v1/groups/${group.id}`, b), 'GROUP_NOT_FOUND');
      expect((await call('GET', '/v1/changes?after=0&limit=1', b)).body.latest).toBe(before);
    });

    it("a group's deleted id imported with overwrite gets a new id, and the file's rules follow it", async () => {
      const [a, b] = [await workspace(t), await workspace(t)];
      const group = (await call('POST', '/v1/groups', b, { name: 'b-group' })).body.data as Json;
      expect((await call('DELETE', `/v1/groups/${group.id}`, b)).status).toBe(200);
      const file = [
        { objectType: 'group', id: group.id, name: 'taken over', status: 'Active' },
        { ...secretRule('in it'), objectType: 'rule', groupId: group.id },
      ];
      const reply = await call('POST', '/v1/import?mode=overwrite', a, file);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [groupItem, ruleItem] = reply.body.data.items;
      expect(groupItem.id).not.toBe(group.id);
      expect(groupItem.warnings).toContainEqual(expect.stringContaining(`"${group.id}"`));
      expect((await call('GET', `/v1/rules/${ruleItem.id}`, a)).body.data.groupId).toBe(groupItem.id);
      expect((await call('GET', `/v1/groups/${group.id}/versions`, b)).status).toBe(200);
    });
  });

  describe("a workspace's own ids", () => {
    it('its own deleted id imported with overwrite comes back under that id, its history continued', async () => {
      const b = await workspace(t);
      const rule = await deletedRuleOfB(b);
      const reply = await call('POST', '/v1/import?mode=overwrite', b, [
        { ...secretRule('back'), id: rule.id, objectType: 'rule' },
      ]);
      expect(reply.body.data.items[0]).toMatchObject({ id: rule.id, outcome: 'created', warnings: [] });
      const list = await call('GET', `/v1/rules/${rule.id}/versions`, b);
      expect(list.body.data.map((v: Json) => [v.version, v.change])).toEqual([
        [4, 'created'],
        [3, 'deleted'],
        [2, 'updated'],
        [1, 'created'],
      ]);
    });

    it('a dry run claims no id: a free id it would keep stays free for whoever imports it first', async () => {
      const [a, b] = [await workspace(t), await workspace(t)];
      const record = {
        ...secretRule('dry'),
        id: `Headers_${uniqueName('').replace(' ', '')}`,
        objectType: 'rule',
      };
      const dry = await call('POST', '/v1/import?mode=overwrite&dryRun=true', a, [record]);
      expect(dry.body.data.items[0]).toMatchObject({ id: record.id, outcome: 'created' });
      const real = await call('POST', '/v1/import?mode=overwrite', b, [record]);
      expect(real.body.data.items[0]).toMatchObject({ id: record.id, outcome: 'created', warnings: [] });
      // And now it is B's for good: A's real import gets a new id.
      expect((await call('DELETE', `/v1/rules/${record.id}`, b)).status).toBe(200);
      const late = await call('POST', '/v1/import?mode=overwrite', a, [record]);
      expect(late.body.data.items[0].id).not.toBe(record.id);
    });
  });
});
