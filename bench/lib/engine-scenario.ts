// The rule engine's scenarios: `engine` (in process: one request against 100 to 10,000 mixed rules of
// every type, through the indexed fast path) and `trace` (POST /v1/trace over HTTP against a
// workspace of 1,000 rules), with their targets.
import { compileRuleSet, type EngineRule, toEngineRequest } from '../../src/engine/index.js';
import type { Scenario } from './load.js';
import { median } from './load.js';
import { type Target, targetList } from './report.js';
import { ruleBody } from './rule-bodies.js';
import { headersFor, pool, post } from './seed-api.js';
import type { Store } from './setups.js';

/**
 * Sources of rule `n`, as a real workspace holds them: most name a host or a page of their own, some
 * share a domain, one in 512 is a pattern with no literal part (which every request must try).
 */
function sourceOf(n: number): Record<string, string> {
  switch (n % 8) {
    case 0:
      return { key: 'host', operator: 'Equals', value: `api-${n}.example.com` };
    case 1:
      return { key: 'Url', operator: 'Contains', value: `shop-${n}.example.com/checkout` };
    case 2:
      return { key: 'Url', operator: 'Wildcard_Matches', value: `*://cdn-${n}.example.com/*` };
    case 3:
      return {
        key: 'Url',
        operator: 'Matches',
        value: `/^https:\\/\\/svc-${n}\\.example\\.com\\/v[0-9]+\\//`,
      };
    case 4:
      return { key: 'path', operator: 'Equals', value: `/app-${n}/index.html` };
    case 5:
      return { key: 'host', operator: 'Contains', value: `tenant-${n}.example.org` };
    case 6:
      return { key: 'path', operator: 'Contains', value: `/graphql/op-${n}` };
    default:
      return n % 512 === 7
        ? { key: 'Url', operator: 'Matches', value: '/^https?:\\/\\/[a-z]+\\.[a-z]+\\//' }
        : { key: 'Url', operator: 'Wildcard_Matches', value: `*://*.example.net/area-${n}/*` };
  }
}

/** Rule `n` of a mixed workspace: every type in turn (the seed's bodies), each source its own. */
export function mixedRule(n: number) {
  const body = ruleBody(n);
  return { ...body, pairs: body.pairs.map((pair) => ({ ...pair, source: sourceOf(n) })) };
}

/** What each request must do in every rule set, checked before timing: the figures measure that. */
const REQUESTS = {
  'a few match': { url: 'https://api-64.example.com/graphql/op-78', acts: 2 }, // host Equals, path Contains
  redirected: { url: 'https://api-40.example.com/v1/users/7', acts: 1 }, // then matched again on its target
  'none match': { url: 'https://www.unrelated.test/products?page=2', acts: 0 },
};

export interface EngineFacts {
  rules: number;
  compile_ms: number;
  /** Median microseconds per evaluation, by request. */
  evaluate_us: Record<string, number>;
  /** Microseconds to explain every rule for one request (what POST /v1/trace does). */
  trace_us: number;
}

function microsPerCall(run: () => void, batch: number, batches: number): number {
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const began = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) run();
    samples.push(Number(process.hrtime.bigint() - began) / 1000 / batch);
  }
  return Math.round(median(samples) * 100) / 100;
}

export function measureEngine(sizes: number[], quick: boolean): EngineFacts[] {
  return sizes.map((size) => {
    const rules: EngineRule[] = Array.from({ length: size }, (_, n) => {
      const { ruleType, status, name, pairs } = mixedRule(n);
      return { id: `${ruleType}_${n}`, name, ruleType, status, pairs };
    });
    const began = performance.now();
    const set = compileRuleSet(rules);
    const compileMs = Math.round((performance.now() - began) * 10) / 10;
    const evaluate: Record<string, number> = {};
    let first = undefined as ReturnType<typeof toEngineRequest> | undefined;
    for (const [label, { url, acts }] of Object.entries(REQUESTS)) {
      const request = toEngineRequest({ url, resourceType: 'xmlhttprequest' });
      if ('details' in request) throw new Error(`engine bench: bad request ${url}`);
      const acted = set.evaluate(request).acted.length;
      if (acted !== acts) throw new Error(`engine bench: ${url} met ${acted} rules of ${size}, not ${acts}`);
      first ??= request;
      for (let i = 0; i < 2000; i++) set.evaluate(request); // warm-up: JIT and the regex cache
      evaluate[label] = microsPerCall(() => set.evaluate(request), quick ? 200 : 1000, quick ? 5 : 21);
    }
    const request = first as Exclude<typeof first, undefined | { details: unknown }>;
    const traceUs = microsPerCall(() => set.trace(request), quick ? 2 : 5, quick ? 3 : 9);
    return { rules: size, compile_ms: compileMs, evaluate_us: evaluate, trace_us: Math.round(traceUs) };
  });
}

export function engineLines(facts: EngineFacts[]): string[] {
  const labels = Object.keys(REQUESTS);
  return [
    `engine (in process, median µs per request): rules | ${labels.join(' | ')} | full trace | compile ms`,
    ...facts.map(
      (f) =>
        `  ${String(f.rules).padStart(6)} | ${labels.map((l) => String(f.evaluate_us[l])).join(' | ')} | ${f.trace_us} | ${f.compile_ms}`,
    ),
  ];
}

export function engineTargets(facts: EngineFacts[]): Target[] {
  const [list, add] = targetList();
  const [small, big] = [facts.find((f) => f.rules === 1000), facts.find((f) => f.rules === 10_000)];
  add(
    'engine: 10,000 rules, median µs per request',
    big && Math.max(...Object.values(big.evaluate_us)),
    100,
    '<=',
  );
  // Per request, the worst ratio: a cheap request must not hide a steep one.
  const growth =
    small && big
      ? Math.max(...Object.keys(REQUESTS).map((l) => (big.evaluate_us[l] ?? 0) / (small.evaluate_us[l] ?? 1)))
      : undefined;
  add('engine: growth from 1,000 to 10,000 rules (worst request)', growth, 3, '<=');
  return list;
}

/**
 * POST /v1/trace over HTTP, explaining every rule, the rules that acted, or none: the last other workspace of the seed, topped up to `rules` with the
 * engine's mixed rules 0, 1, … (no other scenario reads it), traced with the request that two of
 * those (64 and 78, so at least 79 are added) and some of the seed's example rules match.
 */
export async function traceScenarios(
  store: string,
  { service, seeded }: Store,
  rules: number,
): Promise<Scenario[]> {
  const workspace = seeded.others.at(-1);
  if (!workspace) throw new Error('trace: the seed has no other workspace');
  const missing = Math.max(0, rules - workspace.ruleIds.length);
  await pool(missing, 16, (i) => post(`${service.url}/v1/rules`, workspace.key, mixedRule(i)));
  const trace = (name: string, path: string): Scenario => ({
    name,
    store,
    ceiling: 'get',
    target: { url: service.url, pid: service.pid },
    requests: [
      {
        method: 'POST',
        path,
        headers: headersFor(workspace.key, true),
        body: JSON.stringify({
          request: { url: REQUESTS['a few match'].url, resourceType: 'xmlhttprequest' },
        }),
      },
    ],
  });
  // Every rule explained; only the rules that acted (the fast path); the outcome alone.
  return [
    trace('trace', '/v1/trace'),
    trace('trace-acted', '/v1/trace?explain=acted'),
    trace('trace-none', '/v1/trace?explain=none'),
  ];
}
