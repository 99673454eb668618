// What each of the ten rule types does, as a table written by hand. Which rules act and in what
// order is in precedence-table.test.ts. Every case also checks the indexed fast path against the full
// trace (see run()).
import { describe, expect, it } from 'vitest';
import {
  ANY,
  body,
  CLEAN,
  cancel,
  checkEffect,
  delay,
  type EffectCase,
  headers,
  JS,
  queryParam,
  redirect,
  replace,
  respond,
  rule,
  run,
  script,
  src,
  URL_A,
  userAgent,
  verdict,
} from './engine-helpers.js';

/** A URL with a query of two parameters, no fragment. */
const CHECKOUT = 'https://shop.example.com/checkout?x=1&y=2';
/** A URL with a repeated parameter. */
const REPEATED = 'https://a.example.com/p?a=1&b=2&a=3';

describe('what each type does', () => {
  it.each<EffectCase>([
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
      title:
        "Script: the document's Content-Security-Policy removed (removeCSPHeader absent: Requestly's default)",
      request: { url: URL_A, resourceType: 'main_frame' },
      rules: [script('s', ANY)],
      outcome: { responseHeaders: [{ header: 'Content-Security-Policy', type: 'Remove', ruleId: 's' }] },
    },
    {
      title: 'Script: removeCSPHeader true removes it once however many pairs match; false leaves it',
      request: { url: URL_A, resourceType: 'main_frame' },
      rules: [
        rule(
          'two',
          'Script',
          [
            { source: ANY, scripts: [JS] },
            { source: ANY, scripts: [JS] },
          ],
          { removeCSPHeader: true },
        ),
        script('kept', ANY, [JS], { removeCSPHeader: false }),
      ],
      outcome: {
        responseHeaders: [{ header: 'Content-Security-Policy', type: 'Remove', ruleId: 'two' }],
        scripts: [
          { ruleId: 'two', ...JS },
          { ruleId: 'two', ...JS },
          { ruleId: 'kept', ...JS },
        ],
      },
      reasons: [
        ['two', 'acted'],
        ['kept', 'acted'],
      ],
    },
    {
      title: 'Script: no policy removed from what is not a document',
      request: { url: URL_A, resourceType: 'xmlhttprequest' },
      rules: [script('s', ANY, [JS], { removeCSPHeader: true })],
      outcome: { responseHeaders: [], scripts: [] },
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
    {
      title: 'Replace: a plain from in the query, its first occurrence',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, 'x=1', 'x=9')],
      outcome: { url: 'https://shop.example.com/checkout?x=9&y=2', redirected: true },
    },
    {
      title: 'Replace: a plain .com is not a pattern',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, '.com', '.net')],
      outcome: { url: 'https://shop.example.net/checkout?x=1&y=2', redirected: true },
    },
    {
      title: 'Replace: a character class without g replaces the first match',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, '/[0-9]/', 'N')],
      outcome: { url: 'https://shop.example.com/checkout?x=N&y=2', redirected: true },
    },
    {
      title: 'Replace: a character class with g replaces every match',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, '/[0-9]/g', 'N')],
      outcome: { url: 'https://shop.example.com/checkout?x=N&y=N', redirected: true },
    },
    {
      title: 'Replace: flag i on a URL with a query',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, '/SHOP/i', 'store')],
      outcome: { url: 'https://store.example.com/checkout?x=1&y=2', redirected: true },
    },
    {
      title: 'Replace: an empty to removes the last parameter',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, '&y=2', '')],
      outcome: { url: 'https://shop.example.com/checkout?x=1', redirected: true },
    },
    {
      title: 'Replace: from not in a URL with a query changes nothing',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, 'zzz', 'q')],
      outcome: { url: CHECKOUT, redirected: false },
    },
    {
      title: 'Replace: $$ in to is a literal $',
      request: { url: CHECKOUT },
      rules: [replace('p', ANY, 'x=1', 'x=$$5')],
      outcome: { url: 'https://shop.example.com/checkout?x=$5&y=2', redirected: true },
    },
    {
      title: 'QueryParam Add appends an absent parameter after repeated ones',
      request: { url: REPEATED },
      rules: [queryParam('q', ANY, [{ param: 'c', type: 'Add', value: '4' }])],
      outcome: { url: 'https://a.example.com/p?a=1&b=2&a=3&c=4', redirected: true },
    },
    {
      title: 'QueryParam Add with Ignore keeps a repeated parameter as it is',
      request: { url: REPEATED },
      rules: [
        queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '9', actionWhenParamExists: 'Ignore' }]),
      ],
      outcome: { url: REPEATED, redirected: false },
    },
    {
      title: 'QueryParam Add with Ignore appends an absent one after repeated ones',
      request: { url: REPEATED },
      rules: [
        queryParam('q', ANY, [{ param: 'c', type: 'Add', value: '9', actionWhenParamExists: 'Ignore' }]),
      ],
      outcome: { url: 'https://a.example.com/p?a=1&b=2&a=3&c=9', redirected: true },
    },
    {
      title: 'QueryParam Remove All on a URL without a fragment',
      request: { url: REPEATED },
      rules: [queryParam('q', ANY, [{ type: 'Remove All' }])],
      outcome: { url: 'https://a.example.com/p', redirected: true },
    },
    {
      title: 'QueryParam modifications in order: Remove All, then Add, without a fragment',
      request: { url: REPEATED },
      rules: [queryParam('q', ANY, [{ type: 'Remove All' }, { param: 'z', type: 'Add', value: '1' }])],
      outcome: { url: 'https://a.example.com/p?z=1', redirected: true },
    },
    {
      title: 'QueryParam Add encodes the value, after the parameters there are',
      request: { url: REPEATED },
      rules: [queryParam('q', ANY, [{ param: 'q', type: 'Add', value: 'a b&c' }])],
      outcome: { url: 'https://a.example.com/p?a=1&b=2&a=3&q=a%20b%26c', redirected: true },
    },
    {
      title: 'Redirect to an absolute URL on another host',
      request: { url: CHECKOUT },
      rules: [redirect('r', ANY, 'https://staging.example.com/checkout')],
      outcome: { url: 'https://staging.example.com/checkout', redirected: true },
    },
    {
      title: 'Redirect to a URL relative to the request',
      request: { url: CHECKOUT },
      rules: [redirect('r', ANY, '/other')],
      outcome: { url: 'https://shop.example.com/other', redirected: true },
    },
    {
      title:
        'Headers: Add twice, Modify, Modify of an absent header, Remove, in order; response changes listed',
      request: { url: CHECKOUT, headers: { accept: '*/*', Cookie: 'a=1' } },
      rules: [
        headers(
          'h',
          ANY,
          [
            { header: 'X-A', type: 'Add', value: '1' },
            { header: 'x-a', type: 'Add', value: '2' },
            { header: 'Accept', type: 'Modify', value: 'text/html' },
            { header: 'X-Absent', type: 'Modify', value: 'no' },
            { header: 'Cookie', type: 'Remove' },
          ],
          [
            { header: 'Server', type: 'Remove' },
            { header: 'X-Frame-Options', type: 'Add', value: 'DENY' },
          ],
        ),
      ],
      outcome: {
        requestHeaders: { accept: 'text/html', 'x-a': ['1', '2'] },
        responseHeaders: [
          { header: 'Server', type: 'Remove', ruleId: 'h' },
          { header: 'X-Frame-Options', type: 'Add', value: 'DENY', ruleId: 'h' },
        ],
      },
    },
    {
      title: 'UserAgent replaces a browser User-Agent',
      request: { url: CHECKOUT, headers: { 'User-Agent': 'Chrome' } },
      rules: [userAgent('u', ANY, 'Bot/1')],
      outcome: { requestHeaders: { 'user-agent': 'Bot/1' } },
    },
    {
      title: 'Request static: a JSON body replaced by another',
      request: { url: CHECKOUT, body: '{"page":1}' },
      rules: [body('b', ANY, 'static', '{"page":2}')],
      outcome: { requestBody: { ruleId: 'b', type: 'static', value: '{"page":2}' } },
    },
    {
      title: 'Request code: reported with its rule, whatever the body',
      request: { url: CHECKOUT, body: '{"page":1}' },
      rules: [body('b', ANY, 'code', '{"page":2}')],
      outcome: { requestBody: { ruleId: 'b', type: 'code', value: '{"page":2}' } },
    },
    {
      title: 'Response static {}: status 200 by default',
      rules: [respond('s', ANY, { type: 'static', value: '{}', serveWithoutRequest: false })],
      outcome: {
        response: { ruleId: 's', type: 'static', value: '{}', statusCode: 200, serveWithoutRequest: false },
      },
    },
    {
      title: 'Script: never into a script',
      request: { url: URL_A, resourceType: 'script' },
      rules: [script('s', ANY)],
      outcome: { scripts: [] },
      reasons: [['s', 'no_pair_matched']],
    },
  ])('$title', checkEffect);

  it("Script: the trace shows the policy's removal as the pair's effect, and none with removeCSPHeader false", () => {
    const request = { url: URL_A, resourceType: 'main_frame' } as const;
    const removing = run([script('s', ANY)], request);
    expect(removing.rules[0]?.pairs[0]?.effect).toEqual({
      scripts: 1,
      responseHeaders: [{ header: 'Content-Security-Policy', type: 'Remove' }],
    });
    const leaving = run([script('s', ANY, [JS], { removeCSPHeader: false })], request);
    expect(leaving.rules[0]?.pairs[0]?.effect).toEqual({ scripts: 1 });
  });

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
