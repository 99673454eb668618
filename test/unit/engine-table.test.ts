// The rule engine against a table written from the matching specification, case by case: the URL
// parts each key compares, the four operators, filters, captures, each type's effect and every
// precedence rule. Every case also checks that the indexed fast path agrees with the full trace.
import { describe, expect, it } from 'vitest';
import {
  compileRuleSet,
  type EngineRule,
  type RequestInput,
  toEngineRequest,
} from '../../src/engine/index.js';

type Json = Record<string, unknown>;
let counter = 0;

function rule(ruleType: string, pairs: Json[], fields: Partial<EngineRule> = {}): EngineRule {
  counter += 1;
  return {
    id: `${ruleType}_${counter}`,
    name: `${ruleType} ${counter}`,
    ruleType,
    status: 'Active',
    pairs,
    ...fields,
  };
}
const src = (key: string, operator: string, value: string, filters?: Json[]) => ({
  key,
  operator,
  value,
  ...(filters ? { filters } : {}),
});
const cancel = (source: Json, fields?: Partial<EngineRule>) => rule('Cancel', [{ source }], fields);

/** Traces the rules, and checks that the fast path says the same. */
function run(rules: EngineRule[], input: RequestInput, includeInactive = false) {
  const request = toEngineRequest(input);
  if ('details' in request) throw new Error(JSON.stringify(request.details));
  const set = compileRuleSet(rules);
  const traced = set.trace(request, includeInactive);
  const fast = set.evaluate(request);
  expect(fast.outcome).toEqual(set.trace(request).outcome);
  expect(fast.acted).toEqual(traced.rules.filter((r) => r.acted).map((r) => r.ruleId));
  return traced;
}

const API = 'https://api.example.com:8443/v1/users?id=7#top';

describe('the URL part each key compares (section 2)', () => {
  it.each([
    ['Url is the whole serialised URL', src('Url', 'Equals', API), API, true],
    ['host has the non-default port', src('host', 'Equals', 'api.example.com:8443'), API, true],
    ['host without the port does not equal', src('host', 'Equals', 'api.example.com'), API, false],
    ['path has no query', src('path', 'Equals', '/v1/users'), API, true],
    ['path never holds the query', src('path', 'Contains', 'id=7'), API, false],
    ['path never holds the fragment', src('path', 'Contains', 'top'), API, false],
    [
      'the default port is not part of host',
      src('host', 'Equals', 'example.com'),
      'https://example.com:443/',
      true,
    ],
    ['host is lower-case', src('host', 'Equals', 'example.com'), 'http://EXAMPLE.com/', true],
    [
      'Url is serialised as a browser sends it',
      src('Url', 'Equals', 'http://example.com/'),
      'http://Example.com',
      true,
    ],
    ['an empty path is /', src('path', 'Equals', '/'), 'https://example.com', true],
    ['Url keeps the fragment', src('Url', 'Contains', '#top'), API, true],
    ['ws URLs are matched too', src('Url', 'Contains', 'ws://chat'), 'ws://chat.example.com/socket', true],
    ['wss host', src('host', 'Equals', 'chat.example.com'), 'wss://chat.example.com/socket', true],
    ['path is percent-encoded as sent', src('path', 'Equals', '/a%20b'), 'https://example.com/a b', true],
    ['host of an IP address', src('host', 'Equals', '127.0.0.1:8080'), 'http://127.0.0.1:8080/x', true],
  ])('%s', (_title, source, url, matched) => {
    expect(run([cancel(source)], { url }).outcome.cancelled).toBe(matched);
  });
});

