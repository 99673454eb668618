// Property-based fuzzing over app.inject: arbitrary and mutated bodies on every write endpoint, non-JSON
// bodies, arbitrary list queries and path ids. Every answer is documented, never a 500; a refused request
// changes nothing; an accepted one reads back as returned; the other workspace never changes.
// Replay a failure with FUZZ_SEED=<seed>; RULEKEEPER_LONG_TESTS=1 runs ten times as many cases.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RULE_TYPES, type RuleType, ruleTypes } from '../../src/model/rule-types/index.js';
import { mutatedGroupBody, mutatedRuleBody, oddString } from '../helpers/fuzz-arbitraries.js';
import {
  differences,
  type Endpoint,
  expectDocumented,
  expectFiltered,
  expectOnlyChanged,
  expectPrototypesClean,
  fuzzStats,
  send,
  snapshot,
} from '../helpers/fuzz-oracle.js';
import {
  jsonContentType,
  listQuery,
  nonJsonText,
  otherContentType,
  queryText,
  wellFormed,
} from '../helpers/fuzz-requests.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';
import { byMode, seedFor } from '../helpers/test-modes.js';

const seed = seedFor('FUZZ_SEED', 'fuzz');
const numRuns = byMode(30, 300);
const timeout = byMode(60_000, 600_000);
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

