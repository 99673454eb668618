// The rule lint runs beside the event loop, not on it: while one workspace's many rules are linted
// (after an import, on GET /v1/lint, after each write), other requests answer. Past its time limit a
// lint is stopped: GET /v1/lint says so with 503, and a write or an import it follows stands, without
// findings, as it was written.
import { describe, expect, it } from 'vitest';
import { at, createRule, expectError } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

/** `count` rules as an import takes them: Redirects, Cancels and Replaces, each on its own host. */
function manyRules(count: number): unknown[] {
  return Array.from({ length: count }, (_, n) => {
    const source = { key: 'Url', operator: 'Contains', value: `host-${n}.example/page` };
    const base = { objectType: 'rule', name: `rule ${n}`, status: 'Active' };
    if (n % 3 === 0)
      return {
        ...base,
        ruleType: 'Redirect',
        pairs: [{ source, destinationType: 'url', destination: `https://to-${n}.example/` }],
      };
    if (n % 3 === 1) return { ...base, ruleType: 'Cancel', pairs: [{ source }] };
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

describe('a lint past its time limit', () => {
  const t = useTestApp({ env: { LINT_TIME_LIMIT_MS: '10' } });

  it('is 503 Time limit exceeded on GET /v1/lint; a write and an import stand, without findings', async () => {
    const imported = await t.call('POST', '/v1/import', { body: manyRules(3000) });
    expect(imported.status).toBe(200);
    expect(imported.body.data.created).toBe(3000);

    const lint = await t.call('GET', '/v1/lint');
    expectError(lint, 'TIME_LIMIT_EXCEEDED', [
      at('', expect.stringContaining('the lint ran past its 0.01 s limit')),
    ]);

    // The same rule twice: a duplicate the lint would name, were there time.
    const pair = { source: { key: 'Url', operator: 'Contains', value: 'host-1.example/page' } };
    const written = await t.call('POST', '/v1/rules', {
      body: { name: 'again', ruleType: 'Cancel', status: 'Active', pairs: [pair] },
    });
    expect(written.status).toBe(201);
    expect(written.body.warnings).toEqual([]);
    const stored = await t.call('GET', `/v1/rules/${written.body.data.id}`);
    expect(stored.body.data).toMatchObject({ name: 'again', status: 'Active', pairs: [pair] });
  }, 240_000);
});

describe('a long lint', () => {
  const t = useTestApp();

  it('leaves the others answering while it runs, and then answers in full', async () => {
    const theirs = await createRule(t, {}, t.outsider.key);
    const imported = await t.call('POST', '/v1/import', { body: manyRules(20_000) });
    expect(imported.status).toBe(200);
    // A write moves the revision: the lint below is the workspace's whole, run afresh.
    await createRule(t);
    const running = t.call('GET', '/v1/lint');
    expect((await t.call('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await t.call('GET', `/v1/rules/${theirs.id}`, { key: t.outsider.key })).status).toBe(200);
    expect(await settled(running)).toBe(false);
    const reply = await running;
    expect(reply.status).toBe(200);
    // Every Redirect sends host-N to to-N, which no rule matches: nothing loops; 20,000 rules are more
    // than the lint compares with one another, so it says it is not complete.
    expect(reply.body.data.findings.filter((f: { code: string }) => f.code === 'redirect_loop')).toEqual([]);
    expect(reply.body.data.complete).toBe(false);
  }, 240_000);
});