describe('operators (section 2)', () => {
  it.each([
    ['Equals: the whole string', src('Url', 'Equals', 'https://a.example/x'), 'https://a.example/x', true],
    ['Equals: not a part of it', src('Url', 'Equals', 'https://a.example/'), 'https://a.example/x', false],
    ['Equals is case-sensitive', src('path', 'Equals', '/X'), 'https://a.example/x', false],
    ['Contains: a substring', src('Url', 'Contains', 'example/x'), 'https://a.example/x', true],
    ['Contains is case-sensitive', src('path', 'Contains', 'Users'), 'https://a.example/users', false],
    ['Contains the empty string matches everything', src('Url', 'Contains', ''), 'https://a.example/', true],
    ['Matches is unanchored', src('Url', 'Matches', 'example'), 'https://a.example/x', true],
    ['Matches bare with anchors', src('path', 'Matches', '^/v[0-9]+/'), 'https://a.example/v2/x', true],
    [
      'Matches anchored pattern that fails',
      src('path', 'Matches', '^/v[0-9]+$'),
      'https://a.example/v2/x',
      false,
    ],
    ['Matches /pattern/ form', src('host', 'Matches', '/^api\\./'), 'https://api.example.com/', true],
    [
      'Matches is case-sensitive without i',
      src('host', 'Matches', '/^API/'),
      'https://api.example.com/',
      false,
    ],
    ['Matches flag i', src('host', 'Matches', '/^API/i'), 'https://api.example.com/', true],
    ['Matches flag g changes nothing', src('host', 'Matches', '/^api/g'), 'https://api.example.com/', true],
    [
      'Matches flags u and y change nothing',
      src('host', 'Matches', '/^api/uy'),
      'https://api.example.com/',
      true,
    ],
    ['Matches flag s is accepted', src('Url', 'Matches', '/a.b/s'), 'https://x.example/a-b', true],
    [
      'Matches: /static/app has letters that are not flags after its last slash: refused, never bare',
      src('path', 'Matches', '/static/app'),
      'https://x.example/static/app.js',
      false,
    ],
    [
      'Matches: bare /static/ pattern text matches itself',
      src('Url', 'Matches', 'static/app'),
      'https://x.example/static/app.js',
      true,
    ],
    ['Matches: . is any character', src('host', 'Matches', '^a.example'), 'https://abexample.com/', true],
    ['Matches an escaped dot', src('host', 'Matches', '^a\\.example'), 'https://abexample.com/', false],
    ['Matches with alternation', src('host', 'Matches', '^(api|cdn)\\.'), 'https://cdn.example.com/', true],
    [
      'Matches: a backreference never matches',
      src('Url', 'Matches', '/(a)\\1/'),
      'https://aa.example/',
      false,
    ],
    ['Matches: a lookahead never matches', src('Url', 'Matches', 'a(?=a)'), 'https://aa.example/', false],
    [
      'Wildcard is anchored at both ends',
      src('host', 'Wildcard_Matches', 'example.com'),
      'https://api.example.com/',
      false,
    ],
    [
      'Wildcard star at the start',
      src('host', 'Wildcard_Matches', '*.example.com'),
      'https://api.example.com/',
      true,
    ],
    [
      'Wildcard star may be empty',
      src('host', 'Wildcard_Matches', 'api*.example.com'),
      'https://api.example.com/',
      true,
    ],
    ['Wildcard: + is literal', src('path', 'Wildcard_Matches', '/a+b'), 'https://x.example/aab', false],
    ['Wildcard: + matches itself', src('path', 'Wildcard_Matches', '/a+b'), 'https://x.example/a+b', true],
    ['Wildcard: ? is literal', src('Url', 'Wildcard_Matches', '*/x?y=1'), 'https://x.example/x?y=1', true],
    [
      'Wildcard: ? is not any character',
      src('path', 'Wildcard_Matches', '/a?c'),
      'https://x.example/abc',
      false,
    ],
    ['Wildcard: . is literal', src('host', 'Wildcard_Matches', 'a.b.example'), 'https://axb.example/', false],
    ['Wildcard: ( is literal', src('path', 'Wildcard_Matches', '/(x)'), 'https://x.example/(x)', true],
    [
      'Wildcard: a scheme and host pattern',
      src('Url', 'Wildcard_Matches', '*://*.example.com/*'),
      'https://api.example.com/v1/x',
      true,
    ],
    ['Wildcard is case-sensitive', src('path', 'Wildcard_Matches', '/A*'), 'https://x.example/abc', false],
    [
      'Wildcard of only a star matches anything',
      src('Url', 'Wildcard_Matches', '*'),
      'https://x.example/',
      true,
    ],
  ])('%s', (_title, source, url, matched) => {
    expect(run([cancel(source)], { url }).outcome.cancelled).toBe(matched);
  });

  it('a catastrophic pattern on a long URL answers, without backtracking', () => {
    const url = `https://x.example/${'a'.repeat(50_000)}b`;
    expect(run([cancel(src('path', 'Matches', '(a+)+$'))], { url }).outcome.cancelled).toBe(false);
    expect(run([cancel(src('path', 'Matches', '(a+)+b$'))], { url }).outcome.cancelled).toBe(true);
  });
});

