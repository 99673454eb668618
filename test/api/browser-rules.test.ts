// GET /v1/browser-rules: the caller's active rules as Chrome declarativeNetRequest rules, with a report
// per rule; a read key is enough; an ETag by revision (304 while nothing changed); another workspace's
// rules never show, and rules Chrome cannot take are reported, never dropped in silence.
import { describe, expect, it } from 'vitest';
import { createGroup, createRule, expectError } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const cancel = (value: string) => ({
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'Url', operator: 'Contains', value } }],
});

forEachDatabase((db) => {
  describe('GET /v1/browser-rules', () => {
    const t = useTestApp({ db });

    it('needs a key, and a read key is enough', async () => {
      expectError(await t.call('GET', '/v1/browser-rules', { key: null }), 'API_KEY_REQUIRED');
      const reader = await t.keysService.issue('acme', 'reader', {
        scope: 'read',
        expiresAt: null,
        name: 'r',
      });
      const reply = await t.call('GET', '/v1/browser-rules', { key: reader.key });
      expect(reply.status).toBe(200);
    });

    it('compiles the active rules in list order, Cancel above all, and reports each', async () => {
      const empty = await t.call('GET', '/v1/browser-rules', { key: t.outsider.key });
      expect(empty.body).toEqual({ success: true, data: { rules: [], report: [] } });

      const redirect = await createRule(t, {
        name: 'to staging',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'shop.example.com/checkout' },
            destinationType: 'url',
            destination: 'https://staging.example.com/checkout',
          },
        ],
      });
      const block = await createRule(t, { name: 'ads', ...cancel('ads.example.com') });
      await createRule(t, { name: 'off', ...cancel('off.example.com'), status: 'Inactive' });
      const parked = await createGroup(t, { status: 'Inactive' });
      await createRule(t, { name: 'parked', ...cancel('parked.example.com'), groupId: parked.id });
      const delay = await createRule(t, {
        name: 'slow',
        ruleType: 'Delay',
        status: 'Active',
        pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'slow' }, delay: 100 }],
      });

      const reply = await t.call('GET', '/v1/browser-rules');
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { rules, report } = reply.body.data;
      expect(rules).toEqual([
        {
          id: 1,
          priority: 1,
          action: { type: 'redirect', redirect: { url: 'https://staging.example.com/checkout' } },
          condition: expect.objectContaining({
            urlFilter: 'shop.example.com/checkout',
            isUrlFilterCaseSensitive: true,
            resourceTypes: expect.arrayContaining(['main_frame', 'xmlhttprequest']),
          }),
        },
        {
          id: 2,
          priority: 2,
          action: { type: 'block' },
          condition: expect.objectContaining({ urlFilter: 'ads.example.com' }),
        },
      ]);
      // Each pair is expressed; beside each other the two are partial: a URL such as
      // https://shop.example.com/checkout?from=ads.example.com is redirected by the engine, whose Cancel
      // sees the staging URL, and blocked by Chrome, whose Cancel sees the URL as requested.
      expect(report).toEqual([
        {
          ruleId: redirect.id,
          status: 'partial',
          pairs: [
            { index: 0, pairId: expect.any(String), status: 'compiled', browserRuleIds: [1], reasons: [] },
          ],
          reasons: [expect.stringContaining(`a later Cancel (${block.id})`)],
        },
        {
          ruleId: block.id,
          status: 'partial',
          pairs: [
            { index: 0, pairId: expect.any(String), status: 'compiled', browserRuleIds: [2], reasons: [] },
          ],
          reasons: [expect.stringContaining(`the URL-changing rules before it (${redirect.id})`)],
        },
        { ruleId: delay.id, status: 'not_compiled', reasons: ["Chrome's rules cannot delay a request"] },
      ]);
    });

    it('has an ETag by revision: 304 while nothing changed, the new rules after a change', async () => {
      const first = await t.call('GET', '/v1/browser-rules');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"\d+-/);
      const again = await t.call('GET', '/v1/browser-rules', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      const added = await createRule(t, { name: 'more', ...cancel('more.example.com') });
      const changed = await t.call('GET', '/v1/browser-rules', { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.body.data.report.map((r: { ruleId: string }) => r.ruleId)).toContain(added.id);
    });

    it('follows a change of a rule’s pairs, its group and its status (nothing kept from before)', async () => {
      const rule = await createRule(t, { name: 'moving', ...cancel('first.example.com') });
      const filterOf = async () => {
        const reply = await t.call('GET', '/v1/browser-rules');
        const entry = reply.body.data.report.find((r: { ruleId: string }) => r.ruleId === rule.id);
        const ids: number[] = entry?.pairs?.[0]?.browserRuleIds ?? [];
        const written = reply.body.data.rules.filter((r: { id: number }) => ids.includes(r.id));
        return { entry, urlFilter: written[0]?.condition.urlFilter };
      };
      expect((await filterOf()).urlFilter).toBe('first.example.com');
      const put = async (body: Record<string, unknown>) =>
        expect((await t.call('PUT', `/v1/rules/${rule.id}`, { body })).status).toBe(200);
      await put({ pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'second.example.com' } }] });
      expect((await filterOf()).urlFilter).toBe('second.example.com');
      const off = await createGroup(t, { status: 'Inactive' });
      await put({ groupId: off.id });
      expect((await filterOf()).entry).toBeUndefined();
      await put({ groupId: '', status: 'Inactive' });
      expect((await filterOf()).entry).toBeUndefined();
      await put({ status: 'Active' });
      expect((await filterOf()).urlFilter).toBe('second.example.com');
    });

    it('reports a pattern over Chrome’s regex budget as not compiled, and answers the rest', async () => {
      const huge = await createRule(t, {
        name: 'huge host',
        ruleType: 'Cancel',
        status: 'Active',
        pairs: [{ source: { key: 'host', operator: 'Contains', value: 'a'.repeat(8192) } }],
      });
      const reply = await t.call('GET', '/v1/browser-rules');
      expect(reply.status).toBe(200);
      const entry = reply.body.data.report.find((r: { ruleId: string }) => r.ruleId === huge.id);
      expect(entry).toMatchObject({ status: 'not_compiled', reasons: [expect.stringContaining('2 KB')] });
      const regexes = reply.body.data.rules.filter((r: { condition: { regexFilter?: string } }) =>
        r.condition.regexFilter?.includes('aaaa'),
      );
      expect(regexes).toEqual([]);
    });
  });
});
