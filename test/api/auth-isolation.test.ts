// API keys (missing, malformed, unknown, revoked), teams sharing a workspace, and workspaces kept apart.
import { describe, expect, it } from 'vitest';
import {
  createGroup,
  createRule,
  expectError,
  getGroup,
  getRule,
  rawJson,
  snapshot,
  uniqueName,
} from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const RESOURCE_REQUESTS: [string, string, unknown?][] = [
  ['GET', '/v1/rules'],
  ['POST', '/v1/rules', { name: 'x', ruleType: 'Cancel', pairs: [] }],
  ['GET', '/v1/rules/Cancel_zzzzz'],
  ['PUT', '/v1/rules/Cancel_zzzzz', { name: 'x' }],
  ['DELETE', '/v1/rules/Cancel_zzzzz'],
  ['GET', '/v1/groups'],
  ['POST', '/v1/groups', { name: 'x' }],
  ['GET', '/v1/groups/Group_zzzzz'],
  ['PUT', '/v1/groups/not-an-id', { name: 'x' }],
  ['DELETE', '/v1/groups/Group_zzzzz'],
];

forEachDatabase((db) => {
  const t = useTestApp({ db });

  describe('API keys', () => {
    it.each(RESOURCE_REQUESTS)('%s %s without a key is 401 API key required', async (method, url, body) => {
      const before = await snapshot(t);
      expectError(await t.call(method as 'GET', url, { key: null, body }), 'API_KEY_REQUIRED');
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['a word', 'secret'],
      ['the prefix alone', 'rk_'],
      ['a key too short', 'rk_abc'],
      ['a key with spaces', 'rk_ abcdefghijklmnopqrstuvwxyz'],
      ['a key without the prefix', 'A'.repeat(43)],
      ['a very long key', `rk_${'A'.repeat(5000)}`],
    ])('a malformed key (%s) is 401 Invalid API key', async (_title, key) => {
      for (const [method, url, body] of RESOURCE_REQUESTS) {
        expectError(await t.call(method as 'GET', url, { key, body }), 'API_KEY_INVALID');
      }
    });

    it('a well-formed key that was never issued is 401 Invalid API key', async () => {
      const unknown = `rk_${'Q'.repeat(43)}`;
      const almost = `${t.owner.key.slice(0, -1)}${t.owner.key.endsWith('A') ? 'B' : 'A'}`;
      for (const key of [unknown, almost]) {
        expectError(await t.call('GET', '/v1/rules', { key }), 'API_KEY_INVALID');
        expectError(await t.call('POST', '/v1/groups', { key, body: { name: 'x' } }), 'API_KEY_INVALID');
      }
    });

    it('a key is read from x-api-key only', async () => {
      expectError(
        await t.call('GET', '/v1/rules', { key: null, headers: { authorization: `Bearer ${t.owner.key}` } }),
        'API_KEY_REQUIRED',
      );
    });

    it('authentication comes before the id, the body and the route', async () => {
      expectError(await t.call('GET', '/v1/groups/not-an-id', { key: null }), 'API_KEY_REQUIRED');
      expectError(await t.call('POST', '/v1/groups', { ...rawJson('{'), key: null }), 'API_KEY_REQUIRED');
      expectError(
        await t.call('PUT', '/v1/groups/Group_zzzzz', { ...rawJson('[]'), key: 'rk_bad' }),
        'API_KEY_INVALID',
      );
    });

    it('a revoked key is refused at once, and only that key', async () => {
      const dave = await t.keysService.issue('acme', `dave-${uniqueName('u').slice(2)}`);
      const rule = await createRule(t, {}, dave.key);
      expect(rule.createdBy).toBe(dave.userId);
      expect((await t.call('GET', `/v1/rules/${rule.id}`, { key: dave.key })).status).toBe(200);

      expect(await t.keysService.revoke(dave.keyId)).toBe(true);

      expectError(await t.call('GET', `/v1/rules/${rule.id}`, { key: dave.key }), 'API_KEY_INVALID');
      expectError(await t.call('GET', '/v1/rules', { key: dave.key }), 'API_KEY_INVALID');
      expectError(
        await t.call('PUT', `/v1/rules/${rule.id}`, { key: dave.key, body: { name: 'x' } }),
        'API_KEY_INVALID',
      );
      expectError(await t.call('DELETE', `/v1/rules/${rule.id}`, { key: dave.key }), 'API_KEY_INVALID');
      expectError(
        await t.call('POST', '/v1/groups', { key: dave.key, body: { name: 'x' } }),
        'API_KEY_INVALID',
      );
      // The workspace's other keys and the rule itself are untouched.
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
      expect((await t.call('GET', '/v1/rules', { key: t.teammate.key })).status).toBe(200);
    });

    it('a revoked key stays refused when the same user gets a new key', async () => {
      const name = `erin-${uniqueName('u').slice(2)}`;
      const first = await t.keysService.issue('acme', name);
      await t.keysService.revoke(first.keyId);
      const second = await t.keysService.issue('acme', name);
      expect(second.userId).toBe(first.userId);
      expectError(await t.call('GET', '/v1/rules', { key: first.key }), 'API_KEY_INVALID');
      expect((await t.call('GET', '/v1/rules', { key: second.key })).status).toBe(200);
    });
  });

  describe('a team shares its workspace', () => {
    it("the teammate reads, edits and deletes the owner's rules", async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id });
      expect(await t.call('GET', `/v1/rules/${rule.id}`, { key: t.teammate.key })).toMatchObject({
        status: 200,
        body: { success: true, data: rule },
      });
      const list = await t.call('GET', `/v1/rules?search=${encodeURIComponent(rule.name as string)}`, {
        key: t.teammate.key,
      });
      expect(list.body.data).toStrictEqual([rule]);

      const edited = await t.call('PUT', `/v1/rules/${rule.id}`, {
        key: t.teammate.key,
        body: { status: 'Active' },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.data).toMatchObject({
        createdBy: t.owner.userId,
        lastModifiedBy: t.teammate.userId,
        currentOwner: t.owner.userId,
        status: 'Active',
      });
      // The owner sees the teammate's change.
      expect(await getRule(t, rule.id)).toStrictEqual(edited.body.data);

      const deleted = await t.call('DELETE', `/v1/rules/${rule.id}`, { key: t.teammate.key });
      expect(deleted.body).toStrictEqual({ success: true, message: 'Rule deleted successfully' });
      expectError(await t.call('GET', `/v1/rules/${rule.id}`), 'RULE_NOT_FOUND');
    });

    it("the teammate reads and edits the owner's groups, and files rules in them", async () => {
      const group = await createGroup(t);
      expect(
        (await t.call('GET', `/v1/groups/${group.id}`, { key: t.teammate.key })).body.data,
      ).toStrictEqual(group);
      const edited = await t.call('PUT', `/v1/groups/${group.id}`, {
        key: t.teammate.key,
        body: { isFavourite: true },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.data).toMatchObject({
        createdBy: t.owner.userId,
        lastModifiedBy: t.teammate.userId,
        currentOwnerId: t.owner.userId,
        isFavourite: true,
      });
      expect(await getGroup(t, group.id)).toStrictEqual(edited.body.data);

      const rule = await createRule(t, { groupId: group.id }, t.teammate.key);
      expect(rule).toMatchObject({
        groupId: group.id,
        createdBy: t.teammate.userId,
        currentOwner: t.owner.userId,
      });
      const groups = await t.call('GET', '/v1/groups', { key: t.teammate.key });
      expect(groups.body.data.find((g: { id: unknown }) => g.id === group.id)).toMatchObject({
        ruleCount: 1,
      });
    });
  });

  describe('workspaces are kept apart', () => {
    it("the outsider gets 403 Unauthorized action on acme's rule, which stays unchanged", async () => {
      const rule = await createRule(t, { status: 'Active' });
      const carol = { key: t.outsider.key };
      expectError(await t.call('GET', `/v1/rules/${rule.id}`, carol), 'UNAUTHORIZED_ACTION');
      expectError(
        await t.call('PUT', `/v1/rules/${rule.id}`, { ...carol, body: { status: 'Inactive' } }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(
        await t.call('PUT', `/v1/rules/${rule.id}`, { ...carol, body: { ruleType: 'Redirect' } }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(await t.call('DELETE', `/v1/rules/${rule.id}`, carol), 'UNAUTHORIZED_ACTION');
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it("the outsider gets 403 Unauthorized action on acme's group, which stays unchanged", async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id });
      const carol = { key: t.outsider.key };
      expectError(await t.call('GET', `/v1/groups/${group.id}`, carol), 'UNAUTHORIZED_ACTION');
      expectError(
        await t.call('PUT', `/v1/groups/${group.id}`, { ...carol, body: { name: 'mine now' } }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(
        await t.call('PUT', `/v1/groups/${group.id}`, { ...carol, body: { name: '' } }),
        'UNAUTHORIZED_ACTION',
      );
      expectError(await t.call('DELETE', `/v1/groups/${group.id}`, carol), 'UNAUTHORIZED_ACTION');
      expect(await getGroup(t, group.id)).toStrictEqual(group);
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it("acme gets 403 on the outsider's objects, and cannot file a rule in the outsider's group", async () => {
      const carolGroup = await createGroup(t, {}, t.outsider.key);
      const carolRule = await createRule(t, { groupId: carolGroup.id }, t.outsider.key);
      expect(carolRule).toMatchObject({ createdBy: t.outsider.userId, currentOwner: t.outsider.userId });
      for (const key of [t.owner.key, t.teammate.key]) {
        expectError(await t.call('GET', `/v1/rules/${carolRule.id}`, { key }), 'UNAUTHORIZED_ACTION');
        expectError(await t.call('GET', `/v1/groups/${carolGroup.id}`, { key }), 'UNAUTHORIZED_ACTION');
        expectError(await t.call('DELETE', `/v1/rules/${carolRule.id}`, { key }), 'UNAUTHORIZED_ACTION');
      }
      const ownRule = await createRule(t);
      const reply = await t.call('PUT', `/v1/rules/${ownRule.id}`, { body: { groupId: carolGroup.id } });
      expect(reply.status).toBe(403);
      expect(reply.body.code).toBe('UNAUTHORIZED_ACTION');
      expect(await getRule(t, ownRule.id)).toStrictEqual(ownRule);
      const carolsView = await t.call('GET', `/v1/rules/${carolRule.id}`, { key: t.outsider.key });
      expect(carolsView.body.data).toStrictEqual(carolRule);
    });

    it("lists show only the caller's workspace", async () => {
      const acmeRule = await createRule(t);
      const acmeGroup = await createGroup(t);
      const carolRule = await createRule(t, {}, t.outsider.key);
      const carolGroup = await createGroup(t, {}, t.outsider.key);

      const ids = async (path: string, key: string) =>
        ((await t.call('GET', path, { key })).body.data as { id: string }[]).map((item) => item.id);

      for (const key of [t.owner.key, t.teammate.key]) {
        const rules = await ids('/v1/rules', key);
        expect(rules).toContain(acmeRule.id);
        expect(rules).not.toContain(carolRule.id);
        const groups = await ids('/v1/groups', key);
        expect(groups).toContain(acmeGroup.id);
        expect(groups).not.toContain(carolGroup.id);
      }
      const carolRules = await t.call('GET', '/v1/rules', { key: t.outsider.key });
      expect(
        carolRules.body.data.every((r: { currentOwner: string }) => r.currentOwner === t.outsider.userId),
      ).toBe(true);
      expect(carolRules.body.data.map((r: { id: string }) => r.id)).toContain(carolRule.id);
      expect(carolRules.body.data.map((r: { id: string }) => r.id)).not.toContain(acmeRule.id);
      const carolGroups = await ids('/v1/groups', t.outsider.key);
      expect(carolGroups).toContain(carolGroup.id);
      expect(carolGroups).not.toContain(acmeGroup.id);

      // Totals count the caller's workspace only.
      const acmeTotal = (await t.call('GET', '/v1/rules')).body.total;
      const carolTotal = carolRules.body.total;
      expect(acmeTotal).toBe((await ids('/v1/rules', t.owner.key)).length);
      expect(carolTotal).toBe(carolRules.body.data.length);
    });

    it("a list filtered by another workspace's group shows nothing of it", async () => {
      const carolGroup = await createGroup(t, {}, t.outsider.key);
      await createRule(t, { groupId: carolGroup.id }, t.outsider.key);
      const reply = await t.call('GET', `/v1/rules?groupId=${carolGroup.id}`);
      if (reply.status === 200) {
        expect(reply.body).toMatchObject({ data: [], total: 0 });
      } else {
        expect(reply.body.code).toBe('UNAUTHORIZED_ACTION');
      }
    });
  });

  describe('operational endpoints need no key', () => {
    it.each([
      ['/healthz', /json/],
      ['/readyz', /json/],
      ['/metrics', /text\/plain/],
      ['/v1/openapi.json', /json/],
      ['/docs', /text\/html/],
    ])('GET %s answers 200 without a key, and with a bad one', async (url, type) => {
      for (const headers of [{}, { 'x-api-key': 'not-a-key' }]) {
        const reply = await t.app.inject({ method: 'GET', url, headers });
        expect(reply.statusCode).toBe(200);
        expect(String(reply.headers['content-type'])).toMatch(type);
      }
    });
  });
});