describe('filters (section 2)', () => {
  const at = (filters: Json[]) => cancel(src('host', 'Equals', 'api.example.com', filters));
  const url = 'https://api.example.com/graphql';
  it.each([
    ['requestMethod lists the method', [{ requestMethod: ['GET', 'POST'] }], { method: 'POST' }, true],
    [
      'requestMethod compares the method in any case',
      [{ requestMethod: ['POST'] }],
      { method: 'post' },
      true,
    ],
    ['requestMethod defaults to GET', [{ requestMethod: ['GET'] }], {}, true],
    ['requestMethod does not list it', [{ requestMethod: ['POST'] }], { method: 'GET' }, false],
    ['resourceType lists the type', [{ resourceType: ['script'] }], { resourceType: 'script' }, true],
    ['resourceType does not list it', [{ resourceType: ['script'] }], { resourceType: 'image' }, false],
    ['resourceType: an unknown type fails', [{ resourceType: ['script'] }], {}, false],
    [
      'URL applies its operator to the page URL',
      [{ URL: { operator: 'Contains', value: 'shop' } }],
      { pageUrl: 'https://shop.example.com/cart' },
      true,
    ],
    [
      'URL on another page fails',
      [{ URL: { operator: 'Contains', value: 'shop' } }],
      { pageUrl: 'https://blog.example.com/' },
      false,
    ],
    ['URL: an unknown page fails', [{ URL: { operator: 'Contains', value: 'shop' } }], {}, false],
    [
      'URL with Matches',
      [{ URL: { operator: 'Matches', value: '/cart$/' } }],
      { pageUrl: 'https://shop.example.com/cart' },
      true,
    ],
    [
      'URL with Wildcard_Matches',
      [{ URL: { operator: 'Wildcard_Matches', value: 'https://shop.*' } }],
      { pageUrl: 'https://shop.example.com/' },
      true,
    ],
    [
      'pageDomains: the domain itself',
      [{ pageDomains: ['example.com'] }],
      { pageUrl: 'https://example.com/' },
      true,
    ],
    [
      'pageDomains: a subdomain',
      [{ pageDomains: ['example.com'] }],
      { pageUrl: 'https://a.example.com/' },
      true,
    ],
    [
      'pageDomains: never a look-alike',
      [{ pageDomains: ['example.com'] }],
      { pageUrl: 'https://notexample.com/' },
      false,
    ],
    [
      'pageDomains: the port does not count',
      [{ pageDomains: ['example.com'] }],
      { pageUrl: 'https://example.com:8443/' },
      true,
    ],
    ['pageDomains: an unknown page fails', [{ pageDomains: ['example.com'] }], {}, false],
    [
      'requestPayload Equals a string leaf',
      [{ requestPayload: { key: 'operationName', value: 'GetUser' } }],
      { body: '{"operationName":"GetUser"}' },
      true,
    ],
    [
      'requestPayload on a dot path',
      [{ requestPayload: { key: 'user.id', value: '7' } }],
      { body: '{"user":{"id":7}}' },
      true,
    ],
    [
      'requestPayload through an array index',
      [{ requestPayload: { key: 'items.0.sku', value: 'A1' } }],
      { body: '{"items":[{"sku":"A1"}]}' },
      true,
    ],
    [
      'requestPayload compares a boolean as text',
      [{ requestPayload: { key: 'draft', value: 'true' } }],
      { body: '{"draft":true}' },
      true,
    ],
    [
      'requestPayload Contains',
      [{ requestPayload: { key: 'q', value: 'shoe', operator: 'Contains' } }],
      { body: '{"q":"red shoes"}' },
      true,
    ],
    [
      'requestPayload Equals is the whole value',
      [{ requestPayload: { key: 'q', value: 'shoe' } }],
      { body: '{"q":"red shoes"}' },
      false,
    ],
    [
      'requestPayload: a body that is not JSON fails',
      [{ requestPayload: { key: 'q', value: 'x' } }],
      { body: 'q=x' },
      false,
    ],
    [
      'requestPayload: a missing leaf fails',
      [{ requestPayload: { key: 'q.r', value: 'x' } }],
      { body: '{"q":{}}' },
      false,
    ],
    [
      'requestPayload: an object leaf fails',
      [{ requestPayload: { key: 'q', value: '{}' } }],
      { body: '{"q":{}}' },
      false,
    ],
    ['requestPayload: no body fails', [{ requestPayload: { key: 'q', value: 'x' } }], {}, false],
    [
      'every field of one filter must pass',
      [{ requestMethod: ['GET'], resourceType: ['script'] }],
      { resourceType: 'image' },
      false,
    ],
    [
      'every filter object must pass',
      [{ requestMethod: ['GET'] }, { resourceType: ['script'] }],
      { resourceType: 'script' },
      true,
    ],
    [
      'a failing second filter object fails',
      [{ requestMethod: ['GET'] }, { resourceType: ['script'] }],
      { resourceType: 'font' },
      false,
    ],
  ])('%s', (_title, filters, request, matched) => {
    expect(run([at(filters as Json[])], { url, ...(request as Json) }).outcome.cancelled).toBe(matched);
  });

  it('checks run in order and stop at the first that fails, each explained', () => {
    const traced = run([at([{ requestMethod: ['POST'], resourceType: ['script'] }])], { url, method: 'GET' });
    expect(traced.rules[0]?.pairs[0]?.checks).toEqual([
      { check: 'source', passed: true, detail: 'host "api.example.com" equals "api.example.com"' },
      { check: 'filters[0].requestMethod', passed: false, detail: 'method GET is not one of POST' },
    ]);
  });

  it('a failing source is explained with the value compared', () => {
    const traced = run([cancel(src('host', 'Equals', 'api.example.com'))], { url: API });
    expect(traced.rules[0]?.pairs[0]?.checks).toEqual([
      {
        check: 'source',
        passed: false,
        detail: 'host "api.example.com:8443" does not equal "api.example.com"',
      },
    ]);
  });
});

