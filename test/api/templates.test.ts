// The console's rule templates (console/src/templates/templates.ts) do what their titles say: each is
// accepted by POST /v1/rules as it is, then traced against a request it is written for (the effect its
// summary promises) and one it is not (nothing happens).
import { describe, expect, it } from 'vitest';
import { TEMPLATES } from '../../console/src/templates/templates.js';
import type { Json } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

interface Example {
  request: Json;
  /** What the outcome holds when the template acts. */
  acts: (outcome: Json) => void;
  /** A request the template leaves alone. */
  untouched: Json;
}

const EXAMPLES: Record<string, Example> = {
  'cors-local': {
    request: {
      url: 'http://127.0.0.1:3000/api/users',
      headers: { origin: 'http://localhost:5173' },
      pageUrl: 'http://localhost:5173/',
    },
    acts: (outcome) =>
      expect(outcome.responseHeaders).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            header: 'Access-Control-Allow-Origin',
            type: 'Add',
            value: 'http://localhost:5173',
          }),
          expect.objectContaining({ header: 'Access-Control-Allow-Credentials', type: 'Add', value: 'true' }),
          expect.objectContaining({ header: 'Access-Control-Allow-Headers', type: 'Add', value: '*' }),
        ]),
      ),
    untouched: { url: 'https://api.example.com/users', headers: { origin: 'https://www.example.com' } },
  },
  'remove-csp': {
    request: { url: 'https://app.example.com/', resourceType: 'main_frame' },
    acts: (outcome) =>
      expect(outcome.responseHeaders).toEqual([
        expect.objectContaining({ header: 'Content-Security-Policy', type: 'Remove' }),
        expect.objectContaining({ header: 'Content-Security-Policy-Report-Only', type: 'Remove' }),
      ]),
    untouched: { url: 'https://www.example.com/', resourceType: 'main_frame' },
  },
  'mock-api': {
    request: { url: 'https://api.example.com/v1/user', resourceType: 'xmlhttprequest' },
    acts: (outcome) => {
      expect(outcome.response).toMatchObject({ type: 'static', statusCode: 200, serveWithoutRequest: true });
      expect(JSON.parse((outcome.response as Json).value as string)).toEqual({
        id: 1,
        name: 'Ada Lovelace',
        plan: 'pro',
      });
    },
    untouched: { url: 'https://api.example.com/v1/orders', resourceType: 'xmlhttprequest' },
  },
  'simulate-404': {
    request: { url: 'https://api.example.com/v1/orders/7' },
    acts: (outcome) =>
      expect(outcome.response).toMatchObject({
        statusCode: 404,
        statusText: 'Not Found',
        serveWithoutRequest: true,
      }),
    untouched: { url: 'https://api.example.com/v1/user' },
  },
  'slow-api': {
    request: { url: 'https://api.example.com/v1/user' },
    acts: (outcome) => expect(outcome.delayMs).toBe(3000),
    untouched: { url: 'https://www.example.com/' },
  },
  'scripts-to-localhost': {
    request: { url: 'https://cdn.example.com/app/main.js', resourceType: 'script' },
    acts: (outcome) => {
      expect(outcome.url).toBe('http://localhost:8080/app/main.js');
      expect(outcome.redirected).toBe(true);
    },
    // The same file fetched as data, not loaded as a script.
    untouched: { url: 'https://cdn.example.com/app/main.js', resourceType: 'xmlhttprequest' },
  },
  'strip-tracking': {
    request: {
      url: 'https://shop.example.com/p?id=7&utm_source=news&utm_medium=mail&utm_campaign=x&fbclid=abc&gclid=def',
    },
    acts: (outcome) => expect(outcome.url).toBe('https://shop.example.com/p?id=7'),
    untouched: { url: 'https://shop.example.com/p?id=7&utmost=1' },
  },
  'auth-localhost': {
    request: { url: 'http://localhost:8000/api/me' },
    acts: (outcome) => expect(outcome.requestHeaders).toMatchObject({ authorization: 'Bearer YOUR_TOKEN' }),
    untouched: { url: 'https://localhost.example.com/api/me' },
  },
  'mobile-user-agent': {
    request: {
      url: 'https://www.example.com/',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' },
    },
    acts: (outcome) =>
      expect((outcome.requestHeaders as Json)['user-agent']).toMatch(/iPhone.*Mobile.*Safari/),
    untouched: {
      url: 'https://www.example.org/',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' },
    },
  },
  'inject-script': {
    request: { url: 'https://app.example.com/dashboard', resourceType: 'main_frame' },
    acts: (outcome) =>
      expect(outcome.scripts).toEqual([
        expect.objectContaining({
          type: 'code',
          codeType: 'js',
          value: "console.log('Injected by Rulekeeper on', location.href);",
        }),
      ]),
    untouched: { url: 'https://www.example.com/', resourceType: 'main_frame' },
  },
  'block-tracker': {
    request: { url: 'https://www.google-analytics.com/g/collect?v=2', resourceType: 'script' },
    acts: (outcome) => expect(outcome.cancelled).toBe(true),
    untouched: { url: 'https://notgoogle-analytics.com/g/collect' },
  },
  'api-to-staging': {
    request: { url: 'https://api.example.com/v1/user?id=1' },
    acts: (outcome) => expect(outcome.url).toBe('https://api.staging.example.com/v1/user?id=1'),
    untouched: { url: 'https://www.example.com/v1/user?id=1' },
  },
};

/** The outcome of a request nothing acts on, to compare an untouched request with. */
function unchanged(outcome: Json, url: string) {
  expect(outcome).toMatchObject({
    cancelled: false,
    url: new URL(url).href,
    redirected: false,
    responseHeaders: [],
    delayMs: 0,
    response: null,
    scripts: [],
  });
}

describe('rule templates', () => {
  const t = useTestApp();

  it('are at least ten, with distinct ids, and each has an example here', () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(10);
    const ids = TEMPLATES.map((template) => template.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(Object.keys(EXAMPLES).sort());
  });

  it.each(TEMPLATES.map((template) => [template.id, template] as const))(
    '%s is accepted as it is and acts as described, on its requests only',
    async (id, template) => {
      const created = await t.call('POST', '/v1/rules', { body: template.rule });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.warnings).toEqual([]);
      const ruleId = created.body.data.id;
      const example = EXAMPLES[id] as Example;

      const traced = await t.call('POST', '/v1/trace', {
        body: { request: example.request, ruleIds: [ruleId] },
      });
      expect(traced.status, JSON.stringify(traced.body)).toBe(200);
      expect(traced.body.data.rules).toEqual([
        expect.objectContaining({ ruleId, acted: true, reason: 'acted' }),
      ]);
      example.acts(traced.body.data.outcome);

      const other = await t.call('POST', '/v1/trace', {
        body: { request: example.untouched, ruleIds: [ruleId] },
      });
      expect(other.status, JSON.stringify(other.body)).toBe(200);
      expect(other.body.data.rules).toEqual([expect.objectContaining({ ruleId, acted: false })]);
      unchanged(other.body.data.outcome, example.untouched.url as string);
      await t.call('DELETE', `/v1/rules/${ruleId}`);
    },
  );
});
