// matching.md section 4 as a table written by hand: what each of the ten types does, and every
// precedence rule (first wins, all act, chained URL changes, Redirect ends them, Cancel stops all,
// inactive rules). Every case also checks the indexed fast path against the full trace (see run()).
import { describe, expect, it } from 'vitest';
import type { EngineRule, Outcome, Reason, RequestInput } from '../../src/engine/index.js';
import { toEngineRequest } from '../../src/engine/index.js';
import {
  ANY,
  cancel,
  headers,
  type Json,
  queryParam,
  redirect,
  replace,
  rule,
  run,
  src,
  verdict,
} from './engine-helpers.js';

const URL_A = 'https://shop.example.com/a/a?x=1#f';

interface Case {
  title: string;
  rules: EngineRule[];
  request?: RequestInput;
  includeInactive?: boolean;
  outcome?: Partial<Outcome>;
  /** Reason of each rule listed in the trace, in trace order. */
  reasons?: [string, Reason][];
  overriddenBy?: Record<string, string>;
}

function check({ rules, request = { url: URL_A }, includeInactive, outcome, reasons, overriddenBy }: Case) {
  const trace = run(rules, request, includeInactive);
  if (outcome) expect(trace.outcome).toMatchObject(outcome);
  if (reasons) expect(trace.rules.map((r) => [r.ruleId, r.reason])).toEqual(reasons);
  for (const r of trace.rules) {
    expect(r.acted).toBe(r.reason === 'acted');
    if (r.reason !== 'overridden' && r.reason !== 'cancelled') expect(r.overriddenBy).toBeUndefined();
    if (r.reason === 'cancelled') expect(r.overriddenBy).toBeDefined();
  }
  for (const [ruleId, by] of Object.entries(overriddenBy ?? {})) {
    expect(verdict(trace, ruleId).overriddenBy).toBe(by);
  }
}

const CLEAN: Outcome = {
  cancelled: false,
  url: URL_A,
  redirected: false,
  requestHeaders: {},
  responseHeaders: [],
  delayMs: 0,
  requestBody: null,
  response: null,
  scripts: [],
};

const userAgent = (id: string, source: Json, value: string) =>
  rule(id, 'UserAgent', [{ source, userAgent: value }]);
const delay = (id: string, source: Json, ms: number) => rule(id, 'Delay', [{ source, delay: ms }]);
const body = (id: string, source: Json, type: string, value: string) =>
  rule(id, 'Request', [{ source, type, value }]);
const respond = (id: string, source: Json, fields: Json) => rule(id, 'Response', [{ source, ...fields }]);
const JS = { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'window.a = 1' };
const script = (id: string, source: Json, scripts: Json[] = [JS]) =>
  rule(id, 'Script', [{ source, scripts }]);