forEachDatabase((db) => {
  const t = useTestApp({ db });
  const ruleOf = {} as Record<RuleType, string>;
  let group: string;
  let foreign: { rule: string; group: string };

  beforeAll(async () => {
    Object.assign(fuzzStats, { requests: 0, byStatus: {} });
    for (const ruleType of RULE_TYPES) {
      const pairs = [(ruleTypes[ruleType].examples.valid[0] as { pair: unknown }).pair];
      const reply = await t.call('POST', '/v1/rules', {
        body: { name: `fixture ${ruleType}`, ruleType, pairs },
      });
      ruleOf[ruleType] = reply.body.data.id;
    }
    group = (await t.call('POST', '/v1/groups', { body: { name: 'fixture group' } })).body.data.id;
    const key = t.outsider.key;
    const body = {
      name: 'theirs',
      ruleType: 'Cancel',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'x' } }],
    };
    foreign = {
      rule: (await t.call('POST', '/v1/rules', { key, body })).body.data.id,
      group: (await t.call('POST', '/v1/groups', { key, body: { name: 'theirs' } })).body.data.id,
    };
  });
  afterAll(async () => {
    console.log(
      `[fuzz ${db}] ${fuzzStats.requests} fuzzed requests (seed ${seed}), by status ${JSON.stringify(fuzzStats.byStatus)}`,
    );
  });

  /** One write; refused → nothing changed (the target included); accepted → reads back as returned. */
  async function write(
    endpoint: Endpoint,
    method: Method,
    url: string,
    { payload, type, routing = false }: { payload?: string; type?: string; routing?: boolean } = {},
  ) {
    const kind = url.startsWith('/v1/rules') ? 'rules' : 'groups';
    const target = method === 'POST' ? undefined : url;
    const before = await snapshot(t);
    const read = async () => {
      const { status, body } = await t.call('GET', target ?? '');
      return status === 200 ? { status, body } : { status };
    };
    const targetBefore = target ? await read() : undefined;
    const reply = await send(t, method, url, payload, type);
    expectDocumented(endpoint, reply, routing);
    expectPrototypesClean();
    const after = await snapshot(t);
    if (reply.status >= 300) {
      expect(after).toStrictEqual(before);
      if (target) expect(await read()).toStrictEqual(targetBefore);
      return reply;
    }
    if (method === 'DELETE') {
      const id = before.owner[kind].find((item) => !after.owner[kind].some((x) => x.id === item.id))?.id;
      expectOnlyChanged(before, after, kind, id, null);
      return reply;
    }
    const { data } = reply.body;
    const readBack = (await t.call('GET', `/v1/${kind}/${data.id}`)).body.data;
    expect(readBack, `read back differs from the answer: ${differences(readBack, data)}`).toStrictEqual(data);
    expectOnlyChanged(before, after, kind, data.id, data);
    if (method === 'POST') await t.call('DELETE', `/v1/${kind}/${data.id}`);
    return reply;
  }

  const ruleTarget = fc.constantFrom(...RULE_TYPES).map((type) => `/v1/rules/${ruleOf[type]}`);
  const writeEndpoint = fc.oneof(
    fc.constant({ endpoint: 'POST /rules' as const, method: 'POST' as const, url: '/v1/rules' }),
    ruleTarget.map((url) => ({ endpoint: 'PUT /rules/:id' as const, method: 'PUT' as const, url })),
    fc.constant({ endpoint: 'POST /groups' as const, method: 'POST' as const, url: '/v1/groups' }),
    fc.constant(0).map(() => ({
      endpoint: 'PUT /groups/:id' as const,
      method: 'PUT' as const,
      url: `/v1/groups/${group}`,
    })),
  );

  it('answers arbitrary JSON bodies on every write endpoint as documented', { timeout }, async () => {
    const arb = fc.tuple(writeEndpoint, fc.jsonValue());
    await fc.assert(
      fc.asyncProperty(arb, async ([e, body]) => {
        await write(e.endpoint, e.method, e.url, { payload: JSON.stringify(body) });
      }),
      { seed, numRuns },
    );
  });

  it('answers mutated valid rule bodies of every type, POST and PUT, as documented', {
    timeout,
  }, async () => {
    const arb = fc.tuple(fc.oneof(mutatedRuleBody(), mutatedRuleBody({ groupId: group })), fc.boolean());
    await fc.assert(
      fc.asyncProperty(arb, async ([{ ruleType, text }, put]) => {
        if (put) await write('PUT /rules/:id', 'PUT', `/v1/rules/${ruleOf[ruleType]}`, { payload: text });
        else await write('POST /rules', 'POST', '/v1/rules', { payload: text });
      }),
      { seed, numRuns: numRuns * 2 },
    );
  });

  it('answers mutated valid group bodies, POST and PUT, as documented', { timeout }, async () => {
    await fc.assert(
      fc.asyncProperty(mutatedGroupBody(), fc.boolean(), async (text, put) => {
        if (put) await write('PUT /groups/:id', 'PUT', `/v1/groups/${group}`, { payload: text });
        else await write('POST /groups', 'POST', '/v1/groups', { payload: text });
      }),
      { seed, numRuns },
    );
  });

  it('stores odd strings in every text field exactly as returned, or refuses them', { timeout }, async () => {
    const rule = mutatedRuleBody({}, true).map(({ text }) => ({
      text,
      url: '/v1/rules',
      endpoint: 'POST /rules' as const,
    }));
    const group = mutatedGroupBody(true).map((text) => ({
      text,
      url: '/v1/groups',
      endpoint: 'POST /groups' as const,
    }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(rule, group), async ({ text, url, endpoint }) => {
        await write(endpoint, 'POST', url, { payload: text });
      }),
      { seed, numRuns },
    );
  });

  it('refuses non-JSON bodies (400) and other content types (415)', { timeout }, async () => {
    const body = fc.oneof(
      fc.record({ text: nonJsonText, type: jsonContentType }),
      fc.record({ text: fc.json(), type: otherContentType }),
    );
    await fc.assert(
      fc.asyncProperty(writeEndpoint, body, async (e, { text, type }) => {
        const reply = await write(e.endpoint, e.method, e.url, { payload: text, type });
        if (!type.toLowerCase().includes('application/json')) expect(reply.status).toBe(415);
      }),
      { seed, numRuns },
    );
  });

  it('answers arbitrary list queries with 200 or 400, filters honoured, nothing changed', {
    timeout,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('rules', 'groups'), listQuery, async (kind, parts) => {
        const before = await snapshot(t);
        const reply = await send(t, 'GET', `/v1/${kind}?${queryText(parts)}`);
        expectDocumented(kind === 'rules' ? 'GET /rules' : 'GET /groups', reply);
        if (reply.status === 200 && kind === 'rules') expectFiltered(reply.body.data, parts);
        expect(await snapshot(t)).toStrictEqual(before);
      }),
      { seed, numRuns },
    );
  });

  it('answers arbitrary ids in paths as documented; another workspace’s ids are 403', {
    timeout,
  }, async () => {
    const near = fc.tuple(
      fc.constantFrom('Group_', 'Cancel_', 'Redirect_', 'group_', ''),
      fc.string({ maxLength: 40 }),
    );
    const id = fc.oneof(
      oddString.map((s) => ({ id: s, foreign: false })),
      near.map(([prefix, rest]) => ({ id: prefix + rest, foreign: false })),
      fc.constant(0).map(() => ({ id: '', foreign: true })),
    );
    const arb = fc.tuple(
      fc.constantFrom<Method>('GET', 'PUT', 'DELETE'),
      fc.constantFrom('rules', 'groups'),
      id,
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([method, kind, { id: raw, foreign: theirs }, encode]) => {
        const id = theirs ? (kind === 'rules' ? foreign.rule : foreign.group) : raw;
        if (id === '' || Object.values(ruleOf).includes(id) || id === group) return;
        const segment = encode ? encodeURIComponent(wellFormed(id)) : id.replace(/[^\x21-\x7e]|[#?/]/g, '');
        if (segment === '' || segment === '.' || segment === '..') return;
        const endpoint = `${method} /${kind}/:id` as Endpoint;
        const payload = method === 'PUT' ? '{"name":"renamed"}' : undefined;
        const reply = await write(endpoint, method, `/v1/${kind}/${segment}`, { payload, routing: true });
        if (theirs) expect(reply.status).toBe(403);
      }),
      { seed, numRuns },
    );
  });

  it('keeps answering after all of it', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const body = {
      name: 'after the fuzz',
      ruleType: 'Cancel',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'x' } }],
    };
    expect((await t.call('POST', '/v1/rules', { body })).status).toBe(201);
  });
});
