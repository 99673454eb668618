// What every fuzzed answer must be: a documented status for its endpoint, the documented JSON body,
// and no change when the request was refused. Shared by the fuzz suite's properties.
import { expect } from 'vitest';
import { type ErrorCode, errorTable } from '../../src/errors.js';
import { GROUP_FIELDS as GROUP_SCHEMA_FIELDS } from '../../src/model/group.js';
import { ruleFieldsOf } from '../../src/model/rule.js';
import { type QueryPart, wellFormed } from './fuzz-requests.js';
import type { TestApp } from './test-app.js';

const SINGLE = ['GET', 'PUT'] as const;
export type Endpoint =
  | 'GET /rules'
  | 'POST /rules'
  | `${(typeof SINGLE)[number] | 'DELETE'} /rules/:id`
  | 'GET /groups'
  | 'POST /groups'
  | `${(typeof SINGLE)[number] | 'DELETE'} /groups/:id`;

const BODY: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
const RULE_ID: ErrorCode[] = ['RULE_NOT_FOUND', 'UNAUTHORIZED_ACTION', 'PRECONDITION_FAILED'];
const GROUP_ID: ErrorCode[] = [
  'INVALID_GROUP_ID',
  'GROUP_NOT_FOUND',
  'UNAUTHORIZED_ACTION',
  'PRECONDITION_FAILED',
];
const RULE_BODY: ErrorCode[] = [
  'RULE_PAYLOAD_INVALID',
  'RULE_PAIRS_INVALID',
  'GROUP_NOT_FOUND',
  'UNAUTHORIZED_ACTION',
];
const GROUP_BODY: ErrorCode[] = ['GROUP_PAYLOAD_INVALID', 'GROUP_NAME_REQUIRED'];

/** The errors each endpoint may answer with a valid key (decisions, section 2); nothing else is documented. */
export const ENDPOINT_ERRORS: Record<Endpoint, ErrorCode[]> = {
  'GET /rules': ['INVALID_QUERY'],
  'POST /rules': [...RULE_BODY, ...BODY],
  'GET /rules/:id': RULE_ID,
  'PUT /rules/:id': [...RULE_ID, ...RULE_BODY, 'RULE_TYPE_UPDATE_NOT_ALLOWED', ...BODY],
  'DELETE /rules/:id': RULE_ID,
  'GET /groups': ['INVALID_QUERY'],
  'POST /groups': [...GROUP_BODY, ...BODY],
  'GET /groups/:id': GROUP_ID,
  'PUT /groups/:id': [...GROUP_ID, ...GROUP_BODY, ...BODY],
  'DELETE /groups/:id': GROUP_ID,
};

/** The fields of a rule and of a group as answered, sorted: their schemas'. */
/** A rule's fields, sorted: those of its type (a Script rule also has removeCSPHeader). */
export const ruleFields = (ruleType: unknown): string[] => [...ruleFieldsOf(String(ruleType))].sort();
export const GROUP_FIELDS: string[] = [...GROUP_SCHEMA_FIELDS].sort();

export interface Exchange {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

/** Fuzzed requests of the current database's run, by status (reset in each suite's beforeAll). */
export const fuzzStats = { requests: 0, byStatus: {} as Record<number, number> };

/** One fuzzed request with the owner's key; `payload` is sent as is. */
export async function send(
  t: TestApp,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: string,
  contentType = 'application/json',
): Promise<Exchange> {
  fuzzStats.requests += 1;
  const headers: Record<string, string> = { 'x-api-key': t.owner.key };
  if (payload !== undefined) headers['content-type'] = contentType;
  const response = await t.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = { unparsable: response.body.slice(0, 500) };
  }
  fuzzStats.byStatus[response.statusCode] = (fuzzStats.byStatus[response.statusCode] ?? 0) + 1;
  return { status: response.statusCode, body, headers: response.headers };
}

