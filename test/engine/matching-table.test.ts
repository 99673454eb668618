// matching.md sections 1-3 as a table written by hand from the spec: the URL part each key compares,
// the four operators, every filter, and captures in what a rule writes. Every case also checks that
// the indexed fast path (evaluate) agrees with the full trace (see run()).
import { describe, expect, it } from 'vitest';
import type { RequestInput } from '../../src/engine/index.js';
import { ANY, cancel, type Json, redirect, replace, run, src, verdict } from './engine-helpers.js';

const API = 'https://api.example.com:8443/v1/users?id=7#top';

/** `expected`: false (no match), true (a match), or the captures of a match. */
type MatchCase = [title: string, source: Json, request: string | RequestInput, expected: boolean | string[]];

function checkMatch(source: Json, request: string | RequestInput, expected: boolean | string[]) {
  const input = typeof request === 'string' ? { url: request } : request;
  const trace = run([cancel('c', source)], input);
  expect(trace.outcome.cancelled).toBe(expected !== false);
  const pair = verdict(trace, 'c').pairs[0];
  expect(pair?.matched).toBe(expected !== false);
  if (Array.isArray(expected)) expect(pair?.captures).toEqual(expected);
}

describe('keys: the URL part each key compares (section 2)', () => {
  it.each<MatchCase>([
    ['Url is the whole serialised URL', src('Url', 'Equals', API), API, true],
    ['Url keeps the fragment', src('Url', 'Contains', '#top'), API, true],
    ['host has the non-default port', src('host', 'Equals', 'api.example.com:8443'), API, true],
    [
      'host without its non-default port is not the host',
      src('host', 'Equals', 'api.example.com'),
      API,
      false,
    ],
    ['path is the path alone', src('path', 'Equals', '/v1/users'), API, true],
    ['path holds no query', src('path', 'Contains', 'id=7'), API, false],
    ['path holds no fragment', src('path', 'Contains', 'top'), API, false],
    ['path holds no host', src('path', 'Contains', 'example'), API, false],
    ['host holds no path', src('host', 'Contains', '/v1'), API, false],
    [
      'https default port is dropped from host',
      src('host', 'Equals', 'example.com'),
      'https://example.com:443/a',
      true,
    ],
    [
      'http default port is dropped from host',
      src('host', 'Equals', 'example.com'),
      'http://example.com:80/a',
      true,
    ],
    [
      '443 on http is not a default port',
      src('host', 'Equals', 'example.com:443'),
      'http://example.com:443/',
      true,
    ],
    [
      'ws default port 80 is dropped',
      src('host', 'Equals', 'chat.example.com'),
      'ws://chat.example.com:80/s',
      true,
    ],
    [
      'wss keeps a non-default port',
      src('host', 'Equals', 'chat.example.com:8443'),
      'wss://chat.example.com:8443/s',
      true,
    ],
    ['host is lower-case', src('host', 'Equals', 'www.example.com'), 'HTTP://WWW.EXAMPLE.COM/A', true],
    ['path keeps its letter case', src('path', 'Equals', '/A'), 'HTTP://WWW.EXAMPLE.COM/A', true],
    [
      'http://Example.com is serialised as http://example.com/',
      src('Url', 'Equals', 'http://example.com/'),
      'http://Example.com',
      true,
    ],
    [
      'the value is not normalised: no trailing slash, no match',
      src('Url', 'Equals', 'http://example.com'),
      'http://Example.com',
      false,
    ],
    [
      'scheme and default port normalised in Url',
      src('Url', 'Equals', 'https://example.com/'),
      'HTTPS://Example.com:443',
      true,
    ],
    ['an empty path is /', src('path', 'Equals', '/'), 'https://example.com', true],
    ['a query without a path still has path /', src('path', 'Equals', '/'), 'https://example.com?x=1', true],
    ['dot segments are resolved', src('path', 'Equals', '/b'), 'https://example.com/a/../b', true],
    [
      'a space is percent-encoded as a browser sends it',
      src('path', 'Equals', '/a%20b'),
      'https://example.com/a b',
      true,
    ],
    [
      'an international host is compared in punycode',
      src('host', 'Equals', 'xn--bcher-kva.example'),
      'https://bücher.example/',
      true,
    ],
    [
      'an IP address host with its port',
      src('host', 'Equals', '127.0.0.1:8080'),
      'http://127.0.0.1:8080/x',
      true,
    ],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));
});

