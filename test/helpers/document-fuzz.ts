// Requests generated from the served OpenAPI document (Schemathesis's method, with fast-check): for an
// operation, a request valid by the document, and the same request with one constraint broken. What
// the schemas say only in words (src/plugins/openapi-limits.ts) is kept by generators of their own
// and by `keepWords`, so that a valid request is valid for the service too.
import fc from 'fast-check';
import { keepWords } from './document-fuzz-words.js';
import { locate, type Override, type Path, SchemaArbitraries, type Site } from './schema-arbitrary.js';

export interface Operation {
  method: string;
  template: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: any }[];
  body?: any;
}

export interface FuzzRequest {
  operation: Operation;
  path: Record<string, string>;
  query: Record<string, string>;
  header: Record<string, string>;
  body: unknown;
  /** Where constraints hold: `body`, or a parameter's place (`query`, `path`, `header`) and name. */
  sites: (Site & { in: 'body' | 'path' | 'query' | 'header' })[];
}

/** Ids that exist (or did) in the workspace, for path parameters and references. */
export interface Pools {
  rules: Map<string, string>; // id → rule type
  groups: Set<string>;
  /** User ids of the workspace's members (path parameter userId). */
  members: Set<string>;
  /** Ids of keys the fuzzer made (never the key it calls with, which it would revoke). */
  keys: Set<string>;
  /** Ids of the workspace's test suites (path parameter suiteId). */
  suites: Set<string>;
  /** Webhooks of the workspace, and deliveries of theirs (path parameters webhookId, deliveryId). */
  webhooks: Set<string>;
  deliveries: Set<string>;
  /** Names of the workspace's environments and variables (path parameter name, `values`' keys). */
  environments: Set<string>;
  variables: Set<string>;
}

const URLS = [
  'https://shop.example.com/checkout',
  'http://api.example.com:8080/v1/users',
  'wss://live.example.org/feed',
];
const pick = <T>(list: T[], n: number): T | undefined =>
  list.length === 0 ? undefined : list[n % list.length];

/** Every operation of the document that can be fuzzed (the event stream never ends: left out). */
export function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries<any>(document.paths))
    for (const [method, operation] of Object.entries<any>(methods)) {
      if (template.endsWith('/stream')) continue;
      // A person's session, not a key's: signing in costs a password hash and is limited per address,
      // and a key has no session to show or end. test/api/sessions.test.ts drives these.
      if (template === '/v1/session') continue;
      // Public routes whose credential is a single-use link's token (or an address to mail one to):
      // no key is involved, and a token the document's pattern allows is almost never one that was
      // issued. test/api/invites.test.ts, password-resets.test.ts and mail.test.ts drive them.
      if (['/v1/invites/accept', '/v1/password/forgot', '/v1/password/reset'].includes(template)) continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  return operations;
}

function generated(arb: fc.Arbitrary<unknown>, path: Path, schema: any) {
  return arb.map((value) => ({ value, sites: [{ path, schema, required: true }] }));
}

/** Generators for what the schemas say only in words, by where the value goes. */
function overrides(operation: Operation, pools: Pools): Override {
  const importing = operation.template === '/v1/import';
  const tracing = operation.template === '/v1/trace';
  return (path, schema) => {
    const last = path.at(-1);
    if (tracing && (path.join('/') === 'request/url' || path.join('/') === 'request/pageUrl')) {
      const url = fc.tuple(
        fc.nat(),
        fc.string({ unit: fc.constantFrom(...'abcxyz019-'.split('')), maxLength: 12 }),
      );
      return generated(
        url.map(([n, tail]) => `${pick(URLS, n)}/${tail}`),
        path,
        schema,
      );
    }
    if (tracing && path.length === 1 && last === 'ruleIds') {
      return generated(fc.subarray([...pools.rules.keys()], { maxLength: 3 }), path, schema);
    }
    if (last === 'groupId' && schema.type === 'string') {
      const groups = importing ? [] : [...pools.groups];
      return generated(
        fc.nat().map((n) => pick(['', ...groups], n) ?? ''),
        path,
        schema,
      );
    }
    // A variable's values in environments the workspace has (any other is 400, as the document says).
    if (last === 'values' && operation.template.startsWith('/v1/variables')) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a value may not hold.
      const value = fc.string({ maxLength: 20 }).filter((v) => !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(v));
      return generated(
        fc.dictionary(fc.constantFrom(...pools.environments), value, { maxKeys: 3 }),
        path,
        schema,
      );
    }
    // A key bound to an environment the workspace has, or to none.
    if (last === 'environment' && operation.template === '/v1/keys')
      return generated(fc.constantFrom(null, ...pools.environments), path, schema);
    // The instance's MAX_DELAY_MS (the default) is below the schema's maximum.
    if (last === 'delay') return generated(fc.integer({ min: 0, max: 60_000 }), path, schema);
    return undefined;
  };
}

