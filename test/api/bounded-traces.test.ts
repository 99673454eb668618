// Traces cannot take more than their share: the limits the OpenAPI document states (URL, body, inline
// pairs), patterns whose compiled program is too large refused when written, and the reported attack
// (six traces of 100 `\w{1,999}\d{50}` patterns against an 8 KB URL, which took 24-41 s of CPU and
// ~780 MB each and killed the service) refused at the door with the construct named. The service keeps
// answering and its memory stays bounded.
import { describe, expect, it } from 'vitest';
import { at, expectError } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

// A body limit that lets a 1 MiB traced body through, so the trace's own limit is what refuses it.
const t = useTestApp({ env: { MAX_BODY_BYTES: String(4 * 1024 * 1024) } });
const MiB = 1024 * 1024;
const rss = () => process.memoryUsage().rss;

const matches = (value: string) => ({ source: { key: 'Url', operator: 'Matches', value } });
const cancel = (pairs: unknown[]) => ({ name: 'draft', ruleType: 'Cancel', status: 'Active', pairs });
const trace = (body: unknown) => t.call('POST', '/v1/trace', { body });
const urlOf = (length: number) => {
  const base = 'https://a.example/';
  return `${base}${'a'.repeat(length - base.length)}`;
};

describe('the reported attack', () => {
  it('refuses six concurrent traces of 100 `\\w{1,999}\\d{50}` patterns against an 8 KB URL, naming the construct', async () => {
    const body = {
      request: { url: urlOf(8192) },
      rules: [cancel(Array(100).fill(matches('\\w{1,999}\\d{50}')))],
    };
    expect(JSON.stringify(body).length).toBeGreaterThan(15_000);
    const before = rss();
    const replies = await Promise.all(Array.from({ length: 6 }, () => trace(body)));
    // One key has one trace running and four waiting at most: the sixth at once is turned away.
    const turnedAway = replies.filter((reply) => reply.status === 429);
    expect(turnedAway.length).toBeLessThanOrEqual(1);
    for (const reply of turnedAway) expectError(reply, 'RATE_LIMITED', [at('')]);
    for (const reply of replies.filter((r) => r.status !== 429)) {
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('RULE_PAIRS_INVALID');
      expect(reply.body.details).toHaveLength(100);
      expect(reply.body.details[0]).toStrictEqual(
        at('/rules/0/pairs/0/source/value', expect.stringContaining('`\\w{1,999}`')),
      );
      expect(reply.body.details[0].message).toContain('2,049 instructions, more than the 1,000 allowed');
    }
    expect(rss() - before).toBeLessThan(400 * MiB);
    expect((await t.call('GET', '/healthz', { key: null })).status).toBe(200);
  });

  it('refuses such a pattern in a saved rule, and one far too large without compiling it', async () => {
    const reply = await t.call('POST', '/v1/rules', { body: cancel([matches('/\\w{1,999}\\d{50}/')]) });
    expectError(reply, 'RULE_PAIRS_INVALID', [
      at('/pairs/0/source/value', expect.stringContaining('`\\w{1,999}`')),
    ]);
    const huge = 'a{1000}'.repeat(1000); // a million instructions: refused from its structure alone
    const before = rss();
    const refused = await t.call('POST', '/v1/rules', { body: cancel([matches(huge)]) });
    expectError(refused, 'RULE_PAIRS_INVALID', [
      at('/pairs/0/source/value', expect.stringContaining('more than 4,000 instructions')),
    ]);
    expect(rss() - before).toBeLessThan(200 * MiB);
    const fine = await t.call('POST', '/v1/rules', {
      body: cancel([matches('^https://[a-z]{1,20}\\.example\\.com/')]),
    });
    expect(fine.status).toBe(201);
  });
});

describe('trace limits', () => {
  it('takes a URL of 16 KiB and refuses one longer (and a page URL alike)', async () => {
    expect((await trace({ request: { url: urlOf(16_384) } })).status).toBe(200);
    expectError(await trace({ request: { url: urlOf(16_385) } }), 'INVALID_TRACE_REQUEST', [
      at('/request/url'),
    ]);
    const page = await trace({ request: { url: urlOf(100), pageUrl: urlOf(16_385) } });
    expectError(page, 'INVALID_TRACE_REQUEST', [at('/request/pageUrl')]);
  });

  it('takes a body of 1 MiB and refuses one longer', async () => {
    const body = (length: number) => ({
      request: { url: urlOf(100), method: 'POST', body: 'b'.repeat(length) },
    });
    expect((await trace(body(MiB))).status).toBe(200);
    expectError(await trace(body(MiB + 1)), 'INVALID_TRACE_REQUEST', [at('/request/body')]);
  });

  it('takes 1,000 inline pairs in all and refuses 1,001', async () => {
    const rules = (n: number) =>
      Array.from({ length: Math.ceil(n / 100) }, (_, i) =>
        cancel(Array(Math.min(100, n - i * 100)).fill(matches('[a-z]+\\.example'))),
      );
    expect((await trace({ request: { url: urlOf(100) }, rules: rules(1000) })).status).toBe(200);
    expectError(await trace({ request: { url: urlOf(100) }, rules: rules(1001) }), 'INVALID_TRACE_REQUEST', [
      at('/rules', expect.stringContaining('1001 pairs')),
    ]);
  });

  it('states its limits in the OpenAPI document', async () => {
    const document = (await t.call('GET', '/v1/openapi.json', { key: null })).body;
    const schema = document.paths['/v1/trace'].post.requestBody.content['application/json'].schema;
    const request = schema.properties.request.properties;
    expect(request.url.maxLength).toBe(16_384);
    expect(request.pageUrl.maxLength).toBe(16_384);
    expect(request.body.maxLength).toBe(MiB);
    expect(schema.properties.rules.description).toContain('1000 pairs');
  });
});