describe('operators: Equals and Contains (section 2)', () => {
  it.each<MatchCase>([
    ['Equals is case-sensitive', src('host', 'Equals', 'API.example.com:8443'), API, false],
    [
      'Equals needs the whole string, not a prefix',
      src('Url', 'Equals', 'https://api.example.com:8443/v1'),
      API,
      false,
    ],
    ['Equals on an empty value matches every request', src('path', 'Equals', ''), API, true],
    ['Contains a substring', src('Url', 'Contains', 'example.com:8443/v1'), API, true],
    ['Contains is case-sensitive', src('path', 'Contains', 'USERS'), API, false],
    ['Contains an empty value matches everything', src('path', 'Contains', ''), API, true],
    ['Contains on host sees the port', src('host', 'Contains', ':8443'), API, true],
    ['Contains takes regex characters literally', src('Url', 'Contains', 'users?id'), API, true],
    [
      'Contains does not read . as any character',
      src('Url', 'Contains', 'api.example.com:8443/v1/users.id'),
      API,
      false,
    ],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));
});

describe('operators: Matches, RE2 (section 2)', () => {
  it.each<MatchCase>([
    ['a bare pattern', src('Url', 'Matches', 'users\\?id=\\d+'), API, true],
    ['a bare pattern that does not match', src('Url', 'Matches', 'users\\?id=[a-z]+'), API, false],
    ['unanchored: matches anywhere', src('path', 'Matches', 'v1'), API, true],
    ['anchors when the pattern says so', src('path', 'Matches', '^/v1$'), API, false],
    ['anchored at both ends on the whole path', src('path', 'Matches', '^/v1/users$'), API, true],
    ['/pattern/ without flags is case-sensitive', src('path', 'Matches', '/USERS/'), API, false],
    ['flag i acts', src('path', 'Matches', '/USERS/i'), API, true],
    [
      'an inline (?i) is not JavaScript: refused, never matches',
      src('path', 'Matches', '(?i)USERS'),
      API,
      false,
    ],
    ['flag g is accepted and changes nothing', src('path', 'Matches', '/users/g'), API, true],
    ['flag u is accepted and changes nothing', src('path', 'Matches', '/users/u'), API, true],
    ['flag y is accepted and does not make the match sticky', src('path', 'Matches', '/users/y'), API, true],
    ['every flag at once', src('path', 'Matches', '/USERS/gimsuy'), API, true],
    ['m accepted (URLs never hold line breaks)', src('path', 'Matches', '/^\\/v1\\/users$/m'), API, true],
    ['s accepted', src('path', 'Matches', '/v1.users/s'), API, true],
    [
      '/v1/ is the pattern v1, slashes are delimiters',
      src('path', 'Matches', '/v1/'),
      'https://e.com/xv1y',
      true,
    ],
    [
      '/v1/users: letters after the last slash that are not all flags are refused, not read bare',
      src('Url', 'Matches', '/v1/users'),
      API,
      false,
    ],
    ['escaped slashes inside /pattern/', src('Url', 'Matches', '/\\/v1\\/users\\?/'), API, true],
    ['groups are the captures', src('path', 'Matches', '^/(v\\d)/(\\w+)$'), API, ['v1', 'users']],
    [
      'a group that does not take part is an empty capture',
      src('path', 'Matches', '^/(x)?(v1)/'),
      API,
      ['', 'v1'],
    ],
    [
      'named groups (JavaScript syntax) are captures too',
      src('path', 'Matches', '(?<version>v\\d)'),
      API,
      ['v1'],
    ],
    ['(?P<name>) is not JavaScript: never matches', src('path', 'Matches', '(?P<version>v\\d)'), API, false],
    ['non-capturing groups take no capture', src('path', 'Matches', '(?:v1)/(users)'), API, ['users']],
    ['an empty pattern matches everything', src('path', 'Matches', ''), API, true],
    ['a pattern that does not compile never matches', src('Url', 'Matches', '[a-'), API, false],
    ['a backreference never matches', src('Url', 'Matches', '/(s)\\1/'), 'https://e.com/ss', false],
    ['a lookahead never matches', src('Url', 'Matches', '/users(?=\\?)/'), API, false],
    [
      'a bounded repeat: its digits are not text the URL must hold',
      src('Url', 'Matches', '/id=\\d{1,10}/'),
      API,
      true,
    ],
    ['a bounded repeat of a letter', src('path', 'Matches', '/s{1,3}$/'), API, true],
    ['without u, \\pN is the letters pN', src('Url', 'Matches', '/\\pN#top/'), API, false],
    ['with u, \\p{N} is a Unicode class', src('Url', 'Matches', '/\\p{N}#top/u'), API, true],
    [
      'with u, \\p{Script=Latin} is a Unicode class',
      src('path', 'Matches', '/\\p{Script=Latin}sers/u'),
      API,
      true,
    ],
    ['without u, \\p{Latin} is text', src('path', 'Matches', '/\\p{Latin}sers/'), API, false],
    ['a hex escape \\x75 is u', src('path', 'Matches', '/\\x75sers/'), API, true],
    ['\\x{75} is x repeated 75 times, as in JavaScript', src('path', 'Matches', '/\\x{75}sers/'), API, false],
    ['a \\u0075 escape is u', src('path', 'Matches', '/\\u0075sers/'), API, true],
    ['an octal escape \\165 is u', src('path', 'Matches', '/\\165sers/'), API, true],
    [
      '[[:alpha:]] is a class of [:alph then ], as in JavaScript',
      src('path', 'Matches', '/[[:alpha:]]sers/'),
      API,
      false,
    ],
    [
      '\\Q…\\E is the letters Q and E, as in JavaScript',
      src('path', 'Matches', '/\\Quserz\\E?/'),
      API,
      false,
    ],
    ['(?si) is not JavaScript: never matches', src('path', 'Matches', '/(?si)USERS/'), API, false],
    ['flags si make it case-insensitive', src('path', 'Matches', '/USERS/si'), API, true],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));

  it('says why a pattern RE2 refuses never matches', () => {
    const backreference = verdict(run([cancel('c', src('Url', 'Matches', '/(s)\\1/'))], { url: API }), 'c');
    expect(backreference.pairs[0]?.checks[0]?.detail).toMatch(/backreference/);
    const lookaround = verdict(run([cancel('c', src('Url', 'Matches', '/a(?=b)/'))], { url: API }), 'c');
    expect(lookaround.pairs[0]?.checks[0]?.detail).toMatch(
      /lookahead \(\?=…\) at 2 cannot be run in linear time/,
    );
  });
});

