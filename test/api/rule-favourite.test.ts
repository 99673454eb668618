// A rule's isFavourite (Requestly's pinned rules, decision 22): written by POST and PUT like any field,
// answered by every rule, a filter of the rules list, and brought back by a restore.
import { describe, expect, it } from 'vitest';
import { at, createRule, expectError, getRule } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  describe("a rule's isFavourite", () => {
    const t = useTestApp({ db });

    it('defaults to false, is stored as sent, and a PUT changes it or leaves it', async () => {
      const plain = await createRule(t);
      expect(plain.isFavourite).toBe(false);
      const pinned = await createRule(t, { isFavourite: true });
      expect(pinned.isFavourite).toBe(true);
      expect(await getRule(t, pinned.id as string)).toStrictEqual(pinned);

      const renamed = await t.call('PUT', `/v1/rules/${pinned.id}`, { body: { name: 'renamed' } });
      expect(renamed.body.data).toMatchObject({ name: 'renamed', isFavourite: true });
      const unpinned = await t.call('PUT', `/v1/rules/${pinned.id}`, { body: { isFavourite: false } });
      expect(unpinned.status).toBe(200);
      expect(unpinned.body.data).toMatchObject({ name: 'renamed', isFavourite: false });
      expect(await getRule(t, pinned.id as string)).toStrictEqual(unpinned.body.data);
    });

    it('anything but a boolean is Rule Payload is invalid at /isFavourite, and changes nothing', async () => {
      const rule = await createRule(t, { isFavourite: true });
      const created = await t.call('POST', '/v1/rules', {
        body: {
          name: 'x',
          ruleType: 'Cancel',
          pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'a' } }],
          isFavourite: 'yes',
        },
      });
      expectError(created, 'RULE_PAYLOAD_INVALID', [at('/isFavourite')]);
      const updated = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { isFavourite: 1, name: 'changed' },
      });
      expectError(updated, 'RULE_PAYLOAD_INVALID', [at('/isFavourite')]);
      expect(await getRule(t, rule.id as string)).toStrictEqual(rule);
    });

    it('GET /v1/rules?isFavourite=true lists the pinned rules, false the others, with other filters', async () => {
      const issued = await t.keysService.issue(`ws-${Math.random().toString(36).slice(2)}`, 'pinner');
      const key = issued.key;
      const pinned = await createRule(t, { isFavourite: true, status: 'Active' }, key);
      const pinnedOff = await createRule(t, { isFavourite: true }, key);
      const plain = await createRule(t, { status: 'Active' }, key);
      const ids = async (query: string) => {
        const reply = await t.call('GET', `/v1/rules${query}`, { key });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        return [(reply.body.data as { id: string }[]).map((r) => r.id), reply.body.total];
      };
      expect(await ids('?isFavourite=true')).toEqual([[pinned.id, pinnedOff.id], 2]);
      expect(await ids('?isFavourite=false')).toEqual([[plain.id], 1]);
      expect(await ids('?isFavourite=true&status=Active')).toEqual([[pinned.id], 1]);
      expect(await ids('')).toEqual([[pinned.id, pinnedOff.id, plain.id], 3]);
      const bad = await t.call('GET', '/v1/rules?isFavourite=yes', { key });
      expectError(bad, 'INVALID_QUERY', [at('/isFavourite')]);
    });

    it('a restore brings back the version as it was pinned', async () => {
      const rule = await createRule(t);
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { isFavourite: true } });
      const restored = await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 1 } });
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(restored.body.data.isFavourite).toBe(false);
      const again = await t.call('POST', `/v1/rules/${rule.id}/restore`, { body: { version: 2 } });
      expect(again.body.data.isFavourite).toBe(true);
    });
  });
});
