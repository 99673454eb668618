// Security headers on every response, success or error, API or not (the set @fastify/helmet sends by
// default, and a Cache-Control that keeps per-key answers out of shared caches).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';

const t = useTestApp();

const cancel = {
  name: 'h',
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a' } }],
};
const json = { 'content-type': 'application/json' };

// biome-ignore format: a table
const RESPONSES: [title: string, method: 'GET' | 'POST' | 'PATCH', url: string, key: 'owner' | 'none', payload?: string, headers?: Record<string, string>][] = [
  ['200 list', 'GET', '/v1/rules', 'owner'],
  ['201 create', 'POST', '/v1/rules', 'owner', JSON.stringify(cancel), json],
  ['400 invalid body', 'POST', '/v1/rules', 'owner', '{}', json],
  ['401 without a key', 'GET', '/v1/rules', 'none'],
  ['404 unknown route', 'GET', '/v1/nowhere', 'owner'],
  ['405 wrong method', 'PATCH', '/v1/rules', 'owner'],
  ['413 body too large', 'POST', '/v1/rules', 'owner', `"${'x'.repeat(2 * 1024 * 1024)}"`, json],
  ['415 not JSON', 'POST', '/v1/rules', 'owner', 'name=x', { 'content-type': 'text/plain' }],
  ['health', 'GET', '/healthz', 'none'],
  ['OpenAPI document', 'GET', '/v1/openapi.json', 'none'],
];

describe('every response carries the security headers', () => {
  it.each(RESPONSES)('%s', async (_title, method, url, key, payload, headers = {}) => {
    const reply = await t.app.inject({
      method,
      url,
      headers: { ...headers, ...(key === 'owner' ? { 'x-api-key': t.owner.key } : {}) },
      ...(payload === undefined ? {} : { payload }),
    });
    expect({
      nosniff: reply.headers['x-content-type-options'],
      frameOptions: reply.headers['x-frame-options'],
      referrerPolicy: reply.headers['referrer-policy'],
      contentSecurityPolicy: typeof reply.headers['content-security-policy'],
      crossOriginResourcePolicy: reply.headers['cross-origin-resource-policy'],
      poweredBy: reply.headers['x-powered-by'],
      cacheControl: reply.headers['cache-control'],
    }).toStrictEqual({
      nosniff: 'nosniff',
      frameOptions: expect.stringMatching(/^(DENY|SAMEORIGIN)$/),
      referrerPolicy: expect.stringMatching(/\S/),
      contentSecurityPolicy: 'string',
      crossOriginResourcePolicy: expect.stringMatching(/^(same-origin|same-site)$/),
      poweredBy: undefined,
      // Per-key answers are never kept by a shared cache.
      cacheControl: 'private, no-cache',
    });
  });
});
