// History and restore: every kept version of a rule or group, newest first, and restoring one as a
// new version, also of a deleted object, with decision 2's order of checks.
import { describe, expect, it } from 'vitest';
import { at, createGroup, createRule, expectError, getRule, type Json } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  const t = useTestApp({ db });

  const versions = async (path: string, key?: string) => {
    const reply = await t.call('GET', `${path}/versions`, key ? { key } : {});
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data as Json[];
  };

  describe('GET …/versions', () => {
    it('lists every version of a rule newest first, with its content after each change and as deleted', async () => {
      const rule = await createRule(t, { name: 'v1' });
      const updated = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { name: 'v2' },
        key: t.teammate.key,
      });
      await t.call('DELETE', `/v1/rules/${rule.id}`);
      const list = await versions(`/v1/rules/${rule.id}`);
      // Who made each version, by user id and by name (what the console shows).
      expect(list.map((v) => [v.version, v.change, (v.object as Json).name, v.by, v.byName])).toEqual([
        [3, 'deleted', 'v2', t.owner.userId, 'alice'],
        [2, 'updated', 'v2', t.teammate.userId, 'bob'],
        [1, 'created', 'v1', t.owner.userId, 'alice'],
      ]);
      expect(list[2]?.object).toStrictEqual(rule);
      expect(list[1]?.object).toStrictEqual(updated.body.data);
      expect((list[0]?.revision as number) - (list[1]?.revision as number)).toBe(1);
    });

    it('lists a group’s versions', async () => {
      const group = await createGroup(t, { name: 'g1' });
      await t.call('PUT', `/v1/groups/${group.id}`, { body: { isFavourite: true }, key: t.teammate.key });
      const list = await versions(`/v1/groups/${group.id}`);
      expect(list.map((v) => [v.version, v.change, (v.object as Json).isFavourite, v.byName])).toEqual([
        [2, 'updated', true, 'bob'],
        [1, 'created', false, 'alice'],
      ]);
    });

    it('checks the key, the id form, existence and access', async () => {
      const rule = await createRule(t);
      expectError(await t.call('GET', `/v1/rules/${rule.id}/versions`, { key: null }), 'API_KEY_REQUIRED');
      expectError(await t.call('GET', '/v1/rules/Cancel_nope0/versions'), 'RULE_NOT_FOUND');
      expectError(
        await t.call('GET', `/v1/rules/${rule.id}/versions`, { key: t.outsider.key }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(await t.call('GET', '/v1/groups/bad-id/versions'), 'INVALID_GROUP_ID', [at('/id')]);
      expectError(await t.call('GET', '/v1/groups/Group_nope0/versions'), 'GROUP_NOT_FOUND');
      // A deleted object's history stays its workspace's: for anyone else it does not exist.
      await t.call('DELETE', `/v1/rules/${rule.id}`);
      expectError(
        await t.call('GET', `/v1/rules/${rule.id}/versions`, { key: t.outsider.key }),
        'RULE_NOT_FOUND',
      );
      expect(await versions(`/v1/rules/${rule.id}`)).toHaveLength(2);
    });
  });

  describe('POST …/restore', () => {
    it('makes an old version of a live rule current as a new version', async () => {
      const rule = await createRule(t, { name: 'first', description: 'd1' });
      await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { name: 'second', description: 'd2', status: 'Active' },
      });
      const restored = await t.call('POST', `/v1/rules/${rule.id}/restore`, {
        body: { version: 1 },
        key: t.teammate.key,
      });
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(restored.body.data).toStrictEqual({
        ...rule,
        lastModifiedBy: t.teammate.userId,
        modificationDate: expect.any(Number),
      });
      expect(restored.headers.etag).toBe(`"${restored.body.data.modificationDate}"`);
      expect(await getRule(t, rule.id)).toStrictEqual(restored.body.data);
      const list = await versions(`/v1/rules/${rule.id}`);
      expect(list.map((v) => [v.version, v.change, (v.object as Json).name])).toEqual([
        [3, 'updated', 'first'],
        [2, 'updated', 'second'],
        [1, 'created', 'first'],
      ]);
    });

    it('brings back a deleted rule under its id; a group that is gone leaves it ungrouped', async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id, status: 'Active' });
      await t.call('DELETE', `/v1/rules/${rule.id}`);
      await t.call('DELETE', `/v1/groups/${group.id}`);
      expectError(await t.call('GET', `/v1/rules/${rule.id}`), 'RULE_NOT_FOUND');
      const restored = await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 1 } });
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(restored.body.data).toStrictEqual({
        ...rule,
        groupId: '',
        modificationDate: expect.any(Number),
      });
      expect(await getRule(t, rule.id)).toStrictEqual(restored.body.data);
      const [latest] = await versions(`/v1/rules/${rule.id}`);
      expect(latest).toMatchObject({ version: 3, change: 'created' });
      const changes = await t.call(
        'GET',
        `/v1/changes?after=${Number(restored.headers['rulekeeper-revision']) - 1}`,
      );
      expect(changes.body.data).toEqual([expect.objectContaining({ id: rule.id, change: 'created' })]);
    });

    it('keeps the group when it still exists, and restores a deleted group', async () => {
      const group = await createGroup(t, { name: 'team' });
      const rule = await createRule(t, { groupId: group.id });
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId: '' } });
      const back = await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 1 } });
      expect(back.body.data.groupId).toBe(group.id);

      await t.call('DELETE', `/v1/groups/${group.id}`);
      const restored = await t.call('POST', `/v1/groups/${group.id}/restore`, { body: { version: 1 } });
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(restored.body.data).toStrictEqual({ ...group, modificationDate: expect.any(Number) });
      const read = await t.call('GET', `/v1/groups/${group.id}`);
      expect(read.body.data).toStrictEqual(restored.body.data);
    });

    it('checks key, id form, existence and access before the body, then the version', async () => {
      const rule = await createRule(t);
      const group = await createGroup(t);
      const before = await t.call('GET', '/v1/changes?after=0&limit=1');
      expectError(
        await t.call('POST', `/v1/rules/${rule.id}/restore`, { key: null, body: { version: 1 } }),
        'API_KEY_REQUIRED',
      );
      expectError(await t.call('POST', '/v1/groups/nope/restore', { body: { bad: 1 } }), 'INVALID_GROUP_ID', [
        at('/id'),
      ]);
      expectError(
        await t.call('POST', '/v1/rules/Cancel_nope0/restore', { body: { bad: 1 } }),
        'RULE_NOT_FOUND',
      );
      expectError(
        await t.call('POST', '/v1/groups/Group_nope0/restore', { body: { bad: 1 } }),
        'GROUP_NOT_FOUND',
      );
      expectError(
        await t.call('POST', `/v1/rules/${rule.id}/restore`, { key: t.outsider.key, body: { bad: 1 } }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(
        await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 'x' } }),
        'RULE_PAYLOAD_INVALID',
        [at('/version')],
      );
      expectError(
        await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 1, x: 1 } }),
        'RULE_PAYLOAD_INVALID',
        [at('/x')],
      );
      expectError(
        await t.call('POST', `/v1/groups/${group.id}/restore`, { body: [] }),
        'GROUP_PAYLOAD_INVALID',
        [at('')],
      );
      expectError(
        await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 9 } }),
        'VERSION_NOT_FOUND',
        [at('/version')],
      );
      // Nothing was written.
      const after = await t.call('GET', '/v1/changes?after=0&limit=1');
      expect(after.body.latest).toBe(before.body.latest);
    });
  });
});