describe('what each type does (section 4)', () => {
  it.each<Case>([
    { title: 'no rule: the request as it came', rules: [], outcome: CLEAN, reasons: [] },
    {
      title: 'no rule matches: nothing changes',
      rules: [cancel('c', src('host', 'Equals', 'other.example.com'))],
      outcome: CLEAN,
      reasons: [['c', 'no_pair_matched']],
    },
    {
      title: 'Cancel: the request is cancelled, its URL unchanged',
      rules: [cancel('c', ANY)],
      outcome: { ...CLEAN, cancelled: true },
      reasons: [['c', 'acted']],
    },
    {
      title: 'Redirect: the URL becomes the destination',
      rules: [redirect('r', ANY, 'https://staging.example.com/b')],
      outcome: { ...CLEAN, url: 'https://staging.example.com/b', redirected: true },
      reasons: [['r', 'acted']],
    },
    {
      title: 'Redirect: the destination is serialised like any URL',
      rules: [redirect('r', ANY, 'HTTPS://Staging.Example.com:443')],
      outcome: { url: 'https://staging.example.com/', redirected: true },
    },
    {
      title: 'Redirect to the URL it already has is no redirect: no_change',
      rules: [redirect('r', ANY, URL_A)],
      outcome: { url: URL_A, redirected: false },
      reasons: [['r', 'no_change']],
    },
    {
      title: 'Redirect map_local: a local file, as a file: URL',
      rules: [redirect('r', ANY, '/home/me/app.js', 'map_local')],
      outcome: { url: 'file:///home/me/app.js', redirected: true },
    },
    {
      title: 'Redirect map_local: a file name with a space or brackets never breaks the engine',
      rules: [redirect('r', ANY, 'my mock [1].json', 'mock_or_file_picker')],
      outcome: { url: 'file:///my%20mock%20[1].json', redirected: true },
    },
    {
      title: 'Redirect map_local: a Windows path',
      rules: [redirect('r', ANY, 'C:\\mocks\\app.js', 'map_local')],
      outcome: { url: 'file:///C:/mocks/app.js', redirected: true },
    },
    {
      title: 'Redirect map_local to a web URL goes to that URL',
      rules: [redirect('r', ANY, 'https://cdn.example.com/app.js', 'map_local')],
      outcome: { url: 'https://cdn.example.com/app.js', redirected: true },
    },
    {
      title: 'Replace: a plain from, its first occurrence only',
      rules: [replace('p', ANY, '/a', '/b')],
      outcome: { url: 'https://shop.example.com/b/a?x=1#f', redirected: true },
    },
    {
      title: 'Replace: a regular expression without g replaces the first match',
      rules: [replace('p', ANY, '/\\/a/', '/b')],
      outcome: { url: 'https://shop.example.com/b/a?x=1#f', redirected: true },
    },
    {
      title: 'Replace: a regular expression with g replaces every match',
      rules: [replace('p', ANY, '/\\/a/g', '/b')],
      outcome: { url: 'https://shop.example.com/b/b?x=1#f', redirected: true },
    },
    {
      title: 'Replace: a regular expression with i',
      rules: [replace('p', ANY, '/SHOP/i', 'store')],
      outcome: { url: 'https://store.example.com/a/a?x=1#f', redirected: true },
    },
    {
      title: 'Replace: a plain from is literal text, not a pattern (absent: no_change)',
      rules: [replace('p', ANY, 'a.a', 'z')],
      outcome: { url: URL_A, redirected: false },
      reasons: [['p', 'no_change']],
    },
    {
      title: 'Replace: from not in the URL changes nothing',
      rules: [replace('p', ANY, 'nowhere', 'x')],
      outcome: { url: URL_A, redirected: false },
    },
    {
      title: 'Replace: an empty to removes from',
      rules: [replace('p', ANY, '?x=1', '')],
      outcome: { url: 'https://shop.example.com/a/a#f', redirected: true },
    },
    {
      title: 'Replace: a result that is not a web URL is not applied',
      rules: [replace('p', ANY, 'https:', 'ftp:')],
      outcome: { url: URL_A, redirected: false },
    },
    {
      title: 'QueryParam Add: an absent parameter is appended',
      rules: [queryParam('q', ANY, [{ param: 'debug', type: 'Add', value: 'true' }])],
      outcome: { url: 'https://shop.example.com/a/a?x=1&debug=true#f', redirected: true },
    },
    {
      title: 'QueryParam Add: a present one keeps its place, takes the value, its repeats go',
      request: { url: 'https://e.com/?a=1&b=2&a=3' },
      rules: [queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '9' }])],
      outcome: { url: 'https://e.com/?a=9&b=2', redirected: true },
    },
    {
      title: 'QueryParam Add with Ignore: a present parameter is left alone',
      request: { url: 'https://e.com/?a=1' },
      rules: [
        queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '9', actionWhenParamExists: 'Ignore' }]),
      ],
      outcome: { url: 'https://e.com/?a=1', redirected: false },
    },
    {
      title: 'QueryParam Add with Ignore: an absent parameter is added',
      request: { url: 'https://e.com/?b=1' },
      rules: [
        queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '9', actionWhenParamExists: 'Ignore' }]),
      ],
      outcome: { url: 'https://e.com/?b=1&a=9', redirected: true },
    },
    {
      title: 'QueryParam Add to a URL without a query, before its fragment',
      request: { url: 'https://e.com/p#f' },
      rules: [queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '1' }])],
      outcome: { url: 'https://e.com/p?a=1#f', redirected: true },
    },
    {
      title: 'QueryParam Add encodes the value',
      request: { url: 'https://e.com/p' },
      rules: [queryParam('q', ANY, [{ param: 'q', type: 'Add', value: 'a b&c' }])],
      outcome: { url: 'https://e.com/p?q=a%20b%26c' },
    },
    {
      title: 'QueryParam Remove removes every occurrence',
      request: { url: 'https://e.com/?a=1&b=2&a=3' },
      rules: [queryParam('q', ANY, [{ param: 'a', type: 'Remove' }])],
      outcome: { url: 'https://e.com/?b=2', redirected: true },
    },
    {
      title: 'QueryParam Remove of the only parameter leaves no query',
      request: { url: 'https://e.com/p?a=1' },
      rules: [queryParam('q', ANY, [{ param: 'a', type: 'Remove' }])],
      outcome: { url: 'https://e.com/p', redirected: true },
    },
    {
      title: 'QueryParam Remove of an absent parameter changes nothing',
      request: { url: 'https://e.com/p?a=1' },
      rules: [queryParam('q', ANY, [{ param: 'b', type: 'Remove' }])],
      outcome: { url: 'https://e.com/p?a=1', redirected: false },
    },
    {
      title: 'QueryParam Remove of an absent parameter on an empty query changes nothing',
      request: { url: 'https://e.com/p?' },
      rules: [queryParam('q', ANY, [{ param: 'b', type: 'Remove' }])],
      outcome: { url: 'https://e.com/p?', redirected: false },
    },
    {
      title: 'QueryParam Remove All removes the whole query, keeps the fragment',
      rules: [queryParam('q', ANY, [{ type: 'Remove All' }])],
      outcome: { url: 'https://shop.example.com/a/a#f', redirected: true },
    },
    {
      title: 'QueryParam modifications in order: Remove All, then Add',
      rules: [queryParam('q', ANY, [{ type: 'Remove All' }, { param: 'y', type: 'Add', value: '2' }])],
      outcome: { url: 'https://shop.example.com/a/a?y=2#f', redirected: true },
    },
    {
      title: 'QueryParam modifications in order: Add, then Remove it',
      rules: [
        queryParam('q', ANY, [
          { param: 'y', type: 'Add', value: '2' },
          { param: 'y', type: 'Remove' },
        ]),
      ],
      outcome: { url: URL_A, redirected: false },
    },
    {
      title: 'Headers: request headers Add, response headers listed with the rule',
      rules: [
        headers(
          'h',
          ANY,
          [{ header: 'X-Debug', type: 'Add', value: '1' }],
          [{ header: 'Server', type: 'Remove' }],
        ),
      ],
      outcome: {
        requestHeaders: { 'x-debug': '1' },
        responseHeaders: [{ header: 'Server', type: 'Remove', ruleId: 'h' }],
        url: URL_A,
        redirected: false,
      },
    },
    {
      title: 'Headers Add to a present header: several values, an array',
      request: { url: URL_A, headers: { Accept: 'text/html' } },
      rules: [headers('h', ANY, [{ header: 'accept', type: 'Add', value: 'application/json' }])],
      outcome: { requestHeaders: { accept: ['text/html', 'application/json'] } },
    },
    {
      title: 'Headers Modify replaces the values of a present header (names case-insensitive)',
      request: { url: URL_A, headers: { 'X-Env': ['a', 'b'] } },
      rules: [headers('h', ANY, [{ header: 'x-ENV', type: 'Modify', value: 'c' }])],
      outcome: { requestHeaders: { 'x-env': 'c' } },
    },
    {
      title: 'Headers Modify of an absent header does nothing: no_change',
      request: { url: URL_A, headers: { Accept: '*/*' } },
      rules: [headers('h', ANY, [{ header: 'X-Env', type: 'Modify', value: 'c' }])],
      outcome: { requestHeaders: { accept: '*/*' } },
      reasons: [['h', 'no_change']],
    },
    {
      title: 'Headers Remove removes every value',
      request: { url: URL_A, headers: { Cookie: ['a=1', 'b=2'], Accept: '*/*' } },
      rules: [headers('h', ANY, [{ header: 'cookie', type: 'Remove' }])],
      outcome: { requestHeaders: { accept: '*/*' } },
    },
    {
      title: 'Headers changes apply in order: Remove, then Add',
      request: { url: URL_A, headers: { 'X-A': '1' } },
      rules: [
        headers('h', ANY, [
          { header: 'X-A', type: 'Remove' },
          { header: 'X-A', type: 'Add', value: '2' },
        ]),
      ],
      outcome: { requestHeaders: { 'x-a': '2' } },
    },
    {
      title: 'Headers response changes listed in order, with values',
      rules: [
        headers(
          'h',
          ANY,
          [],
          [
            { header: 'Cache-Control', type: 'Modify', value: 'no-store' },
            { header: 'X-Frame-Options', type: 'Add', value: 'DENY' },
          ],
        ),
      ],
      outcome: {
        requestHeaders: {},
        responseHeaders: [
          { header: 'Cache-Control', type: 'Modify', value: 'no-store', ruleId: 'h' },
          { header: 'X-Frame-Options', type: 'Add', value: 'DENY', ruleId: 'h' },
        ],
      },
    },
    {
      title: 'request headers are reported lower-case, several values as an array',
      request: { url: URL_A, headers: { 'X-Debug': '1', ACCEPT: ['a', 'b'] } },
      rules: [],
      outcome: { requestHeaders: { 'x-debug': '1', accept: ['a', 'b'] } },
    },
    {
      title: 'UserAgent: the User-Agent header is set, replacing the one sent',
      request: { url: URL_A, headers: { 'User-Agent': 'curl/8' } },
      rules: [userAgent('u', ANY, 'Mozilla/5.0 (iPhone)')],
      outcome: { requestHeaders: { 'user-agent': 'Mozilla/5.0 (iPhone)' } },
    },
    {
      title: 'Delay: the request waits',
      rules: [delay('d', ANY, 250)],
      outcome: { ...CLEAN, delayMs: 250 },
    },
    {
      title: 'Delay of 0 acts and waits nothing',
      rules: [delay('d', ANY, 0)],
      outcome: { delayMs: 0 },
      reasons: [['d', 'acted']],
    },
    {
      title: 'Request static: the body is replaced',
      request: { url: URL_A, method: 'POST', body: '{"a":1}' },
      rules: [body('b', ANY, 'static', '{"a":2}')],
      outcome: { requestBody: { ruleId: 'b', type: 'static', value: '{"a":2}' } },
    },
    {
      title: 'Request code: reported, not run',
      rules: [body('b', ANY, 'code', 'function modifyRequestBody(a) { return "x"; }')],
      outcome: {
        requestBody: { ruleId: 'b', type: 'code', value: 'function modifyRequestBody(a) { return "x"; }' },
      },
    },
    {
      title: 'Response static: status 200 by default, served with the request',
      rules: [respond('s', ANY, { type: 'static', value: '{"ok":true}' })],
      outcome: {
        response: {
          ruleId: 's',
          type: 'static',
          value: '{"ok":true}',
          statusCode: 200,
          serveWithoutRequest: false,
        },
      },
    },
    {
      title: 'Response with status, status text, and without the request',
      rules: [
        respond('s', ANY, {
          type: 'static',
          value: 'gone',
          statusCode: 404,
          statusText: 'Not Found',
          serveWithoutRequest: true,
        }),
      ],
      outcome: {
        response: {
          ruleId: 's',
          type: 'static',
          value: 'gone',
          statusCode: 404,
          statusText: 'Not Found',
          serveWithoutRequest: true,
        },
      },
    },
    {
      title: 'Response code: reported, not run',
      rules: [
        respond('s', ANY, {
          type: 'code',
          value: 'function modifyResponse(a) {}',
          serveWithoutRequest: false,
        }),
      ],
      outcome: {
        response: {
          ruleId: 's',
          type: 'code',
          value: 'function modifyResponse(a) {}',
          statusCode: 200,
          serveWithoutRequest: false,
        },
      },
    },
    {
      title: 'Script: injected into a main frame',
      request: { url: URL_A, resourceType: 'main_frame' },
      rules: [script('s', ANY)],
      outcome: { scripts: [{ ruleId: 's', ...JS }] },
      reasons: [['s', 'acted']],
    },
    {
      title: 'Script: injected into a sub frame',
      request: { url: URL_A, resourceType: 'sub_frame' },
      rules: [script('s', ANY)],
      outcome: { scripts: [{ ruleId: 's', ...JS }] },
    },
    {
      title: 'Script: injected when the type is unknown',
      rules: [script('s', ANY)],
      outcome: { scripts: [{ ruleId: 's', ...JS }] },
    },
    {
      title: 'Script: never into an XHR',
      request: { url: URL_A, resourceType: 'xmlhttprequest' },
      rules: [script('s', ANY)],
      outcome: { scripts: [] },
      reasons: [['s', 'no_pair_matched']],
    },
    {
      title: 'Script: never into a stylesheet or an image',
      request: { url: URL_A, resourceType: 'stylesheet' },
      rules: [script('s', ANY), script('t', ANY)],
      outcome: { scripts: [] },
      reasons: [
        ['s', 'no_pair_matched'],
        ['t', 'no_pair_matched'],
      ],
    },
    {
      title: 'Script: every script of the pair, in order, with their fields',
      request: { url: URL_A, resourceType: 'main_frame' },
      rules: [
        script('s', ANY, [
          {
            type: 'url',
            codeType: 'css',
            loadTime: 'beforePageLoad',
            value: 'https://cdn.example.com/a.css',
            attributes: [{ name: 'media', value: 'screen' }],
          },
          JS,
        ]),
      ],
      outcome: {
        scripts: [
          {
            ruleId: 's',
            type: 'url',
            codeType: 'css',
            loadTime: 'beforePageLoad',
            value: 'https://cdn.example.com/a.css',
            attributes: [{ name: 'media', value: 'screen' }],
          },
          { ruleId: 's', ...JS },
        ],
      },
    },
  ])('$title', check);

  it('Script: the trace says the document check failed, after the source', () => {
    const trace = run([script('s', ANY)], { url: URL_A, resourceType: 'image' });
    const checks = verdict(trace, 's').pairs[0]?.checks ?? [];
    expect(checks.map(({ check, passed }) => [check, passed])).toEqual([
      ['source', true],
      ['document', false],
    ]);
    expect(verdict(trace, 's').pairs[0]?.matched).toBe(false);
  });
});

