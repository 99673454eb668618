// POST /v1/trace: the workspace's rules (or some, or unsaved ones) against a request, every verdict
// explained; validation with pointers into the body; a trace sees only its own workspace.
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { at, createGroup, createRule, expectError, type Json } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const URL = 'https://shop.example.com/checkout?x=1';

const redirect = (fields: Json = {}) => ({
  ruleType: 'Redirect',
  status: 'Active',
  pairs: [
    {
      source: { key: 'Url', operator: 'Wildcard_Matches', value: '*://shop.example.com/*' },
      destinationType: 'url',
      destination: 'https://staging.example.com/$2',
    },
  ],
  ...fields,
});

const headers = (fields: Json = {}) => ({
  ruleType: 'Headers',
  status: 'Active',
  pairs: [
    {
      source: { key: 'host', operator: 'Contains', value: 'example.com' },
      modifications: [{ Request: [{ header: 'X-Debug', type: 'Add', value: '1' }] }],
    },
  ],
  ...fields,
});

forEachDatabase((db) => {
  describe('POST /v1/trace', () => {
    const t = useTestApp({ db });
    const trace = (body: unknown, key?: string) =>
      t.call('POST', '/v1/trace', { body, ...(key ? { key } : {}) });

    it('needs a key', async () => {
      expectError(
        await t.call('POST', '/v1/trace', { key: null, body: { request: { url: URL } } }),
        'API_KEY_REQUIRED',
      );
    });

    it('with explain=acted answers the same outcome and only the verdicts of the rules that acted; with none, no verdicts', async () => {
      const acting = await createRule(t, headers({ name: 'acts' }));
      const idle = await createRule(
        t,
        redirect({
          pairs: [
            { ...redirect().pairs[0], source: { key: 'host', operator: 'Equals', value: 'elsewhere.test' } },
          ],
        }),
      );
      const body = { request: { url: URL } };
      const full = await trace(body);
      const acted = await t.call('POST', '/v1/trace?explain=acted', { body });
      const none = await t.call('POST', '/v1/trace?explain=none', { body });
      expect([acted.status, none.status]).toEqual([200, 200]);
      expect(acted.body.data.outcome).toEqual(full.body.data.outcome);
      expect(none.body.data.outcome).toEqual(full.body.data.outcome);
      expect(acted.body.data.rules).toEqual(full.body.data.rules.filter((r: Json) => r.reason === 'acted'));
      expect(acted.body.data.rules.map((r: Json) => r.ruleId)).toContain(acting.id);
      expect(full.body.data.rules.length).toBeGreaterThan(acted.body.data.rules.length);
      expect(none.body.data.rules).toEqual([]);
      for (const rule of [acting, idle]) await t.call('DELETE', `/v1/rules/${rule.id}`);
    });

    it.each([
      ['/v1/trace?explain=some', '/explain'],
      ['/v1/trace?explain=acted&explain=none', '/explain'],
      ['/v1/trace?verbose=1', '/verbose'],
    ])('refuses %s with Invalid query at its parameter', async (url, path) => {
      const reply = await t.call('POST', url, { body: { request: { url: URL } } });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('INVALID_QUERY');
      expect(reply.body.details.map((d: Json) => d.path)).toContain(path);
    });

    it('explains every rule of the workspace, in list order, and gives the outcome', async () => {
      const first = await createRule(t, redirect());
      const second = await createRule(t, headers());
      const off = await createRule(t, redirect({ status: 'Inactive' }));
      const reply = await trace({ request: { url: 'http://Shop.example.com/checkout?x=1', method: 'get' } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { request, outcome, rules } = reply.body.data;
      expect(request).toEqual({ url: 'http://shop.example.com/checkout?x=1', method: 'GET' });
      expect(outcome).toMatchObject({
        cancelled: false,
        url: 'https://staging.example.com/checkout?x=1',
        redirected: true,
        requestHeaders: { 'x-debug': '1' },
        delayMs: 0,
        response: null,
      });
      const mine = rules.filter((r: Json) => [first.id, second.id, off.id].includes(r.ruleId as string));
      expect(mine.map((r: Json) => [r.ruleId, r.reason])).toEqual([
        [first.id, 'acted'],
        [second.id, 'acted'],
      ]);
      expect(mine[0].pairs[0]).toMatchObject({
        index: 0,
        matched: true,
        captures: ['http', 'checkout?x=1'],
        checks: [{ check: 'source', passed: true, detail: expect.stringContaining('matches the wildcard') }],
      });

      const all = await trace({ request: { url: URL }, includeInactive: true });
      const inactive = all.body.data.rules.find((r: Json) => r.ruleId === off.id);
      expect(inactive).toMatchObject({ acted: false, reason: 'inactive' });
      expect(all.body.data.outcome.url).toBe('https://staging.example.com/checkout?x=1');
      for (const id of [first.id, second.id, off.id]) await t.call('DELETE', `/v1/rules/${id}`);
    });

    it('sees a change on the next trace', async () => {
      const rule = await createRule(t, redirect());
      expect((await trace({ request: { url: URL } })).body.data.outcome.redirected).toBe(true);
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Inactive' } });
      const after = await trace({ request: { url: URL } });
      expect(after.body.data.outcome).toMatchObject({ redirected: false, url: URL });
      await t.call('DELETE', `/v1/rules/${rule.id}`);
    });

    it('explains a rule whose group is inactive only with includeInactive, and it never acts', async () => {
      const group = await createGroup(t, { status: 'Inactive' });
      const rule = await createRule(t, redirect({ groupId: group.id }));
      const plain = await trace({ request: { url: URL } });
      expect(plain.body.data.rules.some((r: Json) => r.ruleId === rule.id)).toBe(false);
      const all = await trace({ request: { url: URL }, includeInactive: true });
      expect(all.body.data.rules.find((r: Json) => r.ruleId === rule.id)).toMatchObject({
        reason: 'group_inactive',
        acted: false,
      });
      expect(all.body.data.outcome.redirected).toBe(false);
      await t.call('DELETE', `/v1/groups/${group.id}`);
      await t.call('DELETE', `/v1/rules/${rule.id}`);
    });

    it('limits the rules to ruleIds; another workspace’s id is 403, an unknown one 404', async () => {
      const a = await createRule(t, redirect());
      const b = await createRule(t, headers());
      const reply = await trace({ request: { url: URL }, ruleIds: [b.id] });
      expect(reply.body.data.rules.map((r: Json) => r.ruleId)).toEqual([b.id]);
      expect(reply.body.data.outcome.redirected).toBe(false);

      const theirs = await createRule(t, redirect(), t.outsider.key);
      expectError(await trace({ request: { url: URL }, ruleIds: [a.id, theirs.id] }), 'UNAUTHORIZED_ACTION', [
        at('/ruleIds/1'),
      ]);
      expectError(await trace({ request: { url: URL }, ruleIds: ['Redirect_zzzzz'] }), 'RULE_NOT_FOUND', [
        at('/ruleIds/0'),
      ]);
      for (const id of [a.id, b.id]) await t.call('DELETE', `/v1/rules/${id}`);
      await t.call('DELETE', `/v1/rules/${theirs.id}`, { key: t.outsider.key });
    });

    it('never sees another workspace’s rules', async () => {
      const mine = await createRule(t, redirect());
      const reply = await trace({ request: { url: URL } }, t.outsider.key);
      expect(reply.status).toBe(200);
      expect(reply.body.data.rules).toEqual([]);
      expect(reply.body.data.outcome).toMatchObject({ redirected: false, url: URL });
      await t.call('DELETE', `/v1/rules/${mine.id}`);
    });

    it('evaluates unsaved rules instead, validated as POST /v1/rules validates them', async () => {
      const saved = await createRule(t, headers());
      const reply = await trace({ request: { url: URL }, rules: [redirect({ name: 'draft' })] });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.rules).toEqual([
        expect.objectContaining({ ruleId: 'inline:0', name: 'draft', acted: true, reason: 'acted' }),
      ]);
      expect(reply.body.data.outcome.requestHeaders).toEqual({});

      const bad = redirect({ name: 'draft' }) as Json;
      const badPairs = {
        ...bad,
        pairs: [{ ...(bad.pairs as Json[])[0], source: { key: 'Url', operator: 'Is', value: 'x' } }],
      };
      expectError(
        await trace({ request: { url: URL }, rules: [redirect({ name: 'ok' }), badPairs] }),
        'RULE_PAIRS_INVALID',
        [at('/rules/1/pairs/0/source/operator')],
      );
      expectError(await trace({ request: { url: URL }, rules: [redirect()] }), 'RULE_PAYLOAD_INVALID', [
        at('/rules/0/name'),
      ]);
      const theirGroup = await createGroup(t, {}, t.outsider.key);
      expectError(
        await trace({ request: { url: URL }, rules: [redirect({ name: 'x', groupId: theirGroup.id })] }),
        'UNAUTHORIZED_ACTION',
        [at('/rules/0/groupId')],
      );
      expectError(
        await trace({ request: { url: URL }, rules: [redirect({ name: 'x', groupId: 'Group_none0' })] }),
        'GROUP_NOT_FOUND',
        [at('/rules/0/groupId')],
      );
      await t.call('DELETE', `/v1/rules/${saved.id}`);
    });

    it.each([
      ['no request', {}, '/request'],
      ['a relative URL', { request: { url: '/checkout' } }, '/request/url'],
      ['a URL of another scheme', { request: { url: 'ftp://example.com/' } }, '/request/url'],
      [
        'an unknown resource type',
        { request: { url: URL, resourceType: 'document' } },
        '/request/resourceType',
      ],
      ['a method that is not one', { request: { url: URL, method: 'GE T' } }, '/request/method'],
      ['a page URL that is not one', { request: { url: URL, pageUrl: 'nope' } }, '/request/pageUrl'],
      ['an unknown field', { request: { url: URL }, extra: 1 }, '/extra'],
      ['both ruleIds and rules', { request: { url: URL }, ruleIds: [], rules: [{}] }, '/ruleIds'],
    ])('refuses %s with 400 Invalid trace request', async (_title, body, path) => {
      expectError(await trace(body), 'INVALID_TRACE_REQUEST', [at(path)]);
    });

    it('answers any body with a trace or a documented error, never a 500', async () => {
      const request = fc.record(
        {
          url: fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string()),
          method: fc.oneof(fc.constantFrom('GET', 'post', 'PATCH'), fc.string()),
          resourceType: fc.oneof(fc.constantFrom('main_frame', 'script'), fc.string()),
          pageUrl: fc.oneof(fc.webUrl(), fc.string()),
          headers: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()))),
          body: fc.string(),
        },
        { requiredKeys: [] },
      );
      const body = fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            request,
            includeInactive: fc.jsonValue(),
            ruleIds: fc.array(fc.string()),
            rules: fc.array(fc.jsonValue()),
          },
          { requiredKeys: ['request'] },
        ),
      );
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          const reply = await t.call('POST', '/v1/trace', {
            body: JSON.stringify(value),
            headers: { 'content-type': 'application/json' },
          });
          expect([200, 400, 404], JSON.stringify(reply.body)).toContain(reply.status);
          expect(reply.body.success).toBe(reply.status === 200);
        }),
        { numRuns: 200 },
      );
    });

    it('refuses a body that is not a JSON object', async () => {
      const reply = await t.call('POST', '/v1/trace', {
        body: '[1',
        headers: { 'content-type': 'application/json' },
      });
      expectError(reply, 'INVALID_TRACE_REQUEST', [at('')]);
    });

    it('says why a stored pattern RE2 cannot run never matches', async () => {
      const rule = await createRule(t, {
        ruleType: 'Cancel',
        status: 'Active',
        pairs: [{ source: { key: 'Url', operator: 'Matches', value: 'checkout' } }],
      });
      // Stored before patterns were checked with RE2 (or written by hand): a backreference.
      const pairs = JSON.stringify([
        { id: 'p1', source: { key: 'Url', operator: 'Matches', value: '/(c)\\1/' } },
      ]);
      await sql`update rules set pairs = ${pairs} where id = ${rule.id}`.execute(t.database.db);
      await t.call('PUT', `/v1/rules/${rule.id}`, { body: { description: 'moves the revision' } });
      const reply = await trace({ request: { url: URL } });
      const verdict = reply.body.data.rules.find((r: Json) => r.ruleId === rule.id);
      expect(verdict).toMatchObject({ reason: 'no_pair_matched', acted: false });
      expect(verdict.pairs[0].checks[0]).toEqual({
        check: 'source',
        passed: false,
        detail: expect.stringMatching(/never matches: backreference \\1 at 4 cannot be run in linear time/),
      });
      expect(reply.body.data.outcome.cancelled).toBe(false);
      await t.call('DELETE', `/v1/rules/${rule.id}`);
    });
  });
});
