// A Script rule's removeCSPHeader (Requestly's field, decision 22): stored and answered on Script rules
// only (true unless sent false, as in Requestly), acted on by the engine (the trace shows the document's
// Content-Security-Policy removed) and compiled for the browser (a header rule removing it on documents).
import { describe, expect, it } from 'vitest';
import { at, createRule, expectError, getRule } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const source = { key: 'Url', operator: 'Contains', value: 'shop.example.com' };
const scriptBody = (fields: Record<string, unknown> = {}) => ({
  ruleType: 'Script',
  status: 'Active',
  pairs: [{ source, scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: '1' }] }],
  ...fields,
});
const CSP_REMOVED = { header: 'Content-Security-Policy', type: 'Remove' };

forEachDatabase((db) => {
  describe("a Script rule's removeCSPHeader", () => {
    const t = useTestApp({ db });

    /** A workspace of its own, so that the trace and the browser rules see only this test's rules. */
    async function workspace() {
      return (await t.keysService.issue(`ws-${Math.random().toString(36).slice(2)}`, 'scripter')).key;
    }

    it('is true unless sent false; a PUT changes it or leaves it; other types have no such field', async () => {
      const removing = await createRule(t, scriptBody());
      expect(removing.removeCSPHeader).toBe(true);
      const leaving = await createRule(t, scriptBody({ removeCSPHeader: false }));
      expect(leaving.removeCSPHeader).toBe(false);
      expect(await getRule(t, leaving.id as string)).toStrictEqual(leaving);

      const renamed = await t.call('PUT', `/v1/rules/${leaving.id}`, { body: { name: 'renamed' } });
      expect(renamed.body.data).toMatchObject({ name: 'renamed', removeCSPHeader: false });
      const switched = await t.call('PUT', `/v1/rules/${leaving.id}`, { body: { removeCSPHeader: true } });
      expect(switched.body.data.removeCSPHeader).toBe(true);

      // Requestly declares it on Script records only: another type takes it and ignores it.
      const cancel = await createRule(t, { removeCSPHeader: false });
      expect(cancel).not.toHaveProperty('removeCSPHeader');
      const list = await t.call('GET', '/v1/rules?ruleType=Cancel&pageSize=5');
      for (const rule of list.body.data) expect(rule).not.toHaveProperty('removeCSPHeader');
    });

    it('anything but a boolean is Rule Payload is invalid at /removeCSPHeader, and changes nothing', async () => {
      const rule = await createRule(t, scriptBody({ removeCSPHeader: false }));
      const created = await t.call('POST', '/v1/rules', {
        body: { name: 'x', ...scriptBody({ removeCSPHeader: 'no' }) },
      });
      expectError(created, 'RULE_PAYLOAD_INVALID', [at('/removeCSPHeader')]);
      const updated = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { removeCSPHeader: null, name: 'y' },
      });
      expectError(updated, 'RULE_PAYLOAD_INVALID', [at('/removeCSPHeader')]);
      expect(await getRule(t, rule.id as string)).toStrictEqual(rule);
    });

    it('a trace of a document shows the policy removed by the rule that asks, not by the one that says false', async () => {
      const key = await workspace();
      const removing = await createRule(t, { name: 'removing', ...scriptBody() }, key);
      await createRule(t, { name: 'leaving', ...scriptBody({ removeCSPHeader: false }) }, key);
      const trace = (resourceType: string) =>
        t.call('POST', '/v1/trace', {
          key,
          body: { request: { url: 'https://shop.example.com/', resourceType } },
        });
      const page = await trace('main_frame');
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.data.outcome.responseHeaders).toEqual([{ ...CSP_REMOVED, ruleId: removing.id }]);
      expect(page.body.data.outcome.scripts).toHaveLength(2);
      const [first, second] = page.body.data.rules as { pairs: { effect: unknown }[] }[];
      expect(first?.pairs[0]?.effect).toEqual({ scripts: 1, responseHeaders: [CSP_REMOVED] });
      expect(second?.pairs[0]?.effect).toEqual({ scripts: 1 });
      // Not a document: no script goes in, no policy is removed.
      const xhr = await trace('xmlhttprequest');
      expect(xhr.body.data.outcome.responseHeaders).toEqual([]);

      // Unsaved rules are read as POST reads them: the default applies there too.
      const unsaved = await t.call('POST', '/v1/trace', {
        key,
        body: {
          request: { url: 'https://shop.example.com/', resourceType: 'sub_frame' },
          rules: [{ name: 'u', ...scriptBody() }],
        },
      });
      expect(unsaved.body.data.outcome.responseHeaders).toEqual([{ ...CSP_REMOVED, ruleId: 'inline:0' }]);
    });

    it('GET /v1/browser-rules removes the policy on the documents of a rule that asks, reported partial', async () => {
      const key = await workspace();
      const removing = await createRule(t, { name: 'removing', ...scriptBody() }, key);
      const leaving = await createRule(
        t,
        { name: 'leaving', ...scriptBody({ removeCSPHeader: false }) },
        key,
      );
      const reply = await t.call('GET', '/v1/browser-rules', { key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { rules, report } = reply.body.data;
      expect(rules).toEqual([
        {
          id: 1,
          priority: 1,
          action: {
            type: 'modifyHeaders',
            responseHeaders: [{ header: 'Content-Security-Policy', operation: 'remove' }],
          },
          condition: expect.objectContaining({
            urlFilter: 'shop.example.com',
            resourceTypes: ['main_frame', 'sub_frame'],
          }),
        },
      ]);
      expect(report).toEqual([
        expect.objectContaining({ ruleId: removing.id, status: 'partial' }),
        expect.objectContaining({ ruleId: leaving.id, status: 'not_compiled' }),
      ]);

      // Switched to false, the rule has nothing left to write (the compile follows the change).
      await t.call('PUT', `/v1/rules/${removing.id}`, { key, body: { removeCSPHeader: false } });
      const after = await t.call('GET', '/v1/browser-rules', { key });
      expect(after.body.data.rules).toEqual([]);
    });
  });
});
