// Variables in rules (decisions §20) through the evaluations: a trace resolves `{{NAME}}` in its
// environment (the body's, else the key's, else default) and says which values it used, a secret by
// name only; browser rules and the lint are per environment with an ETag per environment, and follow a
// variable's change; the lint's undefined_variable and invalid_in_environment; an export to Requestly
// resolves in one environment and says which; an import keeps `{{…}}` as text. A secret's value is in
// no lint finding, no export, no error and no log line.
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRule as create } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

type App = Parameters<typeof create>[0];
const createRule = async (t: App, body: Record<string, unknown>) => (await create(t, body)) as { id: string };

/** The secret value: it may be in a trace's outcome and in browser rules (they act with it), nowhere else. */
const SECRET = 'hunter2-s3cr3t-token';

forEachDatabase((db) => {
  let log = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      log += chunk.toString();
      done();
    },
  });
  const t = useTestApp({ db, logger: { level: 'trace', stream } });
  let stagingKey: string;

  const variable = async (name: string, values: Record<string, string>, secret = false) => {
    const reply = await t.call('POST', '/v1/variables', { body: { name, secret, values } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  };

  beforeAll(async () => {
    expect((await t.call('POST', '/v1/environments', { body: { name: 'staging' } })).status).toBe(201);
    await variable('HOST', { default: 'dev.example.com', staging: 'staging.example.com' });
    await variable('TOKEN', { default: 'dev-token', staging: SECRET }, true);
    await variable('API', { default: 'api.dev.example.com' });
    stagingKey = (
      await t.keysService.issue('acme', 'sam', {
        scope: 'write',
        expiresAt: null,
        name: 'staging runtime',
        environment: 'staging',
      })
    ).key;
    await createRule(t, {
      name: 'to the environment',
      ruleType: 'Redirect',
      status: 'Active',
      pairs: [
        {
          source: { key: 'Url', operator: 'Contains', value: 'shop.example.com/checkout' },
          destinationType: 'url',
          destination: 'https://{{HOST}}/checkout',
        },
      ],
    });
    await createRule(t, {
      name: 'authorised',
      ruleType: 'Headers',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: '{{HOST}}' },
          modifications: [{ Request: [{ header: 'Authorization', type: 'Add', value: 'Bearer {{TOKEN}}' }] }],
        },
      ],
    });
  });

  describe('POST /v1/trace with an environment', () => {
    const trace = (body: Record<string, unknown>, key?: string) =>
      t.call('POST', '/v1/trace', { body, ...(key ? { key } : {}) });

    it('resolves in default, else the body names one; the answer says which values it used', async () => {
      const plain = await trace({ request: { url: 'https://shop.example.com/checkout' } });
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      expect(plain.body.data.environment).toBe('default');
      expect(plain.body.data.outcome.url).toBe('https://dev.example.com/checkout');
      // Every rule listed is counted: the Headers rule took the secret TOKEN (it did not match).
      expect(plain.body.data.variables).toEqual([
        { name: 'HOST', environment: 'default', secret: false, value: 'dev.example.com' },
        { name: 'TOKEN', environment: 'default', secret: true },
      ]);
      // The redirected request meets the Headers rule: the outcome acts with the secret, the list names it.
      expect(plain.body.data.outcome.requestHeaders.authorization).toBe('Bearer dev-token');
      expect(JSON.stringify(plain.body.data.variables)).not.toContain('dev-token');
      const rule = plain.body.data.rules.find((r: { name: string }) => r.name === 'to the environment');
      expect(rule.variables).toEqual(['HOST']);

      const staged = await trace({
        request: { url: 'https://staging.example.com/x' },
        environment: 'staging',
      });
      expect(staged.status, JSON.stringify(staged.body)).toBe(200);
      expect(staged.body.data.environment).toBe('staging');
      // The outcome acts with the secret; the list of variables names it without its value.
      expect(staged.body.data.outcome.requestHeaders.authorization).toBe(`Bearer ${SECRET}`);
      expect(staged.body.data.variables).toEqual([
        { name: 'HOST', environment: 'staging', secret: false, value: 'staging.example.com' },
        { name: 'TOKEN', environment: 'staging', secret: true },
      ]);
      expect(JSON.stringify(staged.body.data.variables)).not.toContain(SECRET);
    });

    it('a key bound to an environment traces there unless the body names another', async () => {
      const bound = await trace({ request: { url: 'https://shop.example.com/checkout' } }, stagingKey);
      expect(bound.body.data.environment).toBe('staging');
      expect(bound.body.data.outcome.url).toBe('https://staging.example.com/checkout');
      const named = await trace(
        { request: { url: 'https://shop.example.com/checkout' }, environment: 'default' },
        stagingKey,
      );
      expect(named.body.data.outcome.url).toBe('https://dev.example.com/checkout');
    });

    it('unsaved rules are resolved too, and one its variables make invalid says why', async () => {
      const reply = await trace({
        request: { url: 'https://dev.example.com/' },
        rules: [
          {
            name: 'bad header',
            ruleType: 'Headers',
            status: 'Active',
            pairs: [
              {
                source: { key: 'host', operator: 'Equals', value: '{{HOST}}' },
                modifications: [{ Request: [{ header: 'X-{{NOPE}}', type: 'Add', value: '1' }] }],
              },
            ],
          },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [verdict] = reply.body.data.rules;
      expect(verdict.reason).toBe('invalid_in_environment');
      expect(verdict.acted).toBe(false);
      expect(verdict.problems[0].path).toBe('/pairs/0/modifications/0/Request/0/header');
    });

    it("a check's detail shows a secret as its reference; the outcome acts with it", async () => {
      const reply = await trace({
        request: { url: `https://x.example.com/?t=${SECRET}` },
        environment: 'staging',
        rules: [
          {
            name: 'secret source',
            ruleType: 'Cancel',
            status: 'Active',
            pairs: [{ source: { key: 'Url', operator: 'Contains', value: '{{TOKEN}}' } }],
          },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.outcome.cancelled).toBe(true);
      expect(JSON.stringify(reply.body.data.rules)).not.toContain(SECRET);
      expect(reply.body.data.rules[0].pairs[0].checks[0].detail).toContain('{{TOKEN}}');
    });

    it('an environment the workspace lacks, or a malformed name, is refused at /environment', async () => {
      for (const environment of ['prod', 'no such']) {
        const reply = await trace({ request: { url: 'https://x.example.com/' }, environment });
        expect(reply.status).toBe(400);
        expect(reply.body.code).toBe('INVALID_TRACE_REQUEST');
        expect(reply.body.details[0].path).toBe('/environment');
      }
      // Another workspace's environment is no more known than a missing one.
      await t.call('POST', '/v1/environments', { key: t.outsider.key, body: { name: 'theirs' } });
      const theirs = await trace({ request: { url: 'https://x.example.com/' }, environment: 'theirs' });
      expect(theirs.body.code).toBe('INVALID_TRACE_REQUEST');
    });
  });

  describe('GET /v1/browser-rules per environment', () => {
    const redirectUrl = (body: { data: { rules: { action: { redirect?: { url?: string } } }[] } }) =>
      body.data.rules.map((rule) => rule.action.redirect?.url).find(Boolean);

    it('compiles each environment apart, with an ETag of its own that follows a variable change', async () => {
      const dev = await t.call('GET', '/v1/browser-rules');
      const staging = await t.call('GET', '/v1/browser-rules?environment=staging');
      expect(dev.status).toBe(200);
      expect(staging.status).toBe(200);
      expect(redirectUrl(dev.body)).toBe('https://dev.example.com/checkout');
      expect(redirectUrl(staging.body)).toBe('https://staging.example.com/checkout');
      expect(staging.headers.etag).not.toBe(dev.headers.etag);
      // The key bound to staging gets staging's rules and ETag without naming it.
      const bound = await t.call('GET', '/v1/browser-rules', { key: stagingKey });
      expect(redirectUrl(bound.body)).toBe('https://staging.example.com/checkout');
      const again = await t.call('GET', '/v1/browser-rules?environment=staging', {
        headers: { 'if-none-match': staging.headers.etag as string },
      });
      expect(again.status).toBe(304);
      const other = await t.call('GET', '/v1/browser-rules', {
        headers: { 'if-none-match': staging.headers.etag as string },
      });
      expect(other.status).toBe(200);

      const changed = await t.call('PUT', '/v1/variables/HOST', {
        body: { values: { default: 'dev2.example.com', staging: 'staging.example.com' } },
      });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      const after = await t.call('GET', '/v1/browser-rules', {
        headers: { 'if-none-match': dev.headers.etag as string },
      });
      expect(after.status).toBe(200);
      expect(redirectUrl(after.body)).toBe('https://dev2.example.com/checkout');
      const put = await t.call('PUT', '/v1/variables/HOST', {
        body: { values: { default: 'dev.example.com', staging: 'staging.example.com' } },
      });
      expect(put.status).toBe(200);
    });

    it('an unknown environment is 404, a malformed one 400', async () => {
      const refused = (reply: Awaited<ReturnType<typeof t.call>>, code: string) => {
        expect(reply.body.code, JSON.stringify(reply.body)).toBe(code);
        expect(reply.status).toBe(code === 'INVALID_QUERY' ? 400 : 404);
      };
      refused(await t.call('GET', '/v1/browser-rules?environment=prod'), 'ENVIRONMENT_NOT_FOUND');
      refused(await t.call('GET', '/v1/browser-rules?environment=no%20such'), 'INVALID_QUERY');
      refused(await t.call('GET', '/v1/browser-rules?other=1'), 'INVALID_QUERY');
      refused(
        await t.call('GET', '/v1/browser-rules?environment=staging', { key: t.outsider.key }),
        'ENVIRONMENT_NOT_FOUND',
      );
    });
  });

  describe('GET /v1/lint per environment', () => {
    it('finds undefined_variable and invalid_in_environment, and no secret in any finding', async () => {
      const api = await createRule(t, {
        name: 'api',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
            destinationType: 'url',
            destination: 'https://{{API}}/v1',
          },
        ],
      });
      // A loop whose URLs hold the secret: the finding shows the URLs, with its reference instead.
      const loop = await createRule(t, {
        name: 'loop',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'Url', operator: 'Wildcard_Matches', value: 'https://loop.example.com/*' },
            destinationType: 'url',
            destination: 'https://loop.example.com/{{TOKEN}}/$1',
          },
        ],
      });
      const header = await createRule(t, {
        name: 'header from a variable',
        ruleType: 'Headers',
        status: 'Active',
        pairs: [
          {
            source: { key: 'host', operator: 'Equals', value: 'h.example.com' },
            modifications: [{ Request: [{ header: 'X-{{HOST}}', type: 'Add', value: '1' }] }],
          },
        ],
      });
      const staging = await t.call('GET', '/v1/lint?environment=staging');
      expect(staging.status, JSON.stringify(staging.body)).toBe(200);
      const codes = (body: { data: { findings: { code: string; ruleIds: string[] }[] } }, id: string) =>
        body.data.findings.filter((f) => f.ruleIds[0] === id).map((f) => f.code);
      expect(codes(staging.body, api.id)).toContain('undefined_variable');
      expect(codes(staging.body, loop.id)).toContain('redirect_loop');
      expect(JSON.stringify(staging.body)).not.toContain(SECRET);
      expect(JSON.stringify(staging.body)).toContain('{{TOKEN}}');
      // `X-staging.example.com` is a header name; so is `X-dev.example.com`: valid in both.
      expect(codes(staging.body, header.id)).not.toContain('invalid_in_environment');
      const message = staging.body.data.findings.find(
        (f: { code: string; ruleIds: string[] }) =>
          f.code === 'undefined_variable' && f.ruleIds[0] === api.id,
      ).message;
      expect(message).toContain('staging');

      const dev = await t.call('GET', '/v1/lint');
      expect(dev.headers.etag).not.toBe(staging.headers.etag);
      expect(codes(dev.body, api.id)).toContain('undefined_variable');
      const bound = await t.call('GET', '/v1/lint', {
        key: stagingKey,
        headers: { 'if-none-match': dev.headers.etag as string },
      });
      expect(bound.status).toBe(200);
      expect(
        (await t.call('GET', '/v1/lint', { headers: { 'if-none-match': dev.headers.etag as string } }))
          .status,
      ).toBe(304);

      // A value that breaks the header name makes the rule invalid there, and the lint says so.
      await t.call('PUT', '/v1/variables/HOST', {
        body: { values: { default: 'dev.example.com', staging: 'staging example' } },
      });
      const broken = await t.call('GET', '/v1/lint?environment=staging');
      expect(codes(broken.body, header.id)).toContain('invalid_in_environment');
      expect(codes((await t.call('GET', '/v1/lint')).body, header.id)).not.toContain(
        'invalid_in_environment',
      );
      await t.call('PUT', '/v1/variables/HOST', {
        body: { values: { default: 'dev.example.com', staging: 'staging.example.com' } },
      });
      for (const id of [api.id, loop.id, header.id])
        expect((await t.call('DELETE', `/v1/rules/${id}`)).status).toBe(200);
      expect((await t.call('GET', '/v1/lint?environment=prod')).body.code).toBe('ENVIRONMENT_NOT_FOUND');
    });
  });

  describe('export and import', () => {
    it('an export to Requestly resolves in one environment and says which; secrets stay references', async () => {
      const requestly = await t.call('GET', '/v1/export?format=requestly');
      expect(requestly.status).toBe(200);
      expect(requestly.headers['rulekeeper-environment']).toBe('default');
      const text = JSON.stringify(requestly.body);
      expect(text).toContain('https://dev.example.com/checkout');
      expect(text).toContain('Bearer {{TOKEN}}');
      expect(text).not.toContain('dev-token');

      const staging = await t.call('GET', '/v1/export?format=requestly&environment=staging');
      expect(staging.headers['rulekeeper-environment']).toBe('staging');
      expect(JSON.stringify(staging.body)).toContain('https://staging.example.com/checkout');
      expect(JSON.stringify(staging.body)).not.toContain(SECRET);

      // Rulekeeper's own format keeps references unless an environment is named.
      const own = await t.call('GET', '/v1/export');
      expect(own.headers['rulekeeper-environment']).toBeUndefined();
      expect(JSON.stringify(own.body)).toContain('https://{{HOST}}/checkout');
      const missing = await t.call('GET', '/v1/export?format=requestly&environment=prod');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('ENVIRONMENT_NOT_FOUND');
    });

    it('an import keeps {{…}} as text', async () => {
      const reply = await t.call('POST', '/v1/import', {
        body: [
          {
            name: 'imported',
            ruleType: 'Redirect',
            status: 'Inactive',
            pairs: [
              {
                source: { key: 'Url', operator: 'Contains', value: '{{HOST}}' },
                destinationType: 'url',
                destination: 'https://{{HOST}}/{{NOT_A_VARIABLE}}',
              },
            ],
          },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const listed = await t.call('GET', '/v1/rules?pageSize=1000');
      const imported = listed.body.data.find((r: { name: string }) => r.name === 'imported');
      expect(imported.pairs[0].destination).toBe('https://{{HOST}}/{{NOT_A_VARIABLE}}');
      expect(imported.pairs[0].source.value).toBe('{{HOST}}');
    });
  });

  it('no log line holds the secret', () => {
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(SECRET);
  });
});
