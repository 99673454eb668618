// The document fuzzer: requests generated from the served OpenAPI document alone (every operation but
// the endless event stream), as Schemathesis would. A request valid by the document is taken, unless
// an answer the document gives for the state applies (an unknown id's 404, a 409, a stale If-Match's
// 412); the same request with one constraint broken is refused with an error the operation lists.
// Every answer is checked against the document (test-app.ts wraps inject with the contract).
// Replay with OPENAPI_FUZZ_SEED=<seed>; RULEKEEPER_LONG_TESTS=1 runs ten times as many cases.
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RULE_TYPES, ruleTypes } from '../../src/model/rule-types/index.js';
import { contractOf } from '../helpers/contract.js';
import {
  type FuzzRequest,
  mutated,
  mutationCount,
  type Operation,
  operationsOf,
  type Pools,
  requestArbitrary,
  urlOf,
} from '../helpers/document-fuzz.js';
import { type RequestContract, requestContractOf } from '../helpers/request-contract.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';
import { byMode, seedFor } from '../helpers/test-modes.js';
import { insertDoneDelivery } from '../helpers/webhook-delivery.js';

const seed = seedFor('OPENAPI_FUZZ_SEED', 'openapi-fuzz');
const numRuns = byMode(60, 600);
const timeout = byMode(180_000, 1_800_000);

/** Answers that depend on the state, not on the request's form: the document lists each. */
const STATE_DEPENDENT = new Set([
  'RULE_NOT_FOUND',
  'GROUP_NOT_FOUND',
  'VERSION_NOT_FOUND',
  'RESTORE_CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'CHANGES_EXPIRED',
  'MEMBER_NOT_FOUND',
  'LAST_OWNER',
  'KEY_NOT_FOUND',
  'WEBHOOK_NOT_FOUND',
  'DELIVERY_NOT_FOUND',
  'WEBHOOK_LIMIT',
  'INVITE_NOT_FOUND',
  // An invite of an address whose user is a member; a reset link for a member who has no email.
  'MEMBER_EXISTS',
  'USER_CANNOT_SIGN_IN',
  // A suite deleted meanwhile; a name another suite has; a workspace with all the suites it keeps.
  'TEST_SUITE_NOT_FOUND',
  'TEST_SUITE_EXISTS',
  'TEST_SUITES_FULL',
  // A change request that is not there (its id drawn from other pools), or whose state refuses.
  'CHANGE_REQUEST_NOT_FOUND',
  'CHANGE_REQUEST_STATE',
  'CHANGE_REQUEST_CONFLICT',
  // A variable or environment deleted meanwhile, a name taken, a workspace full, default (or one a key
  // is bound to) kept; an environment named (a query's, a trace's) that the workspace does not have.
  'ENVIRONMENT_NOT_FOUND',
  'VARIABLE_NOT_FOUND',
  'ENVIRONMENT_EXISTS',
  'ENVIRONMENTS_FULL',
  'ENVIRONMENT_IN_USE',
  'VARIABLE_EXISTS',
  'VARIABLES_FULL',
]);

/**
 * Refusals the document says only in words (plugins/openapi-limits.ts), for variables: a trace's
 * environment the workspace lacks (400 at /environment), a header name with braces that are not a
 * `{{NAME}}` reference.
 */
function variablesRefusal(code: string, body: unknown): boolean {
  const details = (body as { details?: { path: string; message: string }[] } | undefined)?.details ?? [];
  if (details.length === 0) return false;
  if (code === 'INVALID_TRACE_REQUEST') return details.every((d) => d.path === '/environment');
  return (
    code === 'RULE_PAIRS_INVALID' &&
    details.every((d) => /\/header$/.test(d.path) && d.message.includes('{{NAME}}'))
  );
}

