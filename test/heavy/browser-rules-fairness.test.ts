// A workspace's browser rules compile beside the event loop, not on it: while one workspace's many rules
// are compiled to Chrome's rules (GET /v1/browser-rules), other requests answer. Past its time limit a
// compile is stopped: the answer is 503 Time limit exceeded, and the service and the others go on.
import { describe, expect, it } from 'vitest';
import { at, createRule, expectError } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

/** `count` rules as an import takes them, each different: Redirects, Cancels (some by regex), Replaces. */
function manyRules(count: number): unknown[] {
  return Array.from({ length: count }, (_, n) => {
    const source = { key: 'Url', operator: 'Contains', value: `host-${n}.example/page` };
    const base = { objectType: 'rule', name: `rule ${n}`, status: 'Active' };
    if (n % 4 === 0)
      return {
        ...base,
        ruleType: 'Redirect',
        pairs: [{ source, destinationType: 'url', destination: `https://to-${n}.example/` }],
      };
    if (n % 4 === 1) return { ...base, ruleType: 'Cancel', pairs: [{ source }] };
    if (n % 4 === 2) {
      const regex = { key: 'Url', operator: 'Matches', value: `/^https://h${n}\\.example/(a|b)+\\d{2}/` };
      return { ...base, ruleType: 'Cancel', pairs: [{ source: regex }] };
    }
    return { ...base, ruleType: 'Replace', pairs: [{ source, from: 'page', to: `other-${n}` }] };
  });
}

/** Whether `promise` has settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  return (
    (await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))])) !== marker
  );
}

describe('a browser rules compile past its time limit', () => {
  const t = useTestApp({ env: { BROWSER_RULES_TIME_LIMIT_MS: '10' } });

  it('is 503 Time limit exceeded, again on the next try; the others answer and writes stand', async () => {
    const theirs = await createRule(t, {}, t.outsider.key);
    const imported = await t.call('POST', '/v1/import', { body: manyRules(3000) });
    expect(imported.status).toBe(200);
    expect(imported.body.data.created).toBe(3000);

    const stopped = [
      'the browser rules compile ran past its 0.01 s limit and was stopped: the workspace has too many ' +
        'rules to compile in time; raise BROWSER_RULES_TIME_LIMIT_MS',
    ];
    const reply = await t.call('GET', '/v1/browser-rules');
    expectError(reply, 'TIME_LIMIT_EXCEEDED', [at('', stopped[0])]);
    expect(reply.headers['retry-after']).toMatch(/^\d+$/);
    // Nothing was kept of the refused compile: it is tried again, and stopped again.
    expectError(await t.call('GET', '/v1/browser-rules'), 'TIME_LIMIT_EXCEEDED', [at('', stopped[0])]);

    // The service goes on: the health check, another workspace's rule, and a write of this workspace.
    expect((await t.call('GET', '/healthz', { key: null })).status).toBe(200);
    const read = await t.call('GET', `/v1/rules/${theirs.id}`, { key: t.outsider.key });
    expect(read.status).toBe(200);
    expect(read.body.data.id).toBe(theirs.id);
    const written = await createRule(t, { name: 'after the refusal' });
    const stored = await t.call('GET', `/v1/rules/${written.id}`);
    expect(stored.body.data).toMatchObject({ name: 'after the refusal' });
  }, 240_000);
});

describe('a long browser rules compile', () => {
  const t = useTestApp();

  it('leaves the others answering while it runs, then answers in full', async () => {
    const theirs = await createRule(t, { status: 'Active' }, t.outsider.key);
    const imported = await t.call('POST', '/v1/import', { body: manyRules(20_000) });
    expect(imported.status).toBe(200);

    const running = t.call('GET', '/v1/browser-rules');
    expect((await t.call('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await t.call('GET', `/v1/rules/${theirs.id}`, { key: t.outsider.key })).status).toBe(200);
    expect(await settled(running)).toBe(false);
    // Another workspace's browser rules compile on another worker: one key never holds them all.
    const other = await t.call('GET', '/v1/browser-rules', { key: t.outsider.key });
    expect(other.status).toBe(200);
    expect(other.body.data.report.map((entry: { ruleId: string }) => entry.ruleId)).toEqual([theirs.id]);

    const reply = await running;
    expect(reply.status).toBe(200);
    const { rules, report } = reply.body.data;
    expect(report).toHaveLength(20_000);
    // Chrome takes at most 1,000 rules with a regex and 5,000 redirects: the rest is reported, not dropped.
    expect(
      rules.filter((rule: { condition: { regexFilter?: string } }) => rule.condition.regexFilter),
    ).toHaveLength(1000);
    expect(
      report.filter((entry: { status: string }) => entry.status === 'not_compiled').length,
    ).toBeGreaterThan(0);

    const again = await t.call('GET', '/v1/browser-rules', {
      headers: { 'if-none-match': reply.headers.etag as string },
    });
    expect(again.status).toBe(304);
  }, 240_000);
});