describe('operators: Wildcard_Matches (section 2)', () => {
  it.each<MatchCase>([
    ['anchored at the start', src('Url', 'Wildcard_Matches', 'api.example.com*'), API, false],
    ['anchored at the end', src('Url', 'Wildcard_Matches', '*example.com'), API, false],
    [
      'a star may be empty',
      src('Url', 'Wildcard_Matches', 'https://*api.example.com:8443/v1/users?id=7#top'),
      API,
      [''],
    ],
    ['a lone star takes the whole text', src('host', 'Wildcard_Matches', '*'), API, ['api.example.com:8443']],
    ['no star: the whole text exactly', src('path', 'Wildcard_Matches', '/v1/users'), API, []],
    ['+ is literal (matches itself)', src('path', 'Wildcard_Matches', '/a+b'), 'https://e.com/a+b', true],
    ['+ is literal (no repetition)', src('path', 'Wildcard_Matches', '/a+b'), 'https://e.com/aab', false],
    [
      '? is literal (matches itself)',
      src('Url', 'Wildcard_Matches', 'https://e.com/p?x=1'),
      'https://e.com/p?x=1',
      true,
    ],
    [
      '? is literal (not any character)',
      src('Url', 'Wildcard_Matches', 'https://e.com/p?x=1'),
      'https://e.com/pZx=1',
      false,
    ],
    ['. is literal (matches itself)', src('host', 'Wildcard_Matches', 'api.example.com:8443'), API, true],
    [
      '. is literal (not any character)',
      src('host', 'Wildcard_Matches', 'api.example.com'),
      'https://apiXexample.com/',
      false,
    ],
    ['( and ) are literal', src('path', 'Wildcard_Matches', '/f(*)'), 'https://e.com/f(x)', ['x']],
    ['| is literal, not an alternation', src('path', 'Wildcard_Matches', '/a|b'), 'https://e.com/a', false],
    ['[ ] are literal, not a class', src('path', 'Wildcard_Matches', '/[ab]'), 'https://e.com/[ab]', true],
    ['$ is literal', src('path', 'Wildcard_Matches', '/a$b'), 'https://e.com/a$b', true],
    ['case-sensitive', src('host', 'Wildcard_Matches', '*.EXAMPLE.com'), 'https://api.example.com/', false],
    [
      '*-* takes the leftmost-shortest first star (spec example)',
      src('path', 'Wildcard_Matches', '/*-*'),
      'https://e.com/abcde-fghij-klmno',
      ['abcde', 'fghij-klmno'],
    ],
    [
      '*://*.example.com/* (spec example)',
      src('Url', 'Wildcard_Matches', '*://*.example.com/*'),
      'https://api.example.com/v1/x',
      ['https', 'api', 'v1/x'],
    ],
    [
      'the second star as short as lets the rest match',
      src('Url', 'Wildcard_Matches', '*://*.example.com/*'),
      'https://a.b.example.com/x',
      ['https', 'a.b', 'x'],
    ],
    [
      '*.example.com needs a subdomain',
      src('host', 'Wildcard_Matches', '*.example.com'),
      'https://example.com/',
      false,
    ],
    [
      'a last star takes the query and fragment',
      src('Url', 'Wildcard_Matches', 'https://api.example.com:8443/*'),
      API,
      ['v1/users?id=7#top'],
    ],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));
});