const HOST_B = src('Url', 'Contains', '/b');

describe('which rules act, and in what order (section 4)', () => {
  it.each<Case>([
    {
      title: 'Cancel: the first one wins, a later Cancel is reported cancelled',
      rules: [cancel('c1', ANY), cancel('c2', ANY)],
      outcome: { cancelled: true },
      reasons: [
        ['c1', 'acted'],
        ['c2', 'cancelled'],
      ],
      overriddenBy: { c2: 'c1' },
    },
    {
      title: 'Cancel: nothing else happens to the request after it',
      request: { url: URL_A, resourceType: 'main_frame' },
      rules: [
        cancel('c', ANY),
        redirect('r', ANY, 'https://other.example.com/'),
        replace('p', ANY, 'shop', 'store'),
        headers('h', ANY, [{ header: 'X-A', type: 'Add', value: '1' }]),
        delay('d', ANY, 100),
        script('s', ANY),
      ],
      outcome: { ...CLEAN, cancelled: true },
      reasons: [
        ['c', 'acted'],
        ['r', 'cancelled'],
        ['p', 'cancelled'],
        ['h', 'cancelled'],
        ['d', 'cancelled'],
        ['s', 'cancelled'],
      ],
      overriddenBy: { r: 'c', p: 'c', h: 'c', d: 'c', s: 'c' },
    },
    {
      title: 'Cancel: a later rule that does not match is no_pair_matched, not cancelled',
      rules: [cancel('c', ANY), delay('d', src('host', 'Equals', 'other.example.com'), 5)],
      reasons: [
        ['c', 'acted'],
        ['d', 'no_pair_matched'],
      ],
    },
    {
      title: 'Cancel after a Redirect matches the redirected URL, and wins: nothing else happens',
      rules: [
        redirect('r', ANY, 'https://blocked.example.net/'),
        cancel('c', src('host', 'Equals', 'blocked.example.net')),
      ],
      outcome: { cancelled: true, url: URL_A, redirected: false },
      reasons: [
        ['r', 'cancelled'],
        ['c', 'acted'],
      ],
      overriddenBy: { r: 'c' },
    },
    {
      title: 'Redirect: the first one wins, the second is overridden by it',
      rules: [
        redirect('r1', ANY, 'https://one.example.com/'),
        redirect('r2', ANY, 'https://two.example.com/'),
      ],
      outcome: { url: 'https://one.example.com/', redirected: true },
      reasons: [
        ['r1', 'acted'],
        ['r2', 'overridden'],
      ],
      overriddenBy: { r2: 'r1' },
    },
    {
      title: 'Redirect: a later Redirect that matches only the new URL is overridden too',
      rules: [
        redirect('r1', ANY, 'https://one.example.com/'),
        redirect('r2', src('host', 'Equals', 'one.example.com'), 'https://two.example.com/'),
      ],
      outcome: { url: 'https://one.example.com/' },
      reasons: [
        ['r1', 'acted'],
        ['r2', 'overridden'],
      ],
      overriddenBy: { r2: 'r1' },
    },
    {
      title: 'Redirect: a later Redirect that does not match is no_pair_matched',
      rules: [
        redirect('r1', ANY, 'https://one.example.com/'),
        redirect('r2', src('host', 'Equals', 'shop.example.com'), 'https://two.example.com/'),
      ],
      reasons: [
        ['r1', 'acted'],
        ['r2', 'no_pair_matched'],
      ],
    },
    {
      title: 'Redirect: a first one that does not match leaves the second to act',
      rules: [
        redirect('r1', src('host', 'Equals', 'x.example.com'), 'https://one.example.com/'),
        redirect('r2', ANY, 'https://two.example.com/'),
      ],
      outcome: { url: 'https://two.example.com/' },
      reasons: [
        ['r1', 'no_pair_matched'],
        ['r2', 'acted'],
      ],
    },
    {
      title: 'Redirect stops URL changes: a later Replace is after_redirect',
      rules: [redirect('r', ANY, 'https://one.example.com/a'), replace('p', ANY, 'one', 'two')],
      outcome: { url: 'https://one.example.com/a', redirected: true },
      reasons: [
        ['r', 'acted'],
        ['p', 'after_redirect'],
      ],
    },
    {
      title: 'Redirect stops URL changes: a later QueryParam is after_redirect',
      rules: [
        redirect('r', ANY, 'https://one.example.com/a'),
        queryParam('q', ANY, [{ param: 'z', type: 'Add', value: '1' }]),
      ],
      outcome: { url: 'https://one.example.com/a' },
      reasons: [
        ['r', 'acted'],
        ['q', 'after_redirect'],
      ],
    },
    {
      title: 'after_redirect only for a URL change whose source matches (the new URL)',
      rules: [
        redirect('r', ANY, 'https://one.example.com/a'),
        replace('p', src('host', 'Equals', 'shop.example.com'), 'a', 'b'),
      ],
      reasons: [
        ['r', 'acted'],
        ['p', 'no_pair_matched'],
      ],
    },
    {
      title: 'after a Redirect, the other effects still act (on the redirected URL)',
      rules: [
        redirect('r', ANY, 'https://one.example.com/a'),
        headers('h', src('host', 'Equals', 'one.example.com'), [{ header: 'X-A', type: 'Add', value: '1' }]),
        delay('d', ANY, 20),
      ],
      outcome: { url: 'https://one.example.com/a', requestHeaders: { 'x-a': '1' }, delayMs: 20 },
      reasons: [
        ['r', 'acted'],
        ['h', 'acted'],
        ['d', 'acted'],
      ],
    },
    {
      title: 'Replace: each acts on the URL left by the ones before',
      rules: [replace('p1', ANY, 'com/a', 'com/b'), replace('p2', HOST_B, 'com/b', 'com/c')],
      outcome: { url: 'https://shop.example.com/c/a?x=1#f', redirected: true },
      reasons: [
        ['p1', 'acted'],
        ['p2', 'acted'],
      ],
    },
    {
      title: 'Replace: a source is matched against the URL as earlier rules left it, not as sent',
      rules: [replace('p1', ANY, 'shop', 'store'), cancel('c', src('host', 'Equals', 'shop.example.com'))],
      outcome: { url: 'https://store.example.com/a/a?x=1#f', cancelled: false },
      reasons: [
        ['p1', 'acted'],
        ['c', 'no_pair_matched'],
      ],
    },
    {
      title: 'Replace then QueryParam, chained',
      rules: [
        replace('p', ANY, 'shop', 'store'),
        queryParam('q', src('host', 'Equals', 'store.example.com'), [{ param: 'x', type: 'Remove' }]),
      ],
      outcome: { url: 'https://store.example.com/a/a#f', redirected: true },
      reasons: [
        ['p', 'acted'],
        ['q', 'acted'],
      ],
    },
    {
      title: 'QueryParam then Replace, chained',
      rules: [
        queryParam('q', ANY, [{ param: 'y', type: 'Add', value: '2' }]),
        replace('p', src('Url', 'Contains', 'y=2'), 'x=1&', ''),
      ],
      outcome: { url: 'https://shop.example.com/a/a?y=2#f', redirected: true },
    },
    {
      title: 'Replace then Redirect: the Redirect matches the replaced URL and its captures',
      rules: [
        replace('p', ANY, 'shop', 'store'),
        redirect(
          'r',
          src('Url', 'Wildcard_Matches', 'https://store.example.com/*'),
          'https://mirror.example.net/$1',
        ),
      ],
      outcome: { url: 'https://mirror.example.net/a/a?x=1#f', redirected: true },
      reasons: [
        ['p', 'acted'],
        ['r', 'acted'],
      ],
    },
    {
      title: 'Replace there and back again: the URL as sent, so no redirect',
      rules: [replace('p1', ANY, 'shop', 'store'), replace('p2', ANY, 'store', 'shop')],
      outcome: { url: URL_A, redirected: false },
      reasons: [
        ['p1', 'acted'],
        ['p2', 'acted'],
      ],
    },
    {
      title: 'Headers: all act, in order',
      rules: [
        headers('h1', ANY, [{ header: 'X-A', type: 'Add', value: '1' }]),
        headers(
          'h2',
          ANY,
          [{ header: 'X-A', type: 'Add', value: '2' }],
          [{ header: 'Server', type: 'Remove' }],
        ),
        headers('h3', ANY, [{ header: 'X-B', type: 'Add', value: '3' }], [{ header: 'Via', type: 'Remove' }]),
      ],
      outcome: {
        requestHeaders: { 'x-a': ['1', '2'], 'x-b': '3' },
        responseHeaders: [
          { header: 'Server', type: 'Remove', ruleId: 'h2' },
          { header: 'Via', type: 'Remove', ruleId: 'h3' },
        ],
      },
      reasons: [
        ['h1', 'acted'],
        ['h2', 'acted'],
        ['h3', 'acted'],
      ],
    },
    {
      title: 'Headers: a later Remove undoes an earlier Add',
      rules: [
        headers('h1', ANY, [{ header: 'X-A', type: 'Add', value: '1' }]),
        headers('h2', ANY, [{ header: 'x-a', type: 'Remove' }]),
      ],
      outcome: { requestHeaders: {} },
    },
    {
      title: 'UserAgent: the first one wins',
      rules: [userAgent('u1', ANY, 'one'), userAgent('u2', ANY, 'two')],
      outcome: { requestHeaders: { 'user-agent': 'one' } },
      reasons: [
        ['u1', 'acted'],
        ['u2', 'overridden'],
      ],
      overriddenBy: { u2: 'u1' },
    },
    {
      title: 'UserAgent then a Headers Modify of user-agent: both act, in order',
      rules: [
        userAgent('u', ANY, 'one'),
        headers('h', ANY, [{ header: 'User-Agent', type: 'Modify', value: 'two' }]),
      ],
      outcome: { requestHeaders: { 'user-agent': 'two' } },
    },
    {
      title: 'Delay: the first one wins',
      rules: [delay('d1', ANY, 100), delay('d2', ANY, 900)],
      outcome: { delayMs: 100 },
      reasons: [
        ['d1', 'acted'],
        ['d2', 'overridden'],
      ],
      overriddenBy: { d2: 'd1' },
    },
    {
      title: 'Request: the first one wins',
      rules: [body('b1', ANY, 'static', 'one'), body('b2', ANY, 'static', 'two')],
      outcome: { requestBody: { ruleId: 'b1', type: 'static', value: 'one' } },
      reasons: [
        ['b1', 'acted'],
        ['b2', 'overridden'],
      ],
      overriddenBy: { b2: 'b1' },
    },
    {
      title: 'Response: the first one wins',
      rules: [
        respond('s1', ANY, { type: 'static', value: 'one' }),
        respond('s2', ANY, { type: 'static', value: 'two', statusCode: 500 }),
      ],
      outcome: {
        response: { ruleId: 's1', type: 'static', value: 'one', statusCode: 200, serveWithoutRequest: false },
      },
      reasons: [
        ['s1', 'acted'],
        ['s2', 'overridden'],
      ],
      overriddenBy: { s2: 's1' },
    },
    {
      title: 'first-one-wins is per type: a Delay and a Redirect both act',
      rules: [delay('d', ANY, 10), redirect('r', ANY, 'https://one.example.com/'), userAgent('u', ANY, 'ua')],
      outcome: { delayMs: 10, url: 'https://one.example.com/', requestHeaders: { 'user-agent': 'ua' } },
      reasons: [
        ['d', 'acted'],
        ['r', 'acted'],
        ['u', 'acted'],
      ],
    },
    {
      title: 'Script: all act, in order',
      request: { url: URL_A, resourceType: 'main_frame' },
      rules: [script('s1', ANY), script('s2', ANY, [{ ...JS, value: 'two()' }])],
      outcome: {
        scripts: [
          { ruleId: 's1', ...JS },
          { ruleId: 's2', ...JS, value: 'two()' },
        ],
      },
      reasons: [
        ['s1', 'acted'],
        ['s2', 'acted'],
      ],
    },
    {
      title: 'rules act in list order: a Headers Add before a Remove, not after',
      rules: [
        headers('h1', ANY, [{ header: 'x-a', type: 'Remove' }]),
        headers('h2', ANY, [{ header: 'X-A', type: 'Add', value: '1' }]),
      ],
      request: { url: URL_A, headers: { 'X-A': '0' } },
      outcome: { requestHeaders: { 'x-a': '1' } },
    },
    {
      title: 'a rule before a Cancel does not act on the cancelled request: reported cancelled',
      rules: [headers('h', ANY, [{ header: 'X-A', type: 'Add', value: '1' }]), cancel('c', ANY)],
      outcome: { ...CLEAN, cancelled: true },
      reasons: [
        ['h', 'cancelled'],
        ['c', 'acted'],
      ],
      overriddenBy: { h: 'c' },
    },
  ])('$title', check);
});