describe('captures (section 3)', () => {
  const redirect = (source: Json, destination: string) =>
    rule('Redirect', [{ source, destinationType: 'url', destination }]);
  it.each([
    [
      'wildcard stars are leftmost-shortest',
      src('path', 'Wildcard_Matches', '/*-*'),
      'https://x.example/abcde-fghij-klmno',
      ['abcde', 'fghij-klmno'],
    ],
    [
      'scheme, subdomain and path',
      src('Url', 'Wildcard_Matches', '*://*.example.com/*'),
      'https://api.example.com/v1/x',
      ['https', 'api', 'v1/x'],
    ],
    ['an empty star', src('path', 'Wildcard_Matches', '/a*b'), 'https://x.example/ab', ['']],
    [
      'regex groups in order',
      src('path', 'Matches', '^/(\\w+)/(\\d+)'),
      'https://x.example/users/42',
      ['users', '42'],
    ],
    [
      'a group that did not take part is empty',
      src('path', 'Matches', '^/(a)?(b)'),
      'https://x.example/b',
      ['', 'b'],
    ],
    ['no groups, no captures', src('path', 'Contains', 'x'), 'https://x.example/x', []],
  ])('%s', (_title, source, url, captures) => {
    expect(run([cancel(source)], { url }).rules[0]?.pairs[0]?.captures).toEqual(captures);
  });

  it.each([
    ['$1 and $2', 'https://new.example/$2/$1', 'https://new.example/42/users'],
    ['${N}', 'https://new.example/${2}${1}', 'https://new.example/42users'],
    ['$$ is a dollar sign', 'https://new.example/$$1', 'https://new.example/$1'],
    ['$N beyond the captures stays as written', 'https://new.example/$3', 'https://new.example/$3'],
    ['${N} beyond the captures stays as written', 'https://new.example/${9}', 'https://new.example/$%7B9%7D'],
    ['$10 is $1 then 0', 'https://new.example/$10', 'https://new.example/users0'],
    ['$0 stays as written', 'https://new.example/$0', 'https://new.example/$0'],
  ])('a Redirect destination: %s', (_title, destination, url) => {
    const source = src('path', 'Matches', '^/(\\w+)/(\\d+)');
    expect(run([redirect(source, destination)], { url: 'https://x.example/users/42' }).outcome.url).toBe(url);
  });

  it('${10} is the tenth capture', () => {
    const source = src('path', 'Matches', '^/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)');
    const traced = run([redirect(source, 'https://n.example/${10}$10')], {
      url: 'https://x.example/abcdefghij',
    });
    expect(traced.outcome.url).toBe('https://n.example/ja0');
  });

  it('a Replace to reads $ as JavaScript does: the source captures never fill it', () => {
    const replace = rule('Replace', [
      {
        source: src('host', 'Wildcard_Matches', '*.example.com'),
        from: 'example.com',
        to: '$&.staging.example.net',
      },
    ]);
    expect(run([replace], { url: 'https://api.example.com/x' }).outcome.url).toBe(
      'https://api.example.com.staging.example.net/x',
    );
  });
});