/** One arbitrary request of `operation`, valid by the document's schemas (words kept by `keepWords`). */
export function requestArbitrary(
  document: any,
  operation: Operation,
  pools: Pools,
): fc.Arbitrary<FuzzRequest> {
  const arbitraries = new SchemaArbitraries(document, overrides(operation, pools));
  const parameter = (p: Operation['parameters'][number]) => {
    const arb =
      p.in === 'path'
        ? fc.oneof(
            {
              weight: 4,
              arbitrary: fc
                .nat()
                .map((n) => pathId(operation.template, p.name, pools, n))
                .filter((id) => id !== undefined),
            },
            { weight: 1, arbitrary: arbitraries.arbitrary(p.schema, []).map((g) => g.value as string) },
          )
        : arbitraries.arbitrary(p.schema, []).map((g) => String(g.value));
    const sites = [{ path: [p.name], schema: arbitraries.resolve(p.schema) as any, required: !!p.required }];
    const value = arb.map((v) => ({ name: p.name, in: p.in, value: v as string, sites }));
    return p.required ? value : fc.option(value, { nil: undefined, freq: 2 });
  };
  const body = operation.body
    ? arbitraries.arbitrary(operation.body, [])
    : fc.constant({ value: undefined, sites: [] as Site[] });
  return fc.tuple(fc.tuple(...operation.parameters.map(parameter)), body).map(([parameters, b]) => {
    const request: FuzzRequest = { operation, path: {}, query: {}, header: {}, body: b.value, sites: [] };
    // A counterexample reads as the request sent, not as the schemas it came from.
    Object.defineProperty(request, fc.toStringMethod, {
      value: () =>
        `${operation.method} ${urlOf(request)} ${JSON.stringify(request.header)} ${JSON.stringify(request.body)}`,
    });
    for (const p of parameters) {
      if (!p) continue;
      request[p.in][p.name] = p.value;
      request.sites.push(...p.sites.map((s) => ({ ...s, in: p.in })));
    }
    request.sites.push(...b.sites.map((s) => ({ ...s, in: 'body' as const })));
    keepWords(request);
    return request;
  });
}

function pathId(template: string, name: string, pools: Pools, n: number): string | undefined {
  if (name === 'ruleId') return pick([...pools.rules.keys()], n);
  if (template.startsWith('/v1/keys/')) return pick([...pools.keys], n);
  if (name === 'suiteId') return pick([...pools.suites], n);
  if (template.startsWith('/v1/variables/')) return pick([...pools.variables], n) ?? 'MISSING';
  if (template.startsWith('/v1/environments/')) return pick([...pools.environments], n);
  // Removed by an earlier request, a pool may be empty: an id of the documented form then, not found.
  if (name === 'webhookId') return pick([...pools.webhooks], n) ?? 'whk_zzzzzzzzzzzz';
  if (name === 'deliveryId') return pick([...pools.deliveries], n) ?? 'dlv_zzzzzzzzzzzz';
  return pick([...(name === 'userId' ? pools.members : pools.groups)], n);
}

const DROP = Symbol('drop');
const UNLISTED = 'zz-not-listed';