const on = (filters: Json[]) => src('host', 'Equals', 'api.example.com', filters);
const HOST = 'https://api.example.com/graphql';

describe('filters (section 2)', () => {
  it.each<MatchCase>([
    [
      'requestMethod: one of the listed',
      on([{ requestMethod: ['GET', 'POST'] }]),
      { url: HOST, method: 'POST' },
      true,
    ],
    ['requestMethod: the method defaults to GET', on([{ requestMethod: ['GET'] }]), { url: HOST }, true],
    [
      'requestMethod: compared case-insensitively',
      on([{ requestMethod: ['POST'] }]),
      { url: HOST, method: 'post' },
      true,
    ],
    ['requestMethod: not listed', on([{ requestMethod: ['POST'] }]), { url: HOST }, false],
    [
      'resourceType: listed',
      on([{ resourceType: ['script', 'image'] }]),
      { url: HOST, resourceType: 'image' },
      true,
    ],
    [
      'resourceType: not listed',
      on([{ resourceType: ['script'] }]),
      { url: HOST, resourceType: 'image' },
      false,
    ],
    ['resourceType: an unknown type fails', on([{ resourceType: ['script'] }]), { url: HOST }, false],
    [
      'URL: Contains on the page URL',
      on([{ URL: { operator: 'Contains', value: 'shop' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/cart' },
      true,
    ],
    [
      'URL: not on the request URL',
      on([{ URL: { operator: 'Contains', value: 'graphql' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/cart' },
      false,
    ],
    ['URL: an unknown page fails', on([{ URL: { operator: 'Contains', value: '' } }]), { url: HOST }, false],
    [
      'URL: Equals on the serialised page URL',
      on([{ URL: { operator: 'Equals', value: 'https://shop.example.com/' } }]),
      { url: HOST, pageUrl: 'https://Shop.example.com' },
      true,
    ],
    [
      'URL: Matches with flags',
      on([{ URL: { operator: 'Matches', value: '/SHOP\\./i' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/' },
      true,
    ],
    [
      'URL: Wildcard_Matches anchored',
      on([{ URL: { operator: 'Wildcard_Matches', value: '*://shop.example.com/*' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/cart' },
      true,
    ],
    [
      'URL: Wildcard_Matches not matching',
      on([{ URL: { operator: 'Wildcard_Matches', value: 'shop.example.com/*' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/cart' },
      false,
    ],
    [
      'pageDomains: the domain itself',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://example.com/' },
      true,
    ],
    [
      'pageDomains: a subdomain',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://a.example.com/' },
      true,
    ],
    [
      'pageDomains: a deeper subdomain',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://a.b.example.com/x' },
      true,
    ],
    [
      'pageDomains: never notexample.com',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://notexample.com/' },
      false,
    ],
    [
      'pageDomains: never example.com.evil.net',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://example.com.evil.net/' },
      false,
    ],
    [
      'pageDomains: the port does not matter',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://example.com:8080/' },
      true,
    ],
    [
      'pageDomains: letter case does not matter',
      on([{ pageDomains: ['Example.COM'] }]),
      { url: HOST, pageUrl: 'https://EXAMPLE.com/' },
      true,
    ],
    [
      'pageDomains: one of several',
      on([{ pageDomains: ['example.org', 'example.com'] }]),
      { url: HOST, pageUrl: 'https://www.example.com/' },
      true,
    ],
    ['pageDomains: an unknown page fails', on([{ pageDomains: ['example.com'] }]), { url: HOST }, false],
    [
      'pageDomains: the request host does not count',
      on([{ pageDomains: ['api.example.com'] }]),
      { url: HOST, pageUrl: 'https://shop.example.com/' },
      false,
    ],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));

  const payload = (key: string, value: string, operator?: string) =>
    on([{ requestPayload: { key, value, ...(operator ? { operator } : {}) } }]);
  const BODY = JSON.stringify({
    operationName: 'GetUser',
    user: { id: 7, admin: false, score: 1.5, name: null },
    items: [{ sku: 'A-1' }, { sku: 'B-2' }],
  });
  const withBody = (body?: string): RequestInput => ({
    url: HOST,
    method: 'POST',
    ...(body === undefined ? {} : { body }),
  });

  it.each<MatchCase>([
    ['requestPayload: a top-level string', payload('operationName', 'GetUser'), withBody(BODY), true],
    [
      'requestPayload: Equals is the default, not Contains',
      payload('operationName', 'Get'),
      withBody(BODY),
      false,
    ],
    ['requestPayload: Contains', payload('operationName', 'Get', 'Contains'), withBody(BODY), true],
    ['requestPayload: Equals is case-sensitive', payload('operationName', 'getuser'), withBody(BODY), false],
    [
      'requestPayload: a dot path into an object, a number as text',
      payload('user.id', '7'),
      withBody(BODY),
      true,
    ],
    ['requestPayload: a number is its text, not padded', payload('user.id', '07'), withBody(BODY), false],
    ['requestPayload: a decimal number', payload('user.score', '1.5'), withBody(BODY), true],
    ['requestPayload: a boolean as text', payload('user.admin', 'false'), withBody(BODY), true],
    ['requestPayload: an array index in the path', payload('items.1.sku', 'B-2'), withBody(BODY), true],
    ['requestPayload: Contains on a number', payload('user.score', '.5', 'Contains'), withBody(BODY), true],
    ['requestPayload: a missing leaf fails', payload('user.email', ''), withBody(BODY), false],
    ['requestPayload: an index past the array fails', payload('items.5.sku', 'A-1'), withBody(BODY), false],
    ['requestPayload: a null leaf fails', payload('user.name', 'null'), withBody(BODY), false],
    ['requestPayload: an object leaf fails', payload('user', '[object Object]'), withBody(BODY), false],
    ['requestPayload: a body that is not JSON fails', payload('a', '1'), withBody('a=1'), false],
    ['requestPayload: no body fails', payload('a', '1'), withBody(), false],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));

  it.each<MatchCase>([
    [
      'every field of one filter object must pass (all do)',
      on([{ requestMethod: ['POST'], resourceType: ['xmlhttprequest'] }]),
      { url: HOST, method: 'POST', resourceType: 'xmlhttprequest' },
      true,
    ],
    [
      'every field of one filter object must pass (one fails)',
      on([{ requestMethod: ['POST'], resourceType: ['xmlhttprequest'] }]),
      { url: HOST, method: 'POST', resourceType: 'script' },
      false,
    ],
    [
      'every filter object must pass (all do)',
      on([{ requestMethod: ['POST'] }, { pageDomains: ['example.com'] }]),
      { url: HOST, method: 'POST', pageUrl: 'https://example.com/' },
      true,
    ],
    [
      'every filter object must pass (the second fails)',
      on([{ requestMethod: ['POST'] }, { pageDomains: ['example.org'] }]),
      { url: HOST, method: 'POST', pageUrl: 'https://example.com/' },
      false,
    ],
    [
      'filters never rescue a source that does not match',
      src('host', 'Equals', 'other.example.com', [{ requestMethod: ['GET'] }]),
      { url: HOST },
      false,
    ],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));

  it('lists the checks in order and stops at the first that fails', () => {
    const source = on([{ requestMethod: ['GET'], resourceType: ['script'], pageDomains: ['example.com'] }]);
    const pair = verdict(run([cancel('c', source)], { url: HOST, resourceType: 'image' }), 'c').pairs[0];
    expect(pair?.checks.map(({ check, passed }) => [check, passed])).toEqual([
      ['source', true],
      ['filters[0].requestMethod', true],
      ['filters[0].resourceType', false],
    ]);
    expect(pair?.checks[2]?.detail).toContain('image');
  });

  it('a failing source is the only check', () => {
    const pair = verdict(run([cancel('c', on([{ requestMethod: ['GET'] }]))], { url: API }), 'c').pairs[0];
    expect(pair?.checks).toEqual([
      { check: 'source', passed: false, detail: expect.stringContaining('api.example.com:8443') },
    ]);
  });
});

describe('captures in what a rule writes (section 3)', () => {
  const GROUPS = src('Url', 'Matches', '^https://(\\w+)\\.example\\.com:8443/(\\w+)/');
  const TEN = src('path', 'Matches', '^/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)$');
  type CaptureCase = [title: string, source: Json, url: string, destination: string, expected: string];
  it.each<CaptureCase>([
    [
      '$1 and $2 in a Redirect destination',
      GROUPS,
      API,
      'https://$1.staging.example.com/$2',
      'https://api.staging.example.com/v1',
    ],
    ['${N} names a capture', GROUPS, API, 'https://x.example.net/${2}/${1}', 'https://x.example.net/v1/api'],
    ['$$ is a literal $', GROUPS, API, 'https://x.example.net/$$1', 'https://x.example.net/$1'],
    ['$ alone stays', GROUPS, API, 'https://x.example.net/a$', 'https://x.example.net/a$'],
    ['$0 stays as written', GROUPS, API, 'https://x.example.net/$0', 'https://x.example.net/$0'],
    [
      '$N beyond the captures stays as written',
      GROUPS,
      API,
      'https://x.example.net/$3',
      'https://x.example.net/$3',
    ],
    [
      '${N} beyond the captures stays as written',
      GROUPS,
      API,
      'https://x.example.net/${3}',
      'https://x.example.net/$%7B3%7D',
    ],
    [
      '$1 with no captures at all stays',
      src('Url', 'Contains', 'users'),
      API,
      'https://x.example.net/$1',
      'https://x.example.net/$1',
    ],
    [
      'a capture that did not take part is empty',
      src('path', 'Matches', '^/(x)?(v1)/'),
      API,
      'https://x.example.net/p$1q$2',
      'https://x.example.net/pqv1',
    ],
    [
      '${10} is the tenth capture',
      TEN,
      'https://e.com/abcdefghij',
      'https://x.example.net/${10}',
      'https://x.example.net/j',
    ],
    [
      '$10 is $1 followed by 0',
      TEN,
      'https://e.com/abcdefghij',
      'https://x.example.net/$10',
      'https://x.example.net/a0',
    ],
    [
      '$9 is the ninth',
      TEN,
      'https://e.com/abcdefghij',
      'https://x.example.net/$9',
      'https://x.example.net/i',
    ],
    [
      'wildcard stars are the captures',
      src('Url', 'Wildcard_Matches', '*://*.example.com/*'),
      'https://api.example.com/v1/x',
      '$1://$2.mirror.example.net/$3',
      'https://api.mirror.example.net/v1/x',
    ],
    [
      'a capture may fill the whole destination',
      src('Url', 'Wildcard_Matches', 'https://go.example.com/*'),
      'https://go.example.com/https://target.example.net/a',
      '$1',
      'https://target.example.net/a',
    ],
  ])('%s', (_title, source, url, destination, expected) => {
    const trace = run([redirect('r', source, destination)], { url });
    expect(trace.outcome.url).toBe(expected);
    expect(trace.outcome.redirected).toBe(true);
  });

  type ReplaceCase = [title: string, source: Json, from: string, to: string, expected: string];
  it.each<ReplaceCase>([
    [
      'a plain from: $1 in to stays as written (the source captures do not fill it)',
      src('path', 'Matches', '^/(v\\d)/'),
      'users',
      'people-$1',
      'https://api.example.com:8443/v1/people-$1?id=7#top',
    ],
    [
      'a regex from: $$ in to is a literal $',
      ANY,
      '/users/',
      'u$$',
      'https://api.example.com:8443/v1/u$?id=7#top',
    ],
    [
      'a regex from: $N beyond the groups stays as written',
      ANY,
      '/(users)/',
      'x$2',
      'https://api.example.com:8443/v1/x$2?id=7#top',
    ],
    [
      'a regex from: the groups of from fill to, not the source captures',
      src('path', 'Matches', '/(v\\d)/'),
      '/(users)/',
      '$1-x',
      'https://api.example.com:8443/v1/users-x?id=7#top',
    ],
    [
      'a regex from: a backslash in to is literal',
      ANY,
      '/users/',
      'a\\b',
      'https://api.example.com:8443/v1/a/b?id=7#top',
    ],
  ])('%s', (_title, source, from, to, expected) => {
    expect(run([replace('p', source, from, to)], { url: API }).outcome.url).toBe(expected);
  });
});