describe('what each type does (section 4)', () => {
  const any = src('Url', 'Contains', 'example');
  const url = 'https://shop.example.com/checkout?x=1&y=2';

  it('Cancel cancels the request', () => {
    expect(run([rule('Cancel', [{ source: any }])], { url }).outcome).toMatchObject({ cancelled: true, url });
  });

  it.each([
    ['plain text, first occurrence', 'x=1', 'x=9', 'https://shop.example.com/checkout?x=9&y=2'],
    ['plain text is not a pattern', '.com', '.net', 'https://shop.example.net/checkout?x=1&y=2'],
    ['a regex replaces the first match', '/[0-9]/', 'N', 'https://shop.example.com/checkout?x=N&y=2'],
    ['a regex with g replaces every match', '/[0-9]/g', 'N', 'https://shop.example.com/checkout?x=N&y=N'],
    ['a regex with i', '/SHOP/i', 'store', 'https://store.example.com/checkout?x=1&y=2'],
    ['to may be empty', '&y=2', '', 'https://shop.example.com/checkout?x=1'],
    ['from not found changes nothing', 'zzz', 'q', url],
    ['$ in to is literal after captures', 'x=1', 'x=$$5', 'https://shop.example.com/checkout?x=$5&y=2'],
  ])('Replace: %s', (_title, from, to, expected) => {
    const traced = run([rule('Replace', [{ source: any, from, to }])], { url });
    expect(traced.outcome.url).toBe(expected);
    expect(traced.outcome.redirected).toBe(expected !== url);
  });

  const query = (modifications: Json[]) =>
    run([rule('QueryParam', [{ source: any, modifications }])], {
      url: 'https://a.example.com/p?a=1&b=2&a=3',
    }).outcome.url;
  it.each([
    [
      'Add appends an absent parameter',
      [{ param: 'c', type: 'Add', value: '4' }],
      'https://a.example.com/p?a=1&b=2&a=3&c=4',
    ],
    [
      'Add sets a present one in its place, and its repeats go',
      [{ param: 'a', type: 'Add', value: '9' }],
      'https://a.example.com/p?a=9&b=2',
    ],
    [
      'Add with Ignore keeps a present one',
      [{ param: 'a', type: 'Add', value: '9', actionWhenParamExists: 'Ignore' }],
      'https://a.example.com/p?a=1&b=2&a=3',
    ],
    [
      'Add with Ignore adds an absent one',
      [{ param: 'c', type: 'Add', value: '9', actionWhenParamExists: 'Ignore' }],
      'https://a.example.com/p?a=1&b=2&a=3&c=9',
    ],
    ['Remove removes every occurrence', [{ param: 'a', type: 'Remove' }], 'https://a.example.com/p?b=2'],
    ['Remove All removes the whole query', [{ type: 'Remove All' }], 'https://a.example.com/p'],
    [
      'modifications apply in order',
      [{ type: 'Remove All' }, { param: 'z', type: 'Add', value: '1' }],
      'https://a.example.com/p?z=1',
    ],
    [
      'values are encoded',
      [{ param: 'q', type: 'Add', value: 'a b&c' }],
      'https://a.example.com/p?a=1&b=2&a=3&q=a%20b%26c',
    ],
  ])('QueryParam: %s', (_title, modifications, expected) => {
    expect(query(modifications)).toBe(expected);
  });

  it.each([
    ['url', 'https://staging.example.com/checkout', 'https://staging.example.com/checkout'],
    ['url relative to the request', '/other', 'https://shop.example.com/other'],
    ['map_local becomes a file URL', '/home/me/app.js', 'file:///home/me/app.js'],
  ])('Redirect: %s', (_title, destination, expected) => {
    const destinationType = _title.startsWith('map_local') ? 'map_local' : 'url';
    const traced = run([rule('Redirect', [{ source: any, destinationType, destination }])], { url });
    expect(traced.outcome).toMatchObject({ url: expected, redirected: true });
  });

  it('Headers: Add, Modify and Remove on request headers, in order; response changes listed', () => {
    const headers = rule('Headers', [
      {
        source: any,
        modifications: [
          {
            Request: [
              { header: 'X-A', type: 'Add', value: '1' },
              { header: 'x-a', type: 'Add', value: '2' },
              { header: 'Accept', type: 'Modify', value: 'text/html' },
              { header: 'X-Absent', type: 'Modify', value: 'no' },
              { header: 'Cookie', type: 'Remove' },
            ],
            Response: [
              { header: 'Server', type: 'Remove' },
              { header: 'X-Frame-Options', type: 'Add', value: 'DENY' },
            ],
          },
        ],
      },
    ]);
    const traced = run([headers], { url, headers: { accept: '*/*', Cookie: 'a=1' } });
    expect(traced.outcome.requestHeaders).toEqual({ accept: 'text/html', 'x-a': ['1', '2'] });
    expect(traced.outcome.responseHeaders).toEqual([
      { header: 'Server', type: 'Remove', ruleId: headers.id },
      { header: 'X-Frame-Options', type: 'Add', value: 'DENY', ruleId: headers.id },
    ]);
  });

  it('UserAgent sets the User-Agent header', () => {
    const traced = run([rule('UserAgent', [{ source: any, userAgent: 'Bot/1' }])], {
      url,
      headers: { 'User-Agent': 'Chrome' },
    });
    expect(traced.outcome.requestHeaders).toEqual({ 'user-agent': 'Bot/1' });
  });

  it('Delay holds the request', () => {
    expect(run([rule('Delay', [{ source: any, delay: 250 }])], { url }).outcome.delayMs).toBe(250);
  });

  it.each(['static', 'code'])('Request (%s) replaces the body, reported with its rule', (type) => {
    const r = rule('Request', [{ source: any, type, value: '{"page":2}' }]);
    expect(run([r], { url, body: '{"page":1}' }).outcome.requestBody).toEqual({
      ruleId: r.id,
      type,
      value: '{"page":2}',
    });
  });

  it('Response: static with its status, 200 by default', () => {
    const plain = rule('Response', [
      { source: any, type: 'static', value: '{}', serveWithoutRequest: false },
    ]);
    expect(run([plain], { url }).outcome.response).toEqual({
      ruleId: plain.id,
      type: 'static',
      value: '{}',
      statusCode: 200,
      serveWithoutRequest: false,
    });
    const full = rule('Response', [
      {
        source: any,
        type: 'static',
        value: 'gone',
        statusCode: 404,
        statusText: 'Not Found',
        serveWithoutRequest: true,
      },
    ]);
    expect(run([full], { url }).outcome.response).toEqual({
      ruleId: full.id,
      type: 'static',
      value: 'gone',
      statusCode: 404,
      statusText: 'Not Found',
      serveWithoutRequest: true,
    });
  });

  it.each([
    ['main_frame', true],
    ['sub_frame', true],
    [undefined, true],
    ['xmlhttprequest', false],
    ['script', false],
  ])('Script is injected into documents only (%s: %s)', (resourceType, injected) => {
    const script = { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'x()' };
    const r = rule('Script', [{ source: any, scripts: [script] }]);
    const traced = run([r], { url, ...(resourceType ? { resourceType: resourceType as never } : {}) });
    expect(traced.outcome.scripts).toEqual(injected ? [{ ruleId: r.id, ...script }] : []);
    expect(traced.rules[0]?.reason).toBe(injected ? 'acted' : 'no_pair_matched');
  });
});

