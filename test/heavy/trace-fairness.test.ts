// Traces run beside the event loop, not on it: while the largest trace allowed runs (1,000 patterns near
// the program limit against a 16 KiB URL: 15 s of CPU or more), other requests answer; past its time
// limit the trace is stopped with 503 Time limit exceeded and the service goes on; one key cannot hold
// every worker. Memory stays bounded throughout.
import { describe, expect, it } from 'vitest';
import { at, createRule, expectError } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const TIME_LIMIT_MS = 5000;
const t = useTestApp({ env: { TRACE_TIME_LIMIT_MS: String(TIME_LIMIT_MS), TRACE_WORKERS: '2' } });
const MiB = 1024 * 1024;

const url = `https://a.example/${'a'.repeat(16_384 - 19)}`;
/** Patterns just under the program limit, each different: a pattern's first match is its slowest. */
const pairs = (n: number, from: number) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const value = `\\w{1,${300 + (i % 150)}}\\d{${40 + Math.floor(i / 150)}}`;
    return { source: { key: 'Url', operator: 'Matches', value } };
  });
/** The largest trace allowed: 10 rules of 100 pairs, each pattern just under the program limit. */
const largest = {
  request: { url },
  rules: Array.from({ length: 10 }, (_, r) => ({
    name: 'slow',
    ruleType: 'Cancel',
    status: 'Active',
    pairs: pairs(100, r * 100),
  })),
};

const tiny = { request: { url: 'https://a.example/' } };
/** Both workers started (they start on first use): one trace from each of two keys at once. */
async function warm(): Promise<void> {
  const replies = await Promise.all([
    t.call('POST', '/v1/trace', { body: tiny }),
    t.call('POST', '/v1/trace', { body: tiny, key: t.outsider.key }),
  ]);
  for (const reply of replies) expect(reply.status).toBe(200);
}

/** Whether `promise` has settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  return (
    (await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))])) !== marker
  );
}

/**
 * The largest trace ends at its time limit or, on a machine where it runs faster than that, at its
 * worker's memory limit: either way a 503 that says which, and its worker is replaced.
 */
function expectStopped(reply: { status: number; body: any; headers: Record<string, unknown> }): void {
  if (reply.body.code !== 'UNAVAILABLE') {
    expectError(reply, 'TIME_LIMIT_EXCEEDED', [at('', expect.stringContaining(`${TIME_LIMIT_MS / 1000} s`))]);
    return;
  }
  // The error table's 503 for a service part that gave up, with why in its detail.
  expect({ status: reply.status, code: reply.body.code, message: reply.body.message }).toEqual({
    status: 503,
    code: 'UNAVAILABLE',
    message: 'Service unavailable',
  });
  expect(reply.body.details).toEqual([
    { path: '', message: expect.stringMatching(/^the trace used more than its \d+ MiB and was stopped$/) },
  ]);
}

describe('the largest trace', () => {
  it('leaves the others answering while it runs, and is stopped at its time or memory limit with 503', async () => {
    const rule = await createRule(t, {}, t.outsider.key);
    await warm();
    const before = process.memoryUsage().rss;
    const running = t.call('POST', '/v1/trace', { body: largest });
    // Another workspace's read and the health check answer while the trace is still under way.
    const health = await t.call('GET', '/healthz', { key: null });
    expect(health.status).toBe(200);
    const read = await t.call('GET', `/v1/rules/${rule.id}`, { key: t.outsider.key });
    expect(read.status).toBe(200);
    expect(await settled(running)).toBe(false);
    const reply = await running;
    expectStopped(reply);
    expect(reply.headers['retry-after']).toBeDefined();
    expect(process.memoryUsage().rss - before).toBeLessThan(768 * MiB);
    // A new worker takes the next trace.
    expect(
      (await t.call('POST', '/v1/trace', { body: { request: { url: 'https://a.example/' } } })).status,
    ).toBe(200);
  }, 120_000);

  it('lets one key use only part of the pool: another key is served while it waits', async () => {
    await warm();
    const first = t.call('POST', '/v1/trace', { body: largest });
    const second = t.call('POST', '/v1/trace', { body: largest });
    const other = await t.call('POST', '/v1/trace', {
      body: { request: { url: 'https://a.example/' } },
      key: t.outsider.key,
    });
    expect(other.status).toBe(200);
    expect(await settled(first)).toBe(false);
    expect(await settled(second)).toBe(false);
    for (const reply of await Promise.all([first, second])) expectStopped(reply);
  }, 120_000);

  it('turns away a key past its share of waiting traces with 429 and Retry-After', async () => {
    await warm();
    const running = t.call('POST', '/v1/trace', { body: largest });
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => t.call('POST', '/v1/trace', { body: tiny })),
    );
    // One running (the largest), four waiting behind it: the other two are turned away.
    const turnedAway = replies.filter((reply) => reply.status === 429);
    expect(turnedAway).toHaveLength(2);
    for (const reply of turnedAway) {
      expectError(reply, 'RATE_LIMITED', [at('')]);
      expect(reply.headers['retry-after']).toBe('1');
    }
    for (const reply of replies.filter((r) => r.status !== 429)) expect(reply.status).toBe(200);
    expectStopped(await running);
  }, 120_000);
});
