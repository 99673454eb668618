// Shared pieces of the black-box API tests: the documented errors, body assertions and small builders.
// The expected messages, codes and statuses are written out from the decisions (spec/decisions.md,
// section 2), not imported from src/, so that a change in the service cannot change what is expected.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

export type Reply = Awaited<ReturnType<TestApp['call']>>;
export type Json = Record<string, unknown>;

export const ERRORS = {
  RULE_PAYLOAD_INVALID: [400, 'Rule Payload is invalid'],
  RULE_PAIRS_INVALID: [400, 'Rule pairs are invalid'],
  RULE_TYPE_UPDATE_NOT_ALLOWED: [400, 'Rule Type update not allowed'],
  GROUP_PAYLOAD_INVALID: [400, 'Invalid Group Payload'],
  GROUP_NAME_REQUIRED: [400, 'Group Name Required'],
  INVALID_GROUP_ID: [400, 'Invalid Group Id'],
  INVALID_QUERY: [400, 'Invalid query'],
  INVALID_TRACE_REQUEST: [400, 'Invalid trace request'],
  IMPORT_INVALID: [400, 'Import is invalid'],
  MEMBER_PAYLOAD_INVALID: [400, 'Invalid member payload'],
  SIGN_IN_PAYLOAD_INVALID: [400, 'Invalid sign-in payload'],
  KEY_PAYLOAD_INVALID: [400, 'Invalid key payload'],
  USER_PAYLOAD_INVALID: [400, 'Invalid user payload'],
  INVITE_PAYLOAD_INVALID: [400, 'Invalid invite payload'],
  PASSWORD_RESET_PAYLOAD_INVALID: [400, 'Invalid password reset payload'],
  TEST_SUITE_PAYLOAD_INVALID: [400, 'Invalid test suite payload'],
  HITS_PAYLOAD_INVALID: [400, 'Invalid hits report'],
  WEBHOOK_PAYLOAD_INVALID: [400, 'Invalid webhook payload'],
  MALFORMED_REQUEST: [400, 'Malformed request'],
  API_KEY_REQUIRED: [401, 'API key required'],
  API_KEY_INVALID: [401, 'Invalid API key'],
  // Decision 18 names the sign-in refusal; the other session messages are the service's.
  INVALID_CREDENTIALS: [401, 'Invalid credentials'],
  SESSION_INVALID: [401, 'Session ended or expired'],
  SESSION_REQUIRED: [401, 'Sign-in required'],
  UNAUTHORIZED_ACTION: [403, 'Unauthorized action'],
  CSRF_REFUSED: [403, 'Cross-site request refused'],
  RULE_NOT_FOUND: [404, 'Rule not found'],
  GROUP_NOT_FOUND: [404, 'Group not found'],
  VERSION_NOT_FOUND: [404, 'Version not found'],
  MEMBER_NOT_FOUND: [404, 'Member not found'],
  KEY_NOT_FOUND: [404, 'Key not found'],
  INVITE_NOT_FOUND: [404, 'Invite not found'],
  TEST_SUITE_NOT_FOUND: [404, 'Test suite not found'],
  WEBHOOK_NOT_FOUND: [404, 'Webhook not found'],
  DELIVERY_NOT_FOUND: [404, 'Delivery not found'],
  ROUTE_NOT_FOUND: [404, 'Route not found'],
  // Decision 1 gives the status only; the message is the service's error table's.
  METHOD_NOT_ALLOWED: [405, 'Method not allowed'],
  MEMBER_EXISTS: [409, 'Already a member'],
  USER_EXISTS: [409, 'User already exists'],
  LAST_OWNER: [409, 'A workspace keeps at least one owner'],
  REVIEW_REQUIRED: [409, 'Review required'],
  CHANGE_REQUEST_STATE: [409, "Not allowed in the change request's state"],
  CHANGE_REQUEST_CONFLICT: [409, 'Changed since the change request was made'],
  SETTINGS_PAYLOAD_INVALID: [400, 'Invalid settings payload'],
  CHANGE_REQUEST_PAYLOAD_INVALID: [400, 'Invalid change request payload'],
  CHANGE_REQUEST_NOT_FOUND: [404, 'Change request not found'],
  USER_CANNOT_SIGN_IN: [409, 'User cannot sign in'],
  TEST_SUITE_EXISTS: [409, 'Test suite name taken'],
  TEST_SUITES_FULL: [409, 'Too many test suites'],
  WEBHOOK_LIMIT: [409, 'Webhook limit reached'],
  // Decisions §20 names the routes; the messages are the service's error table's.
  ENVIRONMENT_PAYLOAD_INVALID: [400, 'Invalid environment payload'],
  VARIABLE_PAYLOAD_INVALID: [400, 'Invalid variable payload'],
  ENVIRONMENT_NOT_FOUND: [404, 'Environment not found'],
  VARIABLE_NOT_FOUND: [404, 'Variable not found'],
  ENVIRONMENT_EXISTS: [409, 'Environment name taken'],
  ENVIRONMENTS_FULL: [409, 'Too many environments'],
  ENVIRONMENT_IN_USE: [409, 'Environment in use'],
  VARIABLE_EXISTS: [409, 'Variable name taken'],
  VARIABLES_FULL: [409, 'Too many variables'],
  PRECONDITION_FAILED: [412, 'Precondition failed'],
  CHANGES_EXPIRED: [410, 'Changes no longer kept'],
  LINK_INVALID: [410, 'Link expired or already used'],
  PAYLOAD_TOO_LARGE: [413, 'Payload too large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported media type'],
  RATE_LIMITED: [429, 'Too many requests'],
  SIGN_IN_LIMITED: [429, 'Too many failed sign-ins'],
  TIME_LIMIT_EXCEEDED: [503, 'Time limit exceeded'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorName = keyof typeof ERRORS;

/** A detail at `path` with some non-blank message. */
export function at(path: string, message: unknown = expect.stringMatching(/\S/)): Json {
  return { path, message };
}

/** Details that may be left out, but when present must be exactly these. */
export class MaybeDetails {
  constructor(readonly details: Json[]) {}
}
export const maybe = (...details: Json[]) => new MaybeDetails(details);

/**
 * The response is the documented error: its status, and a body of exactly success, message, code,
 * requestId (equal to the X-Request-Id header) and, when `details` is given, those details.
 */
export function expectError(reply: Reply, name: ErrorName, details?: Json[] | MaybeDetails): void {
  const [status, message] = ERRORS[name];
  const requestId = reply.headers['x-request-id'];
  expect(typeof requestId === 'string' && requestId.length > 0, 'X-Request-Id header').toBe(true);
  expect(String(reply.headers['content-type'])).toMatch(/^application\/json/);
  const expected: Json = { success: false, message, code: name, requestId };
  // The order of details is not part of the contract: both sides are compared sorted by path.
  const byPath = (list: Json[]) => [...list].sort((a, b) => String(a.path).localeCompare(String(b.path)));
  const body =
    reply.body && typeof reply.body === 'object' && Array.isArray(reply.body.details)
      ? { ...reply.body, details: byPath(reply.body.details) }
      : reply.body;
  if (details instanceof MaybeDetails) {
    if (body && typeof body === 'object' && 'details' in body) expected.details = byPath(details.details);
  } else if (details) {
    expected.details = byPath(details);
  }
  // status and body together, so that a failure shows both
  expect({ status: reply.status, body }).toStrictEqual({ status, body: expected });
}

/** The paths of an error's details, sorted. */
export function detailPaths(reply: Reply): string[] {
  return ((reply.body?.details ?? []) as { path: string }[]).map((d) => d.path).sort();
}

export function uniqueName(prefix = 'item'): string {
  return `${prefix} ${randomBytes(6).toString('hex')}`;
}

export const GENERATED_SUFFIX = /^[0-9a-z]{5}$/;
export const ruleIdOf = (ruleType: string) => new RegExp(`^${ruleType}_[0-9a-z]{5}$`);
export const GROUP_ID = /^Group_[0-9a-z]{5}$/;

export function cancelPair(value = 'ads.example.com'): Json {
  return { source: { key: 'host', operator: 'Equals', value } };
}

export function redirectPair(destination = 'https://staging.example.com/api'): Json {
  return {
    source: { key: 'Url', operator: 'Contains', value: 'example.com/api' },
    destinationType: 'url',
    destination,
  };
}

/** A raw JSON text body (the helper's `call` sends objects as JSON itself). */
export function rawJson(text: string): { body: string; headers: Record<string, string> } {
  return { body: text, headers: { 'content-type': 'application/json' } };
}

/** POST /v1/rules with a valid Cancel rule plus `fields`; fails the test unless it is created. */
export async function createRule(t: TestApp, fields: Json = {}, key?: string): Promise<Json> {
  const body = { name: uniqueName('rule'), ruleType: 'Cancel', pairs: [cancelPair()], ...fields };
  const reply = await t.call('POST', '/v1/rules', { body, ...(key ? { key } : {}) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data;
}

/** POST /v1/groups with a unique name plus `fields`; fails the test unless it is created. */
export async function createGroup(t: TestApp, fields: Json = {}, key?: string): Promise<Json> {
  const body = { name: uniqueName('group'), ...fields };
  const reply = await t.call('POST', '/v1/groups', { body, ...(key ? { key } : {}) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.data;
}

export async function getRule(t: TestApp, id: unknown): Promise<Json> {
  const reply = await t.call('GET', `/v1/rules/${id}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

export async function getGroup(t: TestApp, id: unknown): Promise<Json> {
  const reply = await t.call('GET', `/v1/groups/${id}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

/** Everything the owner's workspace holds, as the lists show it: to compare before and after. */
export async function snapshot(t: TestApp, key?: string): Promise<{ rules: Json; groups: Json }> {
  const options = key ? { key } : {};
  const rules = await t.call('GET', '/v1/rules', options);
  const groups = await t.call('GET', '/v1/groups', options);
  expect(rules.status).toBe(200);
  expect(groups.status).toBe(200);
  return { rules: rules.body, groups: groups.body };
}

/** The timestamp window of a write: a generated timestamp must fall inside it. */
export function within(before: number, after: number): unknown {
  return expect.toSatisfy(
    (value: unknown) => Number.isInteger(value) && (value as number) >= before && (value as number) <= after,
  );
}