describe('which rules act, and in what order (section 4)', () => {
  const any = src('Url', 'Contains', 'example');
  const url = 'https://shop.example.com/a';
  const reasons = (traced: ReturnType<typeof run>) =>
    traced.rules.map((r) => [r.ruleId, r.reason, r.overriddenBy]);

  it('an inactive rule is not listed, and listed as inactive only with includeInactive', () => {
    const off = rule('Cancel', [{ source: any }], { status: 'Inactive' });
    expect(run([off], { url }).rules).toEqual([]);
    const traced = run([off], { url }, true);
    expect(reasons(traced)).toEqual([[off.id, 'inactive', undefined]]);
    expect(traced.outcome.cancelled).toBe(false);
  });

  it('a rule of an inactive group never acts', () => {
    const grouped = rule('Cancel', [{ source: any }], { groupStatus: 'Inactive' });
    const traced = run([grouped], { url }, true);
    expect(reasons(traced)).toEqual([[grouped.id, 'group_inactive', undefined]]);
    expect(traced.outcome.cancelled).toBe(false);
    expect(
      run([rule('Cancel', [{ source: any }], { groupStatus: 'Active' })], { url }).outcome.cancelled,
    ).toBe(true);
  });

  it.each([['Redirect', (d: string) => ({ source: any, destinationType: 'url', destination: d })]])(
    'the first %s wins; a later one is overridden by it',
    (type, pair) => {
      const first = rule(type, [pair('https://one.example/')]);
      const second = rule(type, [pair('https://two.example/')]);
      const traced = run([first, second], { url });
      expect(traced.outcome.url).toBe('https://one.example/');
      expect(reasons(traced)).toEqual([
        [first.id, 'acted', undefined],
        [second.id, 'overridden', first.id],
      ]);
    },
  );

  it.each([
    [
      'UserAgent',
      (n: number) => ({ source: any, userAgent: `UA${n}` }),
      (t: ReturnType<typeof run>) => t.outcome.requestHeaders['user-agent'],
      'UA1',
    ],
    [
      'Delay',
      (n: number) => ({ source: any, delay: n * 100 }),
      (t: ReturnType<typeof run>) => t.outcome.delayMs,
      100,
    ],
    [
      'Request',
      (n: number) => ({ source: any, type: 'static', value: `b${n}` }),
      (t: ReturnType<typeof run>) => t.outcome.requestBody?.value,
      'b1',
    ],
    [
      'Response',
      (n: number) => ({ source: any, type: 'static', value: `r${n}`, serveWithoutRequest: false }),
      (t: ReturnType<typeof run>) => t.outcome.response?.value,
      'r1',
    ],
    ['Cancel', () => ({ source: any }), (t: ReturnType<typeof run>) => t.outcome.cancelled, true],
  ])('the first %s wins', (type, pair, read, expected) => {
    const first = rule(type, [pair(1)]);
    const second = rule(type, [pair(2)]);
    const traced = run([first, second], { url });
    expect(read(traced)).toEqual(expected);
    expect(traced.rules[0]?.reason).toBe('acted');
    expect(traced.rules[1]?.reason).toBe(type === 'Cancel' ? 'cancelled' : 'overridden');
  });

  it('within a first-wins rule only its first matching pair acts', () => {
    const r = rule('Delay', [
      { source: src('path', 'Equals', '/zzz'), delay: 1 },
      { source: any, delay: 2 },
      { source: any, delay: 3 },
    ]);
    const traced = run([r], { url });
    expect(traced.outcome.delayMs).toBe(2);
    expect(traced.rules[0]?.pairs.map((p) => [p.matched, p.effect])).toEqual([
      [false, null],
      [true, { delayMs: 2 }],
      [true, null],
    ]);
  });

  it('every Headers rule acts, in list order', () => {
    const a = rule('Headers', [
      { source: any, modifications: [{ Request: [{ header: 'X', type: 'Add', value: 'a' }] }] },
    ]);
    const b = rule('Headers', [
      { source: any, modifications: [{ Request: [{ header: 'X', type: 'Modify', value: 'b' }] }] },
    ]);
    const traced = run([a, b], { url });
    expect(traced.outcome.requestHeaders).toEqual({ x: 'b' });
    expect(reasons(traced)).toEqual([
      [a.id, 'acted', undefined],
      [b.id, 'acted', undefined],
    ]);
  });

  it('every Script rule acts, in order', () => {
    const s = (value: string) =>
      rule('Script', [
        { source: any, scripts: [{ type: 'code', codeType: 'js', loadTime: 'beforePageLoad', value }] },
      ]);
    const traced = run([s('one()'), s('two()')], { url, resourceType: 'main_frame' });
    expect(traced.outcome.scripts.map((x) => x.value)).toEqual(['one()', 'two()']);
  });

  it('Replace rules chain on the URL the earlier ones left, and are matched against it', () => {
    const a = rule('Replace', [
      { source: src('host', 'Equals', 'shop.example.com'), from: 'shop', to: 'store' },
    ]);
    const b = rule('Replace', [{ source: src('host', 'Equals', 'store.example.com'), from: '/a', to: '/b' }]);
    const c = rule('Replace', [
      { source: src('host', 'Equals', 'shop.example.com'), from: 'example', to: 'nope' },
    ]);
    const traced = run([a, b, c], { url });
    expect(traced.outcome).toMatchObject({ url: 'https://store.example.com/b', redirected: true });
    expect(reasons(traced)).toEqual([
      [a.id, 'acted', undefined],
      [b.id, 'acted', undefined],
      [c.id, 'no_pair_matched', undefined],
    ]);
  });

  it('pairs of one Replace rule chain too', () => {
    const r = rule('Replace', [
      { source: any, from: 'shop', to: 'store' },
      { source: src('host', 'Equals', 'store.example.com'), from: '/a', to: '/c' },
    ]);
    expect(run([r], { url }).outcome.url).toBe('https://store.example.com/c');
  });

  it('QueryParam and Replace chain with each other', () => {
    const q = rule('QueryParam', [{ source: any, modifications: [{ param: 'v', type: 'Add', value: '1' }] }]);
    const r = rule('Replace', [{ source: src('Url', 'Contains', 'v=1'), from: 'v=1', to: 'v=2' }]);
    expect(run([q, r], { url }).outcome.url).toBe('https://shop.example.com/a?v=2');
  });

  it('after a Redirect no rule changes the URL: later URL changes are after_redirect', () => {
    const redirect = rule('Redirect', [
      { source: any, destinationType: 'url', destination: 'https://new.example.com/x' },
    ]);
    const replace = rule('Replace', [{ source: any, from: 'new', to: 'old' }]);
    const query = rule('QueryParam', [{ source: any, modifications: [{ type: 'Remove All' }] }]);
    const traced = run([redirect, replace, query], { url });
    expect(traced.outcome.url).toBe('https://new.example.com/x');
    expect(reasons(traced)).toEqual([
      [redirect.id, 'acted', undefined],
      [replace.id, 'after_redirect', undefined],
      [query.id, 'after_redirect', undefined],
    ]);
  });

  it('URL changes before a Redirect stay, and the Redirect is matched against them', () => {
    const replace = rule('Replace', [{ source: any, from: 'shop', to: 'store' }]);
    const redirect = rule('Redirect', [
      {
        source: src('host', 'Equals', 'store.example.com'),
        destinationType: 'url',
        destination: 'https://final.example/',
      },
    ]);
    const traced = run([replace, redirect], { url });
    expect(traced.outcome.url).toBe('https://final.example/');
    expect(reasons(traced).map((r) => r[1])).toEqual(['acted', 'acted']);
  });

  it('rules after a Redirect are matched against the new URL', () => {
    const redirect = rule('Redirect', [
      { source: any, destinationType: 'url', destination: 'https://other.test/x' },
    ]);
    const cancelOld = rule('Cancel', [{ source: src('host', 'Equals', 'shop.example.com') }]);
    const cancelNew = rule('Cancel', [{ source: src('host', 'Equals', 'other.test') }]);
    const traced = run([redirect, cancelOld, cancelNew], { url });
    // The Cancel that matches the new URL wins over the Redirect before it.
    expect(reasons(traced).map((r) => r[1])).toEqual(['cancelled', 'no_pair_matched', 'acted']);
    expect(traced.outcome).toMatchObject({ cancelled: true, url, redirected: false });
  });

  it('after a Cancel nothing else happens: later rules are cancelled', () => {
    const stop = rule('Cancel', [{ source: any }]);
    const delay = rule('Delay', [{ source: any, delay: 5 }]);
    const headers = rule('Headers', [
      { source: any, modifications: [{ Request: [{ header: 'X', type: 'Add', value: '1' }] }] },
    ]);
    const traced = run([stop, delay, headers], { url });
    expect(traced.outcome).toMatchObject({ cancelled: true, delayMs: 0, requestHeaders: {} });
    expect(reasons(traced)).toEqual([
      [stop.id, 'acted', undefined],
      [delay.id, 'cancelled', stop.id],
      [headers.id, 'cancelled', stop.id],
    ]);
  });

  it('a Cancel wins over the rules before it too: they are reported cancelled by it', () => {
    const delay = rule('Delay', [{ source: any, delay: 5 }]);
    const stop = rule('Cancel', [{ source: any }]);
    const traced = run([delay, stop], { url });
    expect(traced.outcome).toMatchObject({ cancelled: true, delayMs: 0 });
    expect(reasons(traced)).toEqual([
      [delay.id, 'cancelled', stop.id],
      [stop.id, 'acted', undefined],
    ]);
  });

  it('a rule that does not match leaves the way free: the next one of its type wins', () => {
    const miss = rule('Delay', [{ source: src('host', 'Equals', 'elsewhere.test'), delay: 1 }]);
    const hit = rule('Delay', [{ source: any, delay: 2 }]);
    const traced = run([miss, hit], { url });
    expect(traced.outcome.delayMs).toBe(2);
    expect(reasons(traced).map((r) => r[1])).toEqual(['no_pair_matched', 'acted']);
  });

  it('an inactive rule never takes a first-wins effect', () => {
    const off = rule('Delay', [{ source: any, delay: 1 }], { status: 'Inactive' });
    const on = rule('Delay', [{ source: any, delay: 2 }]);
    const traced = run([off, on], { url }, true);
    expect(traced.outcome.delayMs).toBe(2);
    expect(reasons(traced).map((r) => r[1])).toEqual(['inactive', 'acted']);
  });

  it('different first-wins types do not override each other', () => {
    const types = [
      rule('Delay', [{ source: any, delay: 1 }]),
      rule('UserAgent', [{ source: any, userAgent: 'UA' }]),
      rule('Request', [{ source: any, type: 'static', value: 'b' }]),
      rule('Response', [{ source: any, type: 'static', value: 'r', serveWithoutRequest: true }]),
      rule('Redirect', [{ source: any, destinationType: 'url', destination: 'https://r.example/' }]),
    ];
    expect(run(types, { url }).rules.every((r) => r.reason === 'acted')).toBe(true);
  });

  it('several pairs of one all-acting rule all act', () => {
    const r = rule('Headers', [
      { source: any, modifications: [{ Request: [{ header: 'A', type: 'Add', value: '1' }] }] },
      {
        source: src('path', 'Equals', '/nope'),
        modifications: [{ Request: [{ header: 'B', type: 'Add', value: '1' }] }],
      },
      { source: any, modifications: [{ Request: [{ header: 'C', type: 'Add', value: '1' }] }] },
    ]);
    expect(run([r], { url }).outcome.requestHeaders).toEqual({ a: '1', c: '1' });
  });

  it('a rule of no matching pair is no_pair_matched, and explains each pair', () => {
    const r = rule('Cancel', [
      { id: 'p1', source: src('host', 'Equals', 'a.test') },
      { id: 'p2', source: src('host', 'Equals', 'b.test') },
    ]);
    const traced = run([r], { url });
    expect(traced.rules[0]).toMatchObject({ acted: false, reason: 'no_pair_matched' });
    expect(traced.rules[0]?.pairs.map((p) => [p.index, p.pairId, p.matched])).toEqual([
      [0, 'p1', false],
      [1, 'p2', false],
    ]);
  });

  it('a URL nothing changed is not a redirect', () => {
    expect(
      run(
        [
          rule('Headers', [
            { source: any, modifications: [{ Response: [{ header: 'X', type: 'Remove' }] }] },
          ]),
        ],
        { url },
      ).outcome,
    ).toMatchObject({ url, redirected: false });
  });
});
