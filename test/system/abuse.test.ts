// Limits under abuse, in process: huge bodies, deep nesting, many pairs, fields and details, long strings.
// Every answer is the documented 4xx (never a 500), small, quick, and the app keeps answering.
// (Slow and idle clients against the real process: abuse-connections.test.ts.)
import { describe, expect, it } from 'vitest';
import { type ErrorName, expectError } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const t = useTestApp();

const LIMIT = 1_048_576; // MAX_BODY_BYTES by default
const source = { key: 'host', operator: 'Equals', value: 'a.example' };
const rule = (fields: Record<string, unknown> = {}) => ({
  name: 'abuse',
  ruleType: 'Cancel',
  pairs: [{ source }],
  ...fields,
});

async function send(url: string, payload: string, method: 'POST' | 'PUT' = 'POST') {
  const started = Date.now();
  const response = await t.app.inject({
    method,
    url,
    headers: { 'x-api-key': t.owner.key, 'content-type': 'application/json' },
    payload,
  });
  const reply = { status: response.statusCode, body: JSON.parse(response.body), headers: response.headers };
  return { reply, size: response.body.length, ms: Date.now() - started };
}

/** The documented error, answered within 5 s in under 64 KiB. */
async function expectRefused(url: string, payload: string, error: ErrorName, method?: 'POST' | 'PUT') {
  const { reply, size, ms } = await send(url, payload, method);
  expectError(reply, error, reply.body.details);
  expect(size).toBeLessThan(65_536);
  expect(ms).toBeLessThan(5_000);
  return reply;
}

describe('huge bodies', () => {
  it('refuses a body one byte over the limit with 413, and reads one at the limit', async () => {
    const padding = (total: number) => JSON.stringify(rule({ description: '' })).length + total;
    const at = JSON.stringify(rule({ description: 'x'.repeat(LIMIT - padding(0)) }));
    expect(at.length).toBe(LIMIT);
    await expectRefused('/v1/rules', at, 'RULE_PAYLOAD_INVALID'); // read, then refused: description too long
    await expectRefused('/v1/rules', `${at} `, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses 20 MiB with 413 on every write endpoint', async () => {
    const big = JSON.stringify(rule({ description: 'x'.repeat(20 * LIMIT) }));
    await expectRefused('/v1/rules', big, 'PAYLOAD_TOO_LARGE');
    await expectRefused('/v1/groups', big, 'PAYLOAD_TOO_LARGE');
    await expectRefused('/v1/rules/Cancel_zzzzz', big, 'PAYLOAD_TOO_LARGE', 'PUT');
    await expectRefused('/v1/groups/Group_zzzzz', big, 'PAYLOAD_TOO_LARGE', 'PUT');
  });
});

describe('deep nesting', () => {
  const DEPTH = 100_000;
  it.each([
    ['unclosed arrays', '['.repeat(DEPTH), 'RULE_PAYLOAD_INVALID'],
    ['closed arrays', `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`, 'RULE_PAYLOAD_INVALID'],
    ['nested objects', `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`, 'RULE_PAYLOAD_INVALID'],
    [
      'as the pairs',
      JSON.stringify(rule()).replace(/"pairs":.*\}$/, `"pairs":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`),
      'RULE_PAIRS_INVALID',
    ],
    [
      'as a filter',
      JSON.stringify(rule({ pairs: [{ source: { ...source, filters: '@' } }] })).replace(
        '"@"',
        `${'[{"URL":'.repeat(DEPTH / 10)}1${'}]'.repeat(DEPTH / 10)}`,
      ),
      'RULE_PAIRS_INVALID',
    ],
    [
      'as a name',
      JSON.stringify(rule({ name: '@' })).replace('"@"', `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`),
      'RULE_PAYLOAD_INVALID',
    ],
  ] as const)(`refuses %s, ${DEPTH} levels deep`, async (_title, payload, error) => {
    await expectRefused('/v1/rules', payload, error);
  });

  it('refuses deep nesting in a group body and in a PUT', async () => {
    const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
    await expectRefused('/v1/groups', `{"name":${deep}}`, 'GROUP_PAYLOAD_INVALID');
    const id = (await t.call('POST', '/v1/rules', { body: rule() })).body.data.id;
    await expectRefused(`/v1/rules/${id}`, `{"pairs":[${deep}]}`, 'RULE_PAIRS_INVALID', 'PUT');
  });
});