describe('several pairs of one rule', () => {
  const pairOf = (source: Json, fields: Json) => ({ source, ...fields });
  it.each<Case>([
    {
      title: 'Redirect: only the first matching pair acts',
      rules: [
        rule('r', 'Redirect', [
          pairOf(src('host', 'Equals', 'x.example.com'), {
            destinationType: 'url',
            destination: 'https://zero.example.com/',
          }),
          pairOf(ANY, { destinationType: 'url', destination: 'https://one.example.com/' }),
          pairOf(ANY, { destinationType: 'url', destination: 'https://two.example.com/' }),
        ]),
      ],
      outcome: { url: 'https://one.example.com/' },
      reasons: [['r', 'acted']],
    },
    {
      title: 'Headers: every matching pair acts',
      rules: [
        rule('h', 'Headers', [
          pairOf(ANY, { modifications: [{ Request: [{ header: 'X-A', type: 'Add', value: '1' }] }] }),
          pairOf(src('host', 'Equals', 'x.example.com'), {
            modifications: [{ Request: [{ header: 'X-B', type: 'Add', value: '2' }] }],
          }),
          pairOf(ANY, { modifications: [{ Request: [{ header: 'X-C', type: 'Add', value: '3' }] }] }),
        ]),
      ],
      outcome: { requestHeaders: { 'x-a': '1', 'x-c': '3' } },
      reasons: [['h', 'acted']],
    },
    {
      title: 'Replace: each pair acts on the URL the pair before left',
      rules: [
        rule('p', 'Replace', [
          pairOf(ANY, { from: 'shop', to: 'store' }),
          pairOf(src('host', 'Equals', 'store.example.com'), { from: 'store', to: 'mall' }),
        ]),
      ],
      outcome: { url: 'https://mall.example.com/a/a?x=1#f', redirected: true },
    },
    {
      title: 'Delay: the first matching pair decides',
      rules: [
        rule('d', 'Delay', [
          pairOf(src('host', 'Equals', 'x.example.com'), { delay: 5 }),
          pairOf(ANY, { delay: 7 }),
          pairOf(ANY, { delay: 9 }),
        ]),
      ],
      outcome: { delayMs: 7 },
    },
  ])('$title', check);

  it('the trace shows every pair: which matched, which acted', () => {
    const trace = run(
      [
        rule('d', 'Delay', [
          { id: 'p0', source: src('host', 'Equals', 'x.example.com'), delay: 5 },
          { id: 'p1', source: ANY, delay: 7 },
          { id: 'p2', source: ANY, delay: 9 },
        ]),
      ],
      { url: URL_A },
    );
    expect(verdict(trace, 'd').pairs.map((p) => [p.index, p.pairId, p.matched, p.effect])).toEqual([
      [0, 'p0', false, null],
      [1, 'p1', true, { delayMs: 7 }],
      [2, 'p2', true, null],
    ]);
  });
});

