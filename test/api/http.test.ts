// HTTP basics: media types, body limits, unknown routes and methods, trailing slashes, request ids,
// the error body, hostile bodies, and the operational endpoints (health, metrics, OpenAPI, docs).
import { describe, expect, it } from 'vitest';
import { type ErrorCode, errorTable } from '../../src/errors.js';
import {
  at,
  cancelPair,
  createGroup,
  createRule,
  expectError,
  getGroup,
  getRule,
  type Json,
  type Reply,
  rawJson,
  snapshot,
  uniqueName,
} from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

function allowed(reply: Reply): string[] {
  return String(reply.headers.allow ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter(Boolean)
    .sort();
}

forEachDatabase((db) => {
  const t = useTestApp({ db });

  describe('media types', () => {
    it.each([
      ['text/plain', '{"name":"x"}'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['application/xml', '<group><name>x</name></group>'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\nname\r\n--x--'],
    ])('POST with a %s body is 415 Unsupported media type', async (type, body) => {
      const before = await snapshot(t);
      const groups = await t.call('POST', '/v1/groups', { body, headers: { 'content-type': type } });
      expectError(groups, 'UNSUPPORTED_MEDIA_TYPE');
      const rules = await t.call('POST', '/v1/rules', { body, headers: { 'content-type': type } });
      expectError(rules, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('PUT with a text/plain body is 415 and changes nothing', async () => {
      const rule = await createRule(t);
      const group = await createGroup(t);
      const headers = { 'content-type': 'text/plain' };
      expectError(
        await t.call('PUT', `/v1/rules/${rule.id}`, { body: '{"status":"Active"}', headers }),
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectError(
        await t.call('PUT', `/v1/groups/${group.id}`, { body: '{"status":"Inactive"}', headers }),
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
      expect(await getGroup(t, group.id)).toStrictEqual(group);
    });

    it('DELETE with a text/plain body is 415 and deletes nothing (a body must be JSON on any method)', async () => {
      const rule = await createRule(t);
      const group = await createGroup(t);
      const headers = { 'content-type': 'text/plain' };
      expectError(
        await t.call('DELETE', `/v1/rules/${rule.id}`, { body: 'x', headers }),
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectError(
        await t.call('DELETE', `/v1/groups/${group.id}`, { body: 'x', headers }),
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
      expect(await getGroup(t, group.id)).toStrictEqual(group);
    });

    it('a body without any content type is 415', async () => {
      const reply = await t.app.inject({
        method: 'POST',
        url: '/v1/groups',
        headers: { 'x-api-key': t.owner.key },
        payload: Buffer.from('{"name":"x"}'),
      });
      expect(reply.statusCode).toBe(415);
      expect(reply.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it.each([
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON',
    ])('accepts the content type %s', async (type) => {
      const name = uniqueName('typed');
      const reply = await t.call('POST', '/v1/groups', {
        body: JSON.stringify({ name }),
        headers: { 'content-type': type },
      });
      expect(reply.status).toBe(201);
      expect(reply.body.data.name).toBe(name);
    });
  });

  describe('unknown routes and methods', () => {
    it.each([
      '/v1/nothing',
      '/nothing',
      '/v2/rules',
      '/v1/rules/Cancel_abcde/pairs',
      '/v1/groups/Group_abcde/rules',
      '/v1',
      '/rules',
      // `/` is the console; its assets are only those the build made.
      '/assets/missing.js',
    ])('GET %s is 404 Route not found, with or without a key', async (url) => {
      expectError(await t.call('GET', url), 'ROUTE_NOT_FOUND');
      expectError(await t.call('GET', url, { key: null }), 'ROUTE_NOT_FOUND');
    });

    it.each([
      ['PATCH', '/v1/rules', ['GET', 'POST']],
      ['DELETE', '/v1/rules', ['GET', 'POST']],
      ['PUT', '/v1/groups', ['GET', 'POST']],
      ['POST', '/v1/rules/Cancel_abcde', ['DELETE', 'GET', 'PUT']],
      ['PATCH', '/v1/groups/Group_abcde', ['DELETE', 'GET', 'PUT']],
      ['PATCH', '/v1/rules/', ['GET', 'POST']],
      ['POST', '/v1/groups/Group_abcde/', ['DELETE', 'GET', 'PUT']],
      // A literal path beside /v1/rules/:ruleId is its own: not a rule id, whatever the method.
      ['PUT', '/v1/rules/deleted', ['GET']],
      ['DELETE', '/v1/rules/deleted/', ['GET']],
      ['PATCH', '/v1/rules/deleted', ['GET']],
      ['POST', '/v1/rules/deleted', ['GET']],
      ['POST', '/healthz', ['GET']],
      ['POST', '/', ['GET']],
    ])('%s %s is 405 with an Allow header', async (method, url, methods) => {
      const reply = await t.call(method as 'GET', url, { body: method === 'DELETE' ? undefined : {} });
      expectError(reply, 'METHOD_NOT_ALLOWED');
      const allow = allowed(reply);
      for (const m of methods) expect(allow).toContain(m);
      expect(allow).not.toContain(method);
    });
  });

  describe('success responses', () => {
    it('are JSON objects with success true and an X-Request-Id, in the documented envelopes', async () => {
      const group = await createGroup(t);
      const created = await t.call('POST', '/v1/rules', {
        body: { name: uniqueName('envelope'), ruleType: 'Cancel', pairs: [cancelPair()], groupId: '' },
      });
      const rule = created.body.data;
      expect(rule.groupId).toBe('');
      const replies: [Reply, string[]][] = [
        [created, ['data', 'success', 'warnings']],
        [await t.call('GET', `/v1/rules/${rule.id}`), ['data', 'success']],
        [
          await t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Active' } }),
          ['data', 'success', 'warnings'],
        ],
        [await t.call('GET', '/v1/rules'), ['data', 'nextOffset', 'success', 'total']],
        [await t.call('GET', '/v1/groups'), ['data', 'nextOffset', 'success', 'total']],
        [await t.call('GET', `/v1/groups/${group.id}`), ['data', 'success']],
        [await t.call('DELETE', `/v1/rules/${rule.id}`), ['message', 'success']],
        [await t.call('DELETE', `/v1/groups/${group.id}`), ['message', 'success']],
      ];
      for (const [reply, keys] of replies) {
        expect(reply.status).toBeLessThan(300);
        expect(String(reply.headers['content-type'])).toMatch(/^application\/json/);
        expect(reply.headers['x-request-id']).toEqual(expect.stringMatching(/\S/));
        expect(reply.body.success).toBe(true);
        expect(Object.keys(reply.body).sort()).toEqual(keys);
      }
    });
  });

  describe('trailing slashes are not significant', () => {
    it('on lists, reads, creates, updates and deletes', async () => {
      const rule = await createRule(t);
      const plain = await t.call('GET', '/v1/rules');
      const slashed = await t.call('GET', '/v1/rules/');
      expect(slashed.status).toBe(200);
      expect(slashed.body).toStrictEqual(plain.body);
      expect((await t.call('GET', '/v1/groups/')).body).toStrictEqual(
        (await t.call('GET', '/v1/groups')).body,
      );

      expect((await t.call('GET', `/v1/rules/${rule.id}/`)).body).toStrictEqual({
        success: true,
        data: rule,
      });

      const created = await t.call('POST', '/v1/groups/', { body: { name: uniqueName('slash') } });
      expect(created.status).toBe(201);
      const group = created.body.data;
      expect(await getGroup(t, group.id)).toStrictEqual(group);
      expect((await t.call('GET', `/v1/groups/${group.id}/`)).body.data).toStrictEqual(group);

      const updated = await t.call('PUT', `/v1/rules/${rule.id}/`, { body: { status: 'Active' } });
      expect(updated.status).toBe(200);
      expect((await getRule(t, rule.id)).status).toBe('Active');

      const deleted = await t.call('DELETE', `/v1/groups/${group.id}/`);
      expect(deleted.body).toStrictEqual({
        success: true,
        message: 'Group deleted successfully; 0 rules ungrouped',
      });
      expectError(await t.call('GET', `/v1/rules/Cancel_zzzzz/`), 'RULE_NOT_FOUND');
      expect((await t.call('GET', '/healthz/')).status).toBe(200);
    });
  });

  describe('X-Request-Id', () => {
    it.each([
      'abc-123',
      'req.2026-11-22T10:00:00Z_01',
      'a'.repeat(128),
      '0f8e9c2e-7e0e-4f76-9a10-4a4a1f0d2b11',
    ])('echoes the sane id %s on success and in error bodies', async (id) => {
      const ok = await t.call('GET', '/v1/rules', { headers: { 'x-request-id': id } });
      expect(ok.status).toBe(200);
      expect(ok.headers['x-request-id']).toBe(id);
      const failed = await t.call('GET', '/v1/rules/Cancel_zzzzz', { headers: { 'x-request-id': id } });
      expect(failed.headers['x-request-id']).toBe(id);
      expect(failed.body.requestId).toBe(id);
      const unauthenticated = await t.call('GET', '/v1/rules', {
        key: null,
        headers: { 'x-request-id': id },
      });
      expect(unauthenticated.body.requestId).toBe(id);
    });

    it.each([
      ['spaces', 'a b c'],
      ['129 characters', 'a'.repeat(129)],
      ['quotes and angle brackets', '"><script>'],
      ['a JSON fragment', '{"x":1}'],
      ['an empty value', ''],
    ])('generates an id instead of one with %s', async (_title, id) => {
      const ok = await t.call('GET', '/v1/groups', { headers: { 'x-request-id': id } });
      const generated = ok.headers['x-request-id'];
      expect(typeof generated).toBe('string');
      expect(generated).not.toBe(id);
      expect(String(generated)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      const failed = await t.call('GET', '/v1/groups/bad', { headers: { 'x-request-id': id } });
      expect(failed.body.requestId).toBe(failed.headers['x-request-id']);
      expect(failed.body.requestId).not.toBe(id);
    });

    it('generates a different id for every request without one, on every kind of response', async () => {
      const replies = [
        await t.call('GET', '/v1/rules'),
        await t.call('GET', '/v1/rules'),
        await t.call('GET', '/v1/nothing'),
        await t.call('GET', '/v1/rules', { key: null }),
        await t.call('POST', '/v1/groups', { body: { name: uniqueName('rid') } }),
        await t.call('GET', '/healthz'),
      ];
      const ids = replies.map((reply) => reply.headers['x-request-id']);
      for (const id of ids) expect(id).toEqual(expect.stringMatching(/\S/));
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('every error body', () => {
    it('has exactly success, message, code and requestId, plus details on validation errors', async () => {
      const rule = await createRule(t);
      const group = await createGroup(t);
      const cases: [Promise<Reply>, boolean][] = [
        [t.call('GET', '/v1/rules', { key: null }), false],
        [t.call('GET', '/v1/rules', { key: 'rk_nope' }), false],
        [t.call('GET', `/v1/rules/${rule.id}`, { key: t.outsider.key }), false],
        [t.call('GET', '/v1/rules/Cancel_zzzzz'), false],
        [t.call('GET', '/v1/groups/Group_zzzzz'), false],
        [t.call('GET', '/v1/nowhere'), false],
        [t.call('PATCH', '/v1/rules'), false],
        [t.call('POST', '/v1/groups', { body: 'x', headers: { 'content-type': 'text/plain' } }), false],
        [t.call('POST', '/v1/rules', { body: { name: '' } }), true],
        [t.call('POST', '/v1/rules', { body: { name: 'x', ruleType: 'Cancel', pairs: [] } }), true],
        [t.call('POST', '/v1/rules', rawJson('{')), true],
        [t.call('PUT', `/v1/rules/${rule.id}`, { body: { ruleType: 'Delay' } }), true],
        [t.call('POST', '/v1/groups', { body: { colour: 1 } }), true],
        [t.call('POST', '/v1/groups', { body: {} }), true],
        [t.call('PUT', `/v1/groups/${group.id}`, { body: { name: ' ' } }), true],
        [t.call('GET', '/v1/rules?pageSize=0'), true],
      ];
      for (const [pending, validation] of cases) {
        const reply = await pending;
        const keys = Object.keys(reply.body ?? {}).sort();
        const expected = validation
          ? ['code', 'details', 'message', 'requestId', 'success']
          : ['code', 'message', 'requestId', 'success'];
        expect({ status: reply.status, keys }).toEqual({ status: reply.status, keys: expected });
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.body.success).toBe(false);
        expect(reply.body.requestId).toBe(reply.headers['x-request-id']);
        expect(reply.body.message).toEqual(expect.stringMatching(/\S/));
        expect(reply.body.code).toMatch(/^[A-Z_]+$/);
        if (validation) {
          expect(reply.body.details.length).toBeGreaterThan(0);
          for (const detail of reply.body.details) {
            expect(Object.keys(detail).sort()).toEqual(['message', 'path']);
            expect(detail.path === '' || detail.path.startsWith('/')).toBe(true);
          }
        }
      }
    });

    it.each([
      ['a path with a broken percent-encoding', '/v1/rules/%zz'],
      ['a path parameter over the router limit', `/v1/rules/${'x'.repeat(3000)}`],
      ['an unknown path with a broken percent-encoding', '/v1/nothing/%zz'],
    ])('for %s is the documented body too', async (_title, url) => {
      const reply = await t.call('GET', url);
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
      expect(Object.keys(reply.body).sort()).toEqual(['code', 'message', 'requestId', 'success']);
      expect(reply.body.success).toBe(false);
      expect(reply.body.requestId).toBe(reply.headers['x-request-id']);
    });
  });

  describe('hostile bodies get a 4xx, never a 500', () => {
    const depth = 10_000;
    const deepArray = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deepObject = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    /** Refused at the first value past 64 levels: its pointer has a token for each level above it. */
    const past64 = (prefix: string, token: string) =>
      `${prefix}${token.repeat(64 - prefix.split('/').length + 1)}`;

    it.each([
      ['a deeply nested array as the body', deepArray, past64('', '/0')],
      ['a deeply nested object as the body', deepObject, past64('', '/a')],
    ])('POST /v1/groups with %s', async (_title, text, path) => {
      const before = await snapshot(t);
      expectError(await t.call('POST', '/v1/groups', rawJson(text)), 'GROUP_PAYLOAD_INVALID', [at(path)]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['a deeply nested array as the body', deepArray, 'RULE_PAYLOAD_INVALID', [past64('', '/0')]],
      ['a deeply nested object as the body', deepObject, 'RULE_PAYLOAD_INVALID', [past64('', '/a')]],
      [
        'a deeply nested object as the name',
        `{"name":${deepObject},"ruleType":"Cancel","pairs":[${JSON.stringify(cancelPair())}]}`,
        'RULE_PAYLOAD_INVALID',
        [past64('/name', '/a')],
      ],
      [
        'a deeply nested object as a source',
        `{"name":"deep","ruleType":"Cancel","pairs":[{"source":${deepObject}}]}`,
        'RULE_PAIRS_INVALID',
        [past64('/pairs/0/source', '/a')],
      ],
      [
        'deeply nested arrays as filters',
        `{"name":"deep","ruleType":"Cancel","pairs":[{"source":{"key":"Url","operator":"Equals","value":"x","filters":${deepArray}}}]}`,
        'RULE_PAIRS_INVALID',
        [past64('/pairs/0/source/filters', '/0')],
      ],
      [
        'deeply nested arrays as pairs',
        `{"name":"deep","ruleType":"Cancel","pairs":${deepArray}}`,
        'RULE_PAIRS_INVALID',
        [past64('/pairs', '/0')],
      ],
    ])('POST /v1/rules with %s', async (_title, text, code, paths) => {
      const before = await snapshot(t);
      const reply = await t.call('POST', '/v1/rules', rawJson(text));
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe(code);
      expect((reply.body.details as Json[]).map((d) => d.path).sort()).toEqual(paths);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('a deeply nested body on PUT changes nothing', async () => {
      const rule = await createRule(t);
      const reply = await t.call(
        'PUT',
        `/v1/rules/${rule.id}`,
        rawJson(`{"pairs":[{"source":${deepObject}}]}`),
      );
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('RULE_PAIRS_INVALID');
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it.each([
      ['a huge name', { name: 'n'.repeat(500_000) }, 'RULE_PAYLOAD_INVALID', '/name'],
      ['a huge description', { description: 'd'.repeat(900_000) }, 'RULE_PAYLOAD_INVALID', '/description'],
      ['a huge groupId', { groupId: 'g'.repeat(500_000) }, 'RULE_PAYLOAD_INVALID', '/groupId'],
      [
        'a huge source value',
        { pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'v'.repeat(500_000) } }] },
        'RULE_PAIRS_INVALID',
        '/pairs/0/source/value',
      ],
      [
        'a huge pair id',
        { pairs: [{ ...cancelPair(), id: 'i'.repeat(500_000) }] },
        'RULE_PAIRS_INVALID',
        '/pairs/0/id',
      ],
    ])('POST /v1/rules with %s is a 400 naming it', async (_title, fields, code, path) => {
      const before = await snapshot(t);
      const body = { name: 'huge', ruleType: 'Cancel', pairs: [cancelPair()], ...fields };
      const reply = await t.call('POST', '/v1/rules', { body });
      expectError(reply, code as 'RULE_PAYLOAD_INVALID', [at(path)]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('a huge group name is a 400 naming it', async () => {
      const reply = await t.call('POST', '/v1/groups', { body: { name: 'n'.repeat(900_000) } });
      expectError(reply, 'GROUP_PAYLOAD_INVALID', [at('/name')]);
    });

    it('a field name with a prototype key is refused, and pollutes nothing', async () => {
      for (const text of [
        '{"name":"x","__proto__":{"polluted":true}}',
        '{"name":"x","constructor":{"prototype":{"polluted":true}}}',
      ]) {
        const reply = await t.call('POST', '/v1/groups', rawJson(text));
        expect(reply.status).toBe(400);
        expect(reply.body.code).toBe('GROUP_PAYLOAD_INVALID');
      }
      expect(({} as Json).polluted).toBeUndefined();
    });

    it('the service still answers after all of that', async () => {
      expect((await t.call('GET', '/v1/rules?pageSize=1')).status).toBe(200);
    });
  });

  describe('body size limit', () => {
    const small = useTestApp({ db, env: { MAX_BODY_BYTES: '2048' } });

    it('a body over MAX_BODY_BYTES is 413 Payload too large and stores nothing', async () => {
      const before = await snapshot(small);
      const group = { name: uniqueName('big'), padding: 'x'.repeat(3000) };
      expectError(await small.call('POST', '/v1/groups', { body: group }), 'PAYLOAD_TOO_LARGE');
      const rule = {
        name: uniqueName('big'),
        ruleType: 'Cancel',
        pairs: [cancelPair()],
        description: 'd'.repeat(2100),
      };
      expectError(await small.call('POST', '/v1/rules', { body: rule }), 'PAYLOAD_TOO_LARGE');
      expect(await snapshot(small)).toStrictEqual(before);
    });

    it('a body over the limit on PUT is 413 and changes nothing', async () => {
      const rule = await createRule(small);
      expectError(
        await small.call('PUT', `/v1/rules/${rule.id}`, { body: { description: 'd'.repeat(2100) } }),
        'PAYLOAD_TOO_LARGE',
      );
      expect(await getRule(small, rule.id)).toStrictEqual(rule);
    });

    it('a body over the limit on DELETE is 413 and deletes nothing', async () => {
      const rule = await createRule(small);
      const body = { padding: 'x'.repeat(3000) };
      expectError(await small.call('DELETE', `/v1/rules/${rule.id}`, { body }), 'PAYLOAD_TOO_LARGE');
      expect(await getRule(small, rule.id)).toStrictEqual(rule);
    });

    it('a body just under the limit is accepted', async () => {
      const base = { name: uniqueName('fits'), ruleType: 'Cancel', pairs: [cancelPair()], description: '' };
      const room = 2048 - Buffer.byteLength(JSON.stringify(base));
      const body = { ...base, description: 'd'.repeat(room) };
      expect(Buffer.byteLength(JSON.stringify(body))).toBe(2048);
      const reply = await small.call('POST', '/v1/rules', { body });
      expect(reply.status).toBe(201);
      expect(reply.body.data.description).toBe(body.description);
    });

    it('the default limit is 1 MiB', async () => {
      const room = 1_048_576 + 10;
      const reply = await t.call('POST', '/v1/groups', { body: { name: 'x', padding: 'p'.repeat(room) } });
      expectError(reply, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('rate limits', () => {
    const limited = useTestApp({ db, env: { RATE_LIMIT_PER_MINUTE: '3' } });

    it('over RATE_LIMIT_PER_MINUTE a key gets 429 Too many requests with Retry-After; other keys do not', async () => {
      for (let i = 0; i < 3; i++) expect((await limited.call('GET', '/v1/rules')).status).toBe(200);
      const reply = await limited.call('GET', '/v1/rules');
      expectError(reply, 'RATE_LIMITED');
      expect(Number(reply.headers['retry-after'])).toBeGreaterThan(0);
      expect((await limited.call('GET', '/v1/rules', { key: limited.outsider.key })).status).toBe(200);
      expect((await limited.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    });
  });

  describe('operational endpoints', () => {
    it('/healthz answers 200', async () => {
      const reply = await t.call('GET', '/healthz', { key: null });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ success: true });
      expect(reply.headers['x-request-id']).toEqual(expect.stringMatching(/\S/));
    });

    it('/readyz answers 200 while the database is reachable', async () => {
      const reply = await t.call('GET', '/readyz', { key: null });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ success: true });
    });

    it('/metrics counts requests by route pattern, never by raw URL', async () => {
      const rule = await createRule(t);
      await t.call('GET', `/v1/rules/${rule.id}`);
      await t.call('GET', '/v1/rules/Cancel_zzzzz');
      const reply = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(reply.statusCode).toBe(200);
      expect(String(reply.headers['content-type'])).toMatch(/^text\/plain/);
      const text = reply.body;
      expect(text).toContain('# TYPE http_request_duration_seconds histogram');
      const lines = text.split('\n').filter((line) => line.startsWith('http_request_duration_seconds_count'));
      const line = (route: string, status: number) =>
        lines.find(
          (l) =>
            l.includes(`route="${route}"`) && l.includes('method="GET"') && l.includes(`status="${status}"`),
        );
      expect(line('/v1/rules/:ruleId', 200)).toBeDefined();
      expect(line('/v1/rules/:ruleId', 404)).toBeDefined();
      expect(text).not.toContain(String(rule.id));
      expect(text).not.toContain('Cancel_zzzzz');
    });

    it('/v1/openapi.json lists every path and method with its error responses', async () => {
      const reply = await t.call('GET', '/v1/openapi.json', { key: null });
      expect(reply.status).toBe(200);
      const doc = reply.body;
      expect(String(doc.openapi)).toMatch(/^3\./);
      const expected: Record<string, Record<string, string[]>> = {
        '/v1/rules': {
          get: ['200', '304', '400', '401'],
          post: ['201', '400', '401', '403', '404', '409', '413', '415'],
        },
        '/v1/rules/{ruleId}': {
          get: ['200', '304', '401', '403', '404'],
          put: ['200', '400', '401', '403', '404', '412', '413', '415'],
          delete: ['200', '401', '403', '404', '412', '413', '415'],
        },
        '/v1/groups': {
          get: ['200', '304', '400', '401'],
          post: ['201', '400', '401', '403', '409', '413', '415'],
        },
        '/v1/groups/{id}': {
          get: ['200', '304', '400', '401', '403', '404'],
          put: ['200', '400', '401', '403', '404', '412', '413', '415'],
          delete: ['200', '400', '401', '403', '404', '412', '413', '415'],
        },
        '/v1/rules/{ruleId}/versions': { get: ['200', '304', '401', '403', '404'] },
        '/v1/rules/{ruleId}/hits': { get: ['200', '401', '403', '404'] },
        '/v1/rules/deleted': { get: ['200', '304', '400', '401'] },
        '/v1/rules/{ruleId}/restore': { post: ['200', '400', '401', '403', '404', '409', '413', '415'] },
        '/v1/groups/{id}/versions': { get: ['200', '304', '400', '401', '403', '404'] },
        '/v1/groups/{id}/restore': { post: ['200', '400', '401', '403', '404', '409', '413', '415'] },
        '/v1/whoami': { get: ['200', '401'] },
      };
      const resolve = (schema: Json): Json => {
        const ref = schema.$ref as string | undefined;
        if (!ref) return schema;
        const name = ref.split('/').pop() as string;
        return doc.components.schemas[name];
      };
      for (const [path, methods] of Object.entries(expected)) {
        expect(Object.keys(doc.paths), path).toContain(path);
        for (const [method, statuses] of Object.entries(methods)) {
          const operation = doc.paths[path][method];
          expect(operation, `${method} ${path}`).toBeDefined();
          const responses = Object.keys(operation.responses);
          for (const status of statuses) expect(responses, `${method} ${path}`).toContain(status);
          for (const status of responses.filter((s) => s.startsWith('4') || s.startsWith('5'))) {
            const response = operation.responses[status];
            const where = `${method} ${path} ${status}`;
            expect(response.description, where).not.toBe('Default Response');
            // The ErrorBody, with code and message narrowed to the codes of this status the operation answers.
            const media = response.content['application/json'];
            const [base, narrowed] = media.schema.allOf as Json[];
            expect(Object.keys(resolve(base as Json).properties as Json).sort(), where).toEqual([
              'code',
              'details',
              'message',
              'requestId',
              'success',
            ]);
            const codes = (narrowed as { properties: { code: { enum: ErrorCode[] } } }).properties.code.enum;
            expect(codes.length, where).toBeGreaterThan(0);
            for (const code of codes)
              expect(errorTable[code].status, `${where} ${code}`).toBe(Number(status));
            // An example per code, named after it, with that code's message; some codes have a second
            // (an expired key's 401, a read key's 403), whose name says what it shows.
            const examples = Object.entries(media.examples as Record<string, { value: Json }>);
            for (const code of codes) expect(Object.keys(media.examples), where).toContain(code);
            for (const [name, { value }] of examples) {
              expect(codes, `${where} ${name}`).toContain(value.code);
              expect(value, `${where} ${name}`).toMatchObject({
                success: false,
                message: errorTable[value.code as ErrorCode].message,
              });
            }
          }
          // The least scope a key needs: reading is `read`, anything else `write`; or a session.
          const scope = method === 'get' ? 'read' : 'write';
          expect(operation.security, `${method} ${path}`).toEqual([{ apiKey: [scope] }, { session: [] }]);
          if (scope === 'write') {
            expect(
              operation.responses['403'].content['application/json'].examples.KEY_SCOPE.value.details,
            ).toEqual([{ path: '', message: "this key's scope is read: it cannot change rules or groups" }]);
          }
        }
      }
      const pathsListed = Object.keys(doc.paths).filter(
        (p) => p.startsWith('/v1/rules') || p.startsWith('/v1/groups') || p === '/v1/whoami',
      );
      expect(pathsListed.sort()).toEqual(Object.keys(expected).sort());
    });

    it('/docs serves the interactive documentation as HTML', async () => {
      let reply = await t.app.inject({ method: 'GET', url: '/docs' });
      if (reply.statusCode >= 300 && reply.statusCode < 400) {
        reply = await t.app.inject({ method: 'GET', url: String(reply.headers.location) });
      }
      expect(reply.statusCode).toBe(200);
      expect(String(reply.headers['content-type'])).toMatch(/^text\/html/);
      expect(reply.body).toMatch(/<html/i);
    });
  });
});