forEachDatabase((db) => {
  const t = useTestApp({ db });
  let document: any;
  let requests: RequestContract;
  let operations: Operation[];
  const pools: Pools = {
    rules: new Map(),
    groups: new Set(),
    members: new Set(),
    keys: new Set(),
    suites: new Set(),
    webhooks: new Set(),
    deliveries: new Set(),
    environments: new Set(['default']),
    variables: new Set(),
  };
  /** The owner's admin key: every route is open to it (the first key of a user writes only). */
  let ownerKey = '';
  const stats = { sent: 0, skipped: 0, byStatus: {} as Record<string, number> };

  beforeAll(async () => {
    ownerKey = (await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: null }))
      .key;
    // Members to change and remove, never the one the fuzzer calls as: made an owner, another member
    // could remove alice, and every later request would be refused as of nobody (seed 1237461864).
    pools.members.add(t.teammate.userId);
    pools.members.add((await t.keysService.issue('acme', 'fuzzed member')).userId);
    // Keys to revoke, none of them one the fuzzer calls with (a path id's pool must not be empty).
    for (const name of ['one', 'two'])
      pools.keys.add(
        (await t.keysService.issue('acme', 'alice', { scope: 'read', expiresAt: null, name })).keyId,
      );
    document = (await contractOf(t.app)).document;
    requests = await requestContractOf(t.app);
    operations = operationsOf(document);
    for (const ruleType of RULE_TYPES) {
      const pairs = [(ruleTypes[ruleType].examples.valid[0] as { pair: unknown }).pair];
      const reply = await t.call('POST', '/v1/rules', {
        body: { name: `fixture ${ruleType}`, ruleType, pairs },
      });
      pools.rules.set(reply.body.data.id, ruleType);
    }
    for (const name of ['one', 'two'])
      pools.groups.add((await t.call('POST', '/v1/groups', { body: { name } })).body.data.id);
    for (const name of ['one', 'two']) {
      const cases = [
        { name: 'a case', request: { url: 'https://a.example/' }, expect: { cancelled: false } },
      ];
      pools.suites.add((await t.call('POST', '/v1/test-suites', { body: { name, cases } })).body.data.id);
    }
    pools.environments.add(
      (await t.call('POST', '/v1/environments', { body: { name: 'staging' } })).body.data.name,
    );
    for (const [name, secret] of [
      ['PLAIN', false],
      ['SECRET', true],
    ] as const) {
      const body = { name, secret, values: { default: 'd', staging: 's' } };
      pools.variables.add((await t.call('POST', '/v1/variables', { body })).body.data.name);
    }
    // An inactive webhook (never sent to) and a delivery of it.
    const hook = await t.call('POST', '/v1/webhooks', {
      key: ownerKey,
      body: { url: 'https://203.0.113.10/fuzzed', active: false },
    });
    pools.webhooks.add(hook.body.data.id);
    await insertDoneDelivery(t.database.db, {
      id: 'dlv_fuzzed',
      workspaceId: t.owner.workspaceId,
      webhookId: hook.body.data.id,
    });
    pools.deliveries.add('dlv_fuzzed');
  });
  afterAll(() => {
    console.log(
      `[openapi-fuzz ${db}] ${stats.sent} requests (seed ${seed}), ${stats.skipped} generated cases skipped, ` +
        `by status ${JSON.stringify(stats.byStatus)}`,
    );
  });

  /** What is wrong with the request by the document (nothing: valid). */
  function problems(request: FuzzRequest): string[] {
    const { method, template, body } = request.operation;
    return [
      ...requests.parameterProblems(method, template, request),
      ...(body ? requests.bodyProblems(method, template, request.body) : []),
    ];
  }

  async function send(request: FuzzRequest, key: string | null = ownerKey) {
    const headers: Record<string, string> = { ...(key ? { 'x-api-key': key } : {}), ...request.header };
    const options: InjectOptions = {
      method: request.operation.method as 'GET',
      url: urlOf(request),
      headers,
    };
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      options.payload = JSON.stringify(request.body);
    }
    const response = await t.app.inject(options); // checked against the document on the way
    stats.sent += 1;
    stats.byStatus[response.statusCode] = (stats.byStatus[response.statusCode] ?? 0) + 1;
    const body = response.body ? JSON.parse(response.body) : undefined;
    learn(request, response.statusCode, body);
    return { status: response.statusCode, body };
  }

  /** Objects created join the pools of ids the generators pick from. */
  function learn(request: FuzzRequest, status: number, body: any) {
    if (status === 201 && request.operation.template === '/v1/environments')
      pools.environments.add(body.data.name);
    if (status === 201 && request.operation.template === '/v1/variables') pools.variables.add(body.data.name);
    if (status !== 201 || !body?.data?.id) return;
    if (request.operation.template === '/v1/rules') pools.rules.set(body.data.id, body.data.ruleType);
    if (request.operation.template === '/v1/groups') pools.groups.add(body.data.id);
    if (request.operation.template === '/v1/keys') pools.keys.add(body.data.id);
    if (request.operation.template === '/v1/test-suites') pools.suites.add(body.data.id);
    if (request.operation.template === '/v1/webhooks') pools.webhooks.add(body.data.id);
  }

  /** A PUT of a rule whose pairs or ruleType are not of the stored type: the state decides. */
  function otherTypeThanStored(request: FuzzRequest): boolean {
    if (request.operation.template !== '/v1/rules/{ruleId}' || request.operation.method !== 'PUT')
      return false;
    const stored = pools.rules.get(request.path.ruleId ?? '');
    const body = request.body as { ruleType?: string; pairs?: unknown[] };
    if (!stored) return false;
    if (body.ruleType !== undefined && body.ruleType !== stored) return true;
    const pairSchema = `/components/schemas/${stored}PairInput`;
    return (body.pairs ?? []).some((pair) => requests.problems(pairSchema, pair).length > 0);
  }

  /**
   * A write refused for what the state decides: an environment it names (a variable's `values`, a key's
   * `environment`) deleted meanwhile, a secret made plain (`secret: false`) without its values, or a
   * value kept (null) in an environment where the variable has none.
   */
  function variableState(request: FuzzRequest, reply: { body: unknown }): boolean {
    const { code, details = [] } = (reply.body ?? {}) as { code?: string; details?: { message: string }[] };
    const gone = (d: { message: string }) => d.message.startsWith('the workspace has no environment');
    if (code === 'KEY_PAYLOAD_INVALID' && details.length > 0 && details.every(gone)) return true;
    if (code !== 'VARIABLE_PAYLOAD_INVALID' || !request.operation.template.startsWith('/v1/variables'))
      return false;
    if (details.length > 0 && details.every(gone)) return true;
    const body = request.body as { secret?: boolean; values?: Record<string, unknown> };
    return body.secret === false || Object.values(body.values ?? {}).includes(null);
  }

  const describe = (request: FuzzRequest, reply: { status: number; body: unknown }) =>
    `${request.operation.method} ${urlOf(request)} ${JSON.stringify(request.header)} ${JSON.stringify(request.body)?.slice(0, 1500)}\n→ ${reply.status} ${JSON.stringify(reply.body)?.slice(0, 1500)}`;

  const anyRequest = (among = operations) =>
    fc.constantFrom(...among).chain((operation) => requestArbitrary(document, operation, pools));
  /** Whether the document says the operation needs no credential (`security: []`: the ways to sign in). */
  const isPublic = (operation: Operation) =>
    document.paths[operation.template][operation.method.toLowerCase()].security?.length === 0;

  it('takes every request valid by the document, unless its state-dependent answer applies', {
    timeout,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest(), async (request) => {
        if (problems(request).length > 0) {
          stats.skipped += 1;
          fc.pre(false);
        }
        const reply = await send(request);
        const code = (reply.body as { code?: string } | undefined)?.code ?? '';
        const taken =
          reply.status < 300 ||
          (reply.status === 304 && 'If-None-Match' in request.header) ||
          STATE_DEPENDENT.has(code) ||
          (code === 'PRECONDITION_FAILED' && 'If-Match' in request.header) ||
          variableState(request, reply) ||
          variablesRefusal(code, reply.body) ||
          (['RULE_TYPE_UPDATE_NOT_ALLOWED', 'RULE_PAIRS_INVALID'].includes(code) &&
            otherTypeThanStored(request));
        expect(taken, describe(request, reply)).toBe(true);
      }),
      { seed, numRuns, maxSkipsPerRun: 1000 },
    );
  });

  it('refuses every request with one constraint broken, with an error the operation documents', {
    timeout,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest(), fc.nat(), async (request, choice) => {
        // An import that reports (a dry run) or skips invalid records answers 200 by design.
        delete request.query.dryRun;
        if (request.query.onError === 'skip') delete request.query.onError;
        const broken = problems(request).length === 0 ? mutated(request, choice) : undefined;
        if (!broken || problems(broken.request).length === 0) {
          stats.skipped += 1;
          fc.pre(false);
          return;
        }
        const reply = await send(broken.request);
        const where = `${broken.what}: ${describe(broken.request, reply)}`;
        expect(reply.status >= 400 && reply.status < 500, where).toBe(true);
        expect([401, 403, 429], where).not.toContain(reply.status);
      }),
      { seed, numRuns, maxSkipsPerRun: 1000 },
    );
  });

  // A fuzzer may expect 406 here; the document says 401, which is what a missing credential is.
  it('answers any request without a key 401 API_KEY_REQUIRED, as every operation but the public ones documents', {
    timeout,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        anyRequest(operations.filter((operation) => !isPublic(operation))),
        async (request) => {
          const reply = await send(request, null);
          expect(reply, describe(request, reply)).toMatchObject({
            status: 401,
            body: { code: 'API_KEY_REQUIRED' },
          });
        },
      ),
      { seed, numRuns: Math.ceil(numRuns / 2) },
    );
  });

  // Every method a path of the document does not list is 405 naming those it lists, with or without a
  // key: also on a literal path beside a parameter (/v1/rules/deleted beside /v1/rules/{ruleId}), which
  // the router would otherwise hand to the parameter's route, as an id.
  it('answers 405 with its Allow to every other method on every path of the document', async () => {
    const fill = (template: string) =>
      template.replace(/\{([^}]+)\}/g, (_, name: string) =>
        name === 'ruleId' ? ([...pools.rules.keys()][0] ?? '') : ([...pools.groups][0] ?? ''),
      );
    let checked = 0;
    for (const [template, methods] of Object.entries<object>(document.paths)) {
      const listed = Object.keys(methods)
        .map((m) => m.toUpperCase())
        .sort();
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !listed.includes(m)))
        for (const key of [ownerKey, null]) {
          const reply = await t.app.inject({
            method: method as 'GET',
            url: fill(template),
            headers: key ? { 'x-api-key': key } : {},
          });
          const where = `${method} ${fill(template)} (${key ? 'with' : 'without'} a key) → ${reply.statusCode} ${reply.body}`;
          expect(reply.statusCode, where).toBe(405);
          // HEAD, where a GET answers it too, is no operation of the document.
          const allow = String(reply.headers.allow).split(', ');
          expect(
            allow.filter((m) => m !== 'HEAD'),
            where,
          ).toStrictEqual(listed);
          checked += 1;
        }
    }
    expect(checked).toBeGreaterThan(50);
  });

  // Pure generation, but thousands of samples: on a loaded 2-core machine it has taken over 70 s. The
  // document is one for both databases, so it is sampled once, beside SQLite.
  it.runIf(db === 'sqlite')(
    'generates requests for every operation, valid ones and broken ones',
    { timeout },
    () => {
      const kinds = new Set<string>();
      const broke = new Set<string>();
      const ruleTypesSent = new Set<unknown>();
      for (const operation of operations) {
        // Enough bodies of POST /v1/rules that each of the ten rule types comes up, and of traces that
        // each exclusive member (ruleIds, rules) does.
        const numRuns =
          operation.method !== 'POST'
            ? 20
            : operation.template === '/v1/rules'
              ? 300
              : operation.template === '/v1/trace'
                ? 60
                : 20;
        for (const request of fc.sample(requestArbitrary(document, operation, pools), { seed, numRuns })) {
          if (operation.template === '/v1/rules' && operation.method === 'POST')
            ruleTypesSent.add((request.body as { ruleType?: unknown }).ruleType);
          for (let choice = 0; choice < mutationCount(request); choice += 1) {
            const broken = mutated(request, choice);
            if (!broken) continue;
            kinds.add(broken.what.split(' at ')[0] as string);
            broke.add(
              `${operation.method} ${operation.template} ${broken.what.replace(/\/[0-9]+\//g, '/N/')}`,
            );
          }
        }
      }
      expect([...kinds].sort()).toEqual(
        expect.arrayContaining([
          'drop required',
          'enum',
          'exclusive members',
          'maxLength',
          'pattern',
          'type',
          'unknown field',
        ]),
      );
      // Every branch of a union: a body of each rule type.
      expect([...ruleTypesSent].sort()).toStrictEqual([...RULE_TYPES].sort());
      // The constraints Schemathesis found looser in the document than in the service, each broken.
      expect([...broke]).toEqual(
        expect.arrayContaining([
          'POST /v1/trace exclusive members at body /',
          'GET /v1/rules pattern at query /groupId',
          'POST /v1/groups pattern at header /Idempotency-Key',
          'POST /v1/groups drop required at body /name',
          'POST /v1/trace drop required at body /rules/N/name',
        ]),
      );
    },
  );
});
