// Bodies nested past 64 levels, however deep, are refused at the door with the documented `… is invalid`
// and a pointer at the place, before anything recurses over them; the service keeps answering and its
// memory stays bounded.
import { describe, expect, it } from 'vitest';
import { at, expectError } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const t = useTestApp();
const MiB = 1024 * 1024;
const rss = () => process.memoryUsage().rss;

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** The pointer of the array at level 65 of arrays nested from the top. */
const levels65 = (prefix: string, from: number) => `${prefix}${'/0'.repeat(64 - from)}`;

async function post(url: string, payload: string, headers: Record<string, string> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'x-api-key': t.owner.key, 'content-type': 'application/json', ...headers },
    payload,
  });
  return { status: response.statusCode, body: JSON.parse(response.body), headers: response.headers };
}

describe('nesting depth', () => {
  it('refuses a 10-million-level import with an Idempotency-Key (the reported 500), memory bounded', async () => {
    const body = nested(10_000_000); // 20 MB: under the import limit
    const before = rss();
    const reply = await post('/v1/import', body, { 'idempotency-key': 'deep-1' });
    expectError(reply, 'IMPORT_INVALID', [at(levels65('', 0), expect.stringContaining('64 levels'))]);
    expect(rss() - before).toBeLessThan(300 * MiB);
    expect((await t.call('GET', '/v1/rules')).status).toBe(200); // still answering
  });

  it('refuses a rule nested half a million levels deep (1 MiB) with an Idempotency-Key at its place', async () => {
    const depth = 500_000;
    const payload = `{"name":"deep","ruleType":"Cancel","pairs":[{"source":${nested(depth)}}]}`;
    expect(payload.length).toBeLessThanOrEqual(MiB);
    const before = rss();
    const reply = await post('/v1/rules', payload, { 'idempotency-key': 'deep-2' });
    // levels: the body, pairs, the pair, then the source's arrays
    expectError(reply, 'RULE_PAIRS_INVALID', [at(`/pairs/0/source${'/0'.repeat(61)}`)]);
    expect(rss() - before).toBeLessThan(300 * MiB);
    const name = `{"name":${nested(depth)},"ruleType":"Cancel","pairs":[]}`;
    expectError(await post('/v1/rules', name), 'RULE_PAYLOAD_INVALID', [at(levels65('/name', 1))]);
    expect((await t.call('GET', '/v1/rules')).status).toBe(200);
  });

  it('names the place in objects by their keys, escaped as a JSON Pointer', async () => {
    const deep = `${'{"a/b":'.repeat(70)}1${'}'.repeat(70)}`;
    const reply = await post('/v1/groups', `{"name":"g","x~":${deep}}`);
    expectError(reply, 'GROUP_PAYLOAD_INVALID', [at(`/x~0${'/a~1b'.repeat(63)}`)]);
    const trace = await post('/v1/trace', `{"request":{"url":"https://a.example/","headers":${deep}}}`);
    expectError(trace, 'INVALID_TRACE_REQUEST', [at(`/request/headers${'/a~1b'.repeat(62)}`)]);
  });

  it('reads 64 levels: the body is judged on its fields, not its depth', async () => {
    const reply = await post('/v1/groups', `{"name":${nested(63)}}`);
    expectError(reply, 'GROUP_PAYLOAD_INVALID', [at('/name', expect.not.stringContaining('64 levels'))]);
  });
});
