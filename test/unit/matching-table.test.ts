// The engine's matching as a table written by hand: the URL part each key compares, the four
// operators, and how the request is read. Filters and captures are in filters-table.test.ts. Every
// case also checks that the indexed fast path (evaluate) agrees with the full trace (see run()).
import { describe, expect, it } from 'vitest';
import { toEngineRequest } from '../../src/engine/index.js';
import { API, cancel, checkMatch, type MatchCase, run, src, URL_A, verdict } from './engine-helpers.js';

describe('keys: the URL part each key compares', () => {
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
    ['host is lower-case (no subdomain)', src('host', 'Equals', 'example.com'), 'http://EXAMPLE.com/', true],
    ['ws URLs are matched too', src('Url', 'Contains', 'ws://chat'), 'ws://chat.example.com/socket', true],
    ['a wss host', src('host', 'Equals', 'chat.example.com'), 'wss://chat.example.com/socket', true],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));
});

describe('operators: Equals and Contains', () => {
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
    ['Equals: the whole string', src('Url', 'Equals', 'https://a.example/x'), 'https://a.example/x', true],
    ['Equals: not a part of it', src('Url', 'Equals', 'https://a.example/'), 'https://a.example/x', false],
    ['Equals is case-sensitive on a path', src('path', 'Equals', '/X'), 'https://a.example/x', false],
    ['Contains: a substring of Url', src('Url', 'Contains', 'example/x'), 'https://a.example/x', true],
    [
      'Contains is case-sensitive on a path',
      src('path', 'Contains', 'Users'),
      'https://a.example/users',
      false,
    ],
    ['Contains the empty string matches any Url', src('Url', 'Contains', ''), 'https://a.example/', true],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));
});

describe('operators: Matches, RE2', () => {
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
    ['unanchored on Url', src('Url', 'Matches', 'example'), 'https://a.example/x', true],
    ['a bare pattern with anchors', src('path', 'Matches', '^/v[0-9]+/'), 'https://a.example/v2/x', true],
    ['an anchored pattern that fails', src('path', 'Matches', '^/v[0-9]+$'), 'https://a.example/v2/x', false],
    ['the /pattern/ form on host', src('host', 'Matches', '/^api\\./'), 'https://api.example.com/', true],
    ['case-sensitive without i', src('host', 'Matches', '/^API/'), 'https://api.example.com/', false],
    ['flag i on host', src('host', 'Matches', '/^API/i'), 'https://api.example.com/', true],
    [
      'flag g changes nothing (anchored)',
      src('host', 'Matches', '/^api/g'),
      'https://api.example.com/',
      true,
    ],
    ['flags u and y change nothing', src('host', 'Matches', '/^api/uy'), 'https://api.example.com/', true],
    ['flag s: . is any character', src('Url', 'Matches', '/a.b/s'), 'https://x.example/a-b', true],
    [
      '/static/app has letters that are not flags after its last slash: refused, never read bare',
      src('path', 'Matches', '/static/app'),
      'https://x.example/static/app.js',
      false,
    ],
    [
      'bare static/app pattern text matches itself',
      src('Url', 'Matches', 'static/app'),
      'https://x.example/static/app.js',
      true,
    ],
    ['. is any character', src('host', 'Matches', '^a.example'), 'https://abexample.com/', true],
    ['an escaped dot is a dot', src('host', 'Matches', '^a\\.example'), 'https://abexample.com/', false],
    ['an alternation', src('host', 'Matches', '^(api|cdn)\\.'), 'https://cdn.example.com/', true],
    ['a backreference never matches (aa)', src('Url', 'Matches', '/(a)\\1/'), 'https://aa.example/', false],
    ['a bare lookahead never matches', src('Url', 'Matches', 'a(?=a)'), 'https://aa.example/', false],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));

  it('says why a pattern RE2 refuses never matches', () => {
    const backreference = verdict(run([cancel('c', src('Url', 'Matches', '/(s)\\1/'))], { url: API }), 'c');
    expect(backreference.pairs[0]?.checks[0]?.detail).toMatch(/backreference/);
    const lookaround = verdict(run([cancel('c', src('Url', 'Matches', '/a(?=b)/'))], { url: API }), 'c');
    expect(lookaround.pairs[0]?.checks[0]?.detail).toMatch(
      /lookahead \(\?=…\) at 2 cannot be run in linear time/,
    );
  });

  it('a catastrophic pattern on a long URL answers, without backtracking', () => {
    const url = `https://x.example/${'a'.repeat(50_000)}b`;
    expect(run([cancel('c', src('path', 'Matches', '(a+)+$'))], { url }).outcome.cancelled).toBe(false);
    expect(run([cancel('c', src('path', 'Matches', '(a+)+b$'))], { url }).outcome.cancelled).toBe(true);
  });
});

describe('operators: Wildcard_Matches', () => {
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
    [
      'anchored at both ends: a host without its subdomain',
      src('host', 'Wildcard_Matches', 'example.com'),
      'https://api.example.com/',
      false,
    ],
    [
      'a star at the start',
      src('host', 'Wildcard_Matches', '*.example.com'),
      'https://api.example.com/',
      true,
    ],
    [
      'an empty star in a host',
      src('host', 'Wildcard_Matches', 'api*.example.com'),
      'https://api.example.com/',
      true,
    ],
    ['? is literal in a Url', src('Url', 'Wildcard_Matches', '*/x?y=1'), 'https://x.example/x?y=1', true],
    [
      '? is not any character in a path',
      src('path', 'Wildcard_Matches', '/a?c'),
      'https://x.example/abc',
      false,
    ],
    ['. is literal in a host', src('host', 'Wildcard_Matches', 'a.b.example'), 'https://axb.example/', false],
    ['( is literal', src('path', 'Wildcard_Matches', '/(x)'), 'https://x.example/(x)', true],
    ['case-sensitive on a path', src('path', 'Wildcard_Matches', '/A*'), 'https://x.example/abc', false],
    ['a lone star matches any Url', src('Url', 'Wildcard_Matches', '*'), 'https://x.example/', true],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));
});

describe('the request', () => {
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