describe('inactive rules and groups', () => {
  it.each<Case>([
    {
      title: 'an inactive rule is not evaluated, nor listed',
      rules: [cancel('c', ANY, { status: 'Inactive' })],
      outcome: { ...CLEAN },
      reasons: [],
    },
    {
      title: 'an inactive rule is explained with includeInactive, and changes nothing',
      rules: [cancel('c', ANY, { status: 'Inactive' })],
      includeInactive: true,
      outcome: { ...CLEAN },
      reasons: [['c', 'inactive']],
    },
    {
      title: 'a rule of an inactive group: group_inactive with includeInactive',
      rules: [redirect('r', ANY, 'https://one.example.com/'), cancel('c', ANY, { groupStatus: 'Inactive' })],
      includeInactive: true,
      outcome: { cancelled: false, url: 'https://one.example.com/' },
      reasons: [
        ['r', 'acted'],
        ['c', 'group_inactive'],
      ],
    },
    {
      title: 'a rule of an inactive group is not listed without includeInactive',
      rules: [cancel('c', ANY, { groupStatus: 'Inactive' })],
      outcome: { cancelled: false },
      reasons: [],
    },
    {
      title: 'an active rule of an active group acts',
      rules: [cancel('c', ANY, { groupStatus: 'Active' })],
      outcome: { cancelled: true },
      reasons: [['c', 'acted']],
    },
    {
      title: 'an inactive rule in an inactive group is inactive (its own status first)',
      rules: [cancel('c', ANY, { status: 'Inactive', groupStatus: 'Inactive' })],
      includeInactive: true,
      reasons: [['c', 'inactive']],
    },
    {
      title: 'an inactive first Redirect does not override a later active one',
      rules: [
        redirect('r1', ANY, 'https://one.example.com/'),
        redirect('r2', ANY, 'https://two.example.com/'),
      ].map((r, i) => (i === 0 ? { ...r, status: 'Inactive' } : r)),
      includeInactive: true,
      outcome: { url: 'https://two.example.com/' },
      reasons: [
        ['r1', 'inactive'],
        ['r2', 'acted'],
      ],
    },
    {
      title: 'an inactive Cancel does not cancel later rules',
      rules: [cancel('c', ANY, { status: 'Inactive' }), delay('d', ANY, 30)],
      includeInactive: true,
      outcome: { cancelled: false, delayMs: 30 },
      reasons: [
        ['c', 'inactive'],
        ['d', 'acted'],
      ],
    },
    {
      title: 'an inactive Replace does not change the URL later rules see',
      rules: [
        { ...replace('p', ANY, 'shop', 'store'), status: 'Inactive' },
        cancel('c', src('host', 'Equals', 'shop.example.com')),
      ],
      includeInactive: true,
      outcome: { cancelled: true, url: URL_A, redirected: false },
      reasons: [
        ['p', 'inactive'],
        ['c', 'acted'],
      ],
    },
  ])('$title', check);

  it('an inactive rule still shows whether its pairs match', () => {
    const trace = run(
      [
        cancel('a', ANY, { status: 'Inactive' }),
        cancel('b', src('host', 'Equals', 'x.example.com'), { status: 'Inactive' }),
      ],
      { url: URL_A },
      true,
    );
    expect(verdict(trace, 'a').pairs[0]?.matched).toBe(true);
    expect(verdict(trace, 'a').pairs[0]?.effect).toBeNull();
    expect(verdict(trace, 'b').pairs[0]?.matched).toBe(false);
  });
});

describe('the request (section 1)', () => {
  it.each([
    ['ftp://example.com/'],
    ['/relative/path'],
    ['not a url'],
    ['file:///etc/passwd'],
    ['javascript:alert(1)'],
  ])('%s is refused with a pointer to /url', (url) => {
    expect(toEngineRequest({ url })).toEqual({ details: [expect.objectContaining({ path: '/url' })] });
  });

  it('the method defaults to GET and is reported upper-case', () => {
    expect(toEngineRequest({ url: URL_A })).toMatchObject({ method: 'GET' });
    expect(toEngineRequest({ url: URL_A, method: 'patch' })).toMatchObject({ method: 'PATCH' });
  });

  it('the URL and the page URL are serialised as a browser sends them', () => {
    expect(toEngineRequest({ url: 'http://Example.com', pageUrl: 'HTTPS://Shop.Example.com' })).toMatchObject(
      {
        url: 'http://example.com/',
        pageUrl: 'https://shop.example.com/',
        pageHost: 'shop.example.com',
      },
    );
  });
});