describe('many things', () => {
  it('takes 100 pairs and refuses 101 (and 5,000) with a detail at /pairs', async () => {
    const pairs = (n: number) => Array.from({ length: n }, () => ({ source }));
    expect((await send('/v1/rules', JSON.stringify(rule({ pairs: pairs(100) })))).reply.status).toBe(201);
    for (const n of [101, 5_000]) {
      const reply = await expectRefused(
        '/v1/rules',
        JSON.stringify(rule({ pairs: pairs(n) })),
        'RULE_PAIRS_INVALID',
      );
      expect(reply.body.details).toStrictEqual([{ path: '/pairs', message: expect.any(String) }]);
    }
  });

  it('refuses 101 header modifications in one pair', async () => {
    const modification = { header: 'x-a', type: 'Remove' };
    const pair = { source, modifications: [{ Request: Array(101).fill(modification) }] };
    await expectRefused(
      '/v1/rules',
      JSON.stringify(rule({ ruleType: 'Headers', pairs: [pair] })),
      'RULE_PAIRS_INVALID',
    );
  });

  it('answers 100 pairs wrong in many places, and 50,000 unknown fields, with a short list of details', async () => {
    const bad = Array.from({ length: 100 }, () => ({
      source: { key: 'nope', operator: 1, x: 2, y: 3 },
      z: 4,
    }));
    await expectRefused('/v1/rules', JSON.stringify(rule({ pairs: bad })), 'RULE_PAIRS_INVALID');
    const fields = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`f${i}`, i]));
    await expectRefused('/v1/rules', JSON.stringify(rule(fields)), 'RULE_PAYLOAD_INVALID');
    await expectRefused('/v1/groups', JSON.stringify({ name: 'g', ...fields }), 'GROUP_PAYLOAD_INVALID');
  });

  it('refuses 10,000 query parameters', async () => {
    const query = Array.from({ length: 10_000 }, (_, i) => `p${i}=${i}`).join('&');
    const reply = await t.call('GET', `/v1/rules?${query}`);
    expectError(reply, 'INVALID_QUERY', reply.body.details);
  });
});

describe('long strings', () => {
  // biome-ignore format: a table
  const LIMITS: [field: string, max: number, body: (text: string) => Record<string, unknown>][] = [
    ['name', 256, (text) => rule({ name: text })],
    ['description', 4096, (text) => rule({ description: text })],
    ['source value', 8192, (text) => rule({ pairs: [{ source: { ...source, value: text } }] })],
  ];
  it.each(LIMITS)('takes a %s of %i characters, refuses one more and 900,000', async (field, max, body) => {
    expect((await send('/v1/rules', JSON.stringify(body('é'.repeat(max))))).reply.status, field).toBe(201);
    const error = field === 'source value' ? 'RULE_PAIRS_INVALID' : 'RULE_PAYLOAD_INVALID';
    await expectRefused('/v1/rules', JSON.stringify(body('é'.repeat(max + 1))), error);
    await expectRefused('/v1/rules', JSON.stringify(body('x'.repeat(900_000))), error);
  });

  it('refuses a group name of 257 characters, a groupId of 100,000 and a key of 100,000', async () => {
    await expectRefused('/v1/groups', JSON.stringify({ name: 'g'.repeat(257) }), 'GROUP_PAYLOAD_INVALID');
    await expectRefused(
      '/v1/rules',
      JSON.stringify(rule({ groupId: 'G'.repeat(100_000) })),
      'RULE_PAYLOAD_INVALID',
    );
    const reply = await t.call('GET', '/v1/rules', { key: `rk_${'a'.repeat(100_000)}` });
    expectError(reply, 'API_KEY_INVALID');
  });
});

it('keeps answering after all of it', async () => {
  expect((await t.call('POST', '/v1/rules', { body: rule() })).status).toBe(201);
  expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
});