/** The answer is documented for `endpoint` (or, with `routing`, a path that no longer names it). */
export function expectDocumented(endpoint: Endpoint, reply: Exchange, routing = false): void {
  const seen = JSON.stringify({ status: reply.status, body: reply.body }).slice(0, 2000);
  expect(String(reply.headers['content-type']), seen).toMatch(/^application\/json/);
  expect(reply.headers['x-request-id'], seen).toEqual(expect.any(String));
  const { body } = reply;
  if (reply.status < 300) {
    const [method, path] = endpoint.split(' ') as [string, string];
    const created = method === 'POST';
    expect(reply.status, seen).toBe(created ? 201 : 200);
    if (method === 'DELETE') {
      expect(Object.keys(body).sort(), seen).toStrictEqual(['message', 'success']);
      expect(body.message, seen).toEqual(expect.any(String));
    } else if (path === '/rules' || path === '/groups') {
      if (!created) {
        expect(Object.keys(body).sort(), seen).toStrictEqual(['data', 'nextOffset', 'success', 'total']);
        expect(Array.isArray(body.data) && Number.isInteger(body.total), seen).toBe(true);
      }
    }
    if (created || (method !== 'DELETE' && path.endsWith(':id'))) {
      // A rule's write also answers what the rule lint finds about it (never a refusal).
      const rule = path.startsWith('/rules');
      const linted = rule && method !== 'GET';
      expect(Object.keys(body).sort(), seen).toStrictEqual(
        linted ? ['data', 'success', 'warnings'] : ['data', 'success'],
      );
      if (linted) expect(Array.isArray(body.warnings), seen).toBe(true);
      const fields = rule ? ruleFields(body.data.ruleType) : GROUP_FIELDS;
      expect(Object.keys(body.data).sort(), seen).toStrictEqual(fields);
    }
    expect(body.success, seen).toBe(true);
    return;
  }
  const allowed: string[] = [
    ...ENDPOINT_ERRORS[endpoint],
    ...(routing ? ['ROUTE_NOT_FOUND', 'METHOD_NOT_ALLOWED'] : []),
  ];
  expect(allowed, seen).toContain(body.code);
  const entry = errorTable[body.code as ErrorCode];
  const keys = Object.keys(body)
    .filter((k) => k !== 'details')
    .sort();
  expect(keys, seen).toStrictEqual(['code', 'message', 'requestId', 'success']);
  expect({ status: reply.status, success: body.success, message: body.message }, seen).toStrictEqual({
    status: entry.status,
    success: false,
    message: entry.message,
  });
  expect(body.requestId, seen).toBe(reply.headers['x-request-id']);
  if (body.details !== undefined) {
    expect(Array.isArray(body.details), seen).toBe(true);
    for (const detail of body.details) {
      expect(Object.keys(detail).sort(), seen).toStrictEqual(['message', 'path']);
      expect(typeof detail.path === 'string' && typeof detail.message === 'string', seen).toBe(true);
    }
  }
}

export interface Snapshot {
  owner: { rules: any[]; groups: any[] };
  outsider: { rules: any[]; groups: any[] };
}

async function lists(t: TestApp, key: string) {
  const read = async (path: string) => {
    const reply = await t.app.inject({ method: 'GET', url: `/v1/${path}`, headers: { 'x-api-key': key } });
    expect(reply.statusCode, reply.body).toBe(200);
    return JSON.parse(reply.body).data as any[];
  };
  return { rules: await read('rules'), groups: await read('groups') };
}

/** Both workspaces as their lists show them. */
export async function snapshot(t: TestApp): Promise<Snapshot> {
  return { owner: await lists(t, t.owner.key), outsider: await lists(t, t.outsider.key) };
}

/** Group counts are derived from rules; an accepted rule write may move them. */
const withoutCounts = (groups: any[]) => groups.map(({ ruleCount, activeRuleCount, ...group }) => group);

/**
 * After an accepted write of `touched` (null for a deletion of `id`): only that object changed, and it
 * reads back exactly as returned; the other workspace did not change at all.
 */
export function expectOnlyChanged(
  before: Snapshot,
  after: Snapshot,
  kind: 'rules' | 'groups',
  id: string | undefined,
  touched: unknown,
): void {
  expect(after.outsider).toStrictEqual(before.outsider);
  const others = ({ owner }: Snapshot) => ({
    rules: owner.rules.filter((item) => kind !== 'rules' || item.id !== id),
    groups: withoutCounts(owner.groups.filter((item) => kind !== 'groups' || item.id !== id)),
  });
  expect(others(after)).toStrictEqual(others(before));
  const listed = after.owner[kind].filter((item) => item.id === id);
  if (touched === null) expect(listed).toStrictEqual([]);
  else expect(kind === 'groups' ? withoutCounts(listed) : listed).toStrictEqual([touched]);
}

/** Nothing reachable through Object.prototype was added (prototype pollution). */
export function expectPrototypesClean(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).filter((k) => k.includes('polluted'))).toStrictEqual(
    [],
  );
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** The fields of two objects that differ, both values shown (for a failure message). */
export function differences(a: Record<string, unknown>, b: Record<string, unknown>): string {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  return [...keys]
    .filter((k) => JSON.stringify(a?.[k]) !== JSON.stringify(b?.[k]))
    .map((k) => `${k}: ${JSON.stringify(a?.[k])?.slice(0, 200)} ≠ ${JSON.stringify(b?.[k])?.slice(0, 200)}`)
    .join('; ');
}

/** When every query part was percent-encoded and no key repeats, a 200 honours the filters it names. */
export function expectFiltered(rules: Record<string, unknown>[], parts: QueryPart[]): void {
  if (!parts.every((p) => p.encoded) || new Set(parts.map((p) => p.key)).size !== parts.length) return;
  const query = Object.fromEntries(parts.map((p) => [wellFormed(p.key), wellFormed(p.value)]));
  for (const rule of rules) {
    if (query.status !== undefined) expect(rule.status).toBe(query.status);
    if (query.ruleType !== undefined) expect(rule.ruleType).toBe(query.ruleType);
    if (query.groupId !== undefined) expect(rule.groupId).toBe(query.groupId);
    if (query.search !== undefined)
      expect(String(rule.name).toLowerCase()).toContain(query.search.toLowerCase());
  }
}