/** The ways to break the constraints of a site: each gives the value to put there (or DROP). */
export function breakers(
  site: FuzzRequest['sites'][number],
): { kind: string; make(old: unknown): unknown }[] {
  const s = site.schema;
  const list: { kind: string; make(old: unknown): unknown }[] = [];
  const parameter = site.in !== 'body';
  // A Redirect pair without destinationType is an older form the service takes (a URL): not a break.
  if (site.required && site.path.length > 0 && !parameter && site.path.at(-1) !== 'destinationType')
    list.push({ kind: 'drop required', make: () => DROP });
  if (!parameter && typeof s.type === 'string')
    list.push({ kind: 'type', make: () => (s.type === 'boolean' ? 'x' : true) });
  if (s.type === 'string') {
    if (s.maxLength !== undefined && s.maxLength < 20_000)
      list.push({ kind: 'maxLength', make: () => 'x'.repeat(s.maxLength + 1) });
    if (s.minLength > 0) list.push({ kind: 'minLength', make: () => 'x'.repeat(s.minLength - 1) });
    if (s.pattern) {
      const pattern = new RegExp(s.pattern, 'u');
      // Not empty first: an empty path parameter would name another route. A NUL last (text no
      // database stores), where a header cannot carry it: the HTTP parser refuses it before the service.
      const candidates = ['!', 'x!x', ' ', '0', 'ftp:x', '', ...(site.in === 'header' ? [] : ['x\0x'])];
      const miss = candidates.find((c) => !pattern.test(c));
      if (miss !== undefined) list.push({ kind: 'pattern', make: () => miss });
    }
  }
  const branches: any[] = s.anyOf ?? s.oneOf ?? [];
  if (
    s.enum ||
    s.const !== undefined ||
    (branches.length > 0 && branches.every((b) => b.enum || b.const !== undefined))
  )
    list.push({ kind: 'enum', make: () => UNLISTED });
  if (s.type === 'integer' || s.type === 'number') {
    if (s.maximum !== undefined) list.push({ kind: 'maximum', make: () => s.maximum + 1 });
    if (s.minimum !== undefined) list.push({ kind: 'minimum', make: () => s.minimum - 1 });
    if (s.type === 'integer') list.push({ kind: 'integer', make: () => (s.minimum ?? 0) + 0.5 });
  }
  if (s.type === 'array') {
    if (s.minItems > 0) list.push({ kind: 'minItems', make: () => [] });
    if (s.maxItems !== undefined && s.maxItems <= 2000)
      list.push({
        kind: 'maxItems',
        make: (old) =>
          Array.from({ length: s.maxItems + 1 }, (_, i) =>
            structuredClone((old as unknown[])[i % Math.max((old as unknown[]).length, 1)] ?? 'x'),
          ),
      });
  }
  const excluded = site.excluded;
  if (excluded)
    list.push({ kind: 'exclusive members', make: (old) => ({ ...(old as object), ...excluded }) });
  if (
    (s.type === 'object' || s.properties) &&
    (s.additionalProperties === false || s.unevaluatedProperties === false)
  )
    list.push({ kind: 'unknown field', make: (old) => ({ ...(old as object), fuzzUnknownField: 1 }) });
  return list;
}

/** How many ways there are to break one constraint of `request` (the choices `mutated` takes). */
export function mutationCount(request: FuzzRequest): number {
  return request.sites.reduce((sum, site) => sum + breakers(site).length, 0);
}

/** `request` with one constraint broken (`choice` picks which), or undefined when nothing could be. */
export function mutated(
  request: FuzzRequest,
  choice: number,
): { request: FuzzRequest; what: string } | undefined {
  const options = request.sites.flatMap((site) => breakers(site).map((b) => ({ site, ...b })));
  const chosen = options[choice % Math.max(options.length, 1)];
  if (!chosen) return undefined;
  const copy: FuzzRequest = {
    ...request,
    path: { ...request.path },
    query: { ...request.query },
    header: { ...request.header },
    body: structuredClone(request.body),
  };
  const { site } = chosen;
  const what = `${chosen.kind} at ${site.in} /${site.path.join('/')}`;
  if (site.in !== 'body') {
    const name = site.path[0] as string;
    const value = chosen.make(copy[site.in][name]);
    if (value === DROP || typeof value !== 'string') return undefined;
    copy[site.in][name] = value;
    return { request: copy, what };
  }
  if (site.path.length === 0) {
    const value = chosen.make(copy.body);
    if (value === DROP) return undefined;
    copy.body = value;
    return { request: copy, what };
  }
  const place = locate(copy.body, site.path);
  if (!place) return undefined;
  const value = chosen.make(place.parent[place.key]);
  if (value === DROP) {
    if (Array.isArray(place.parent)) return undefined;
    delete place.parent[place.key];
  } else place.parent[place.key] = value;
  return { request: copy, what };
}

/** The URL of a request: its path with the parameters in place, and its query. */
export function urlOf(request: FuzzRequest): string {
  const path = request.operation.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(request.path[name] ?? ''),
  );
  const query = new URLSearchParams(request.query).toString();
  return query ? `${path}?${query}` : path;
}
