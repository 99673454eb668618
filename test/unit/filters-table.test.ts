// The engine's filters and captures as a table written by hand: every filter of a source, and
// captures in what a rule writes. Every case also checks that the indexed fast path (evaluate) agrees
// with the full trace (see run()).
import { describe, expect, it } from 'vitest';
import type { RequestInput } from '../../src/engine/index.js';
import {
  ANY,
  API,
  cancel,
  checkMatch,
  type Json,
  type MatchCase,
  redirect,
  replace,
  run,
  src,
  verdict,
} from './engine-helpers.js';

const on = (filters: Json[]) => src('host', 'Equals', 'api.example.com', filters);
const HOST = 'https://api.example.com/graphql';

describe('filters', () => {
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
    [
      'resourceType: the one listed',
      on([{ resourceType: ['script'] }]),
      { url: HOST, resourceType: 'script' },
      true,
    ],
    [
      'URL: Contains on another page fails',
      on([{ URL: { operator: 'Contains', value: 'shop' } }]),
      { url: HOST, pageUrl: 'https://blog.example.com/' },
      false,
    ],
    [
      'URL: an unknown page fails a non-empty value',
      on([{ URL: { operator: 'Contains', value: 'shop' } }]),
      { url: HOST },
      false,
    ],
    [
      'URL: Matches with /pattern/',
      on([{ URL: { operator: 'Matches', value: '/cart$/' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/cart' },
      true,
    ],
    [
      'URL: Wildcard_Matches with a trailing star',
      on([{ URL: { operator: 'Wildcard_Matches', value: 'https://shop.*' } }]),
      { url: HOST, pageUrl: 'https://shop.example.com/' },
      true,
    ],
    [
      'pageDomains: a non-default https port does not matter',
      on([{ pageDomains: ['example.com'] }]),
      { url: HOST, pageUrl: 'https://example.com:8443/' },
      true,
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
    // Bodies of one or two keys.
    [
      'requestPayload: Equals a string leaf of a one-key body',
      payload('operationName', 'GetUser'),
      { url: HOST, body: '{"operationName":"GetUser"}' },
      true,
    ],
    [
      'requestPayload: a dot path, a number as text',
      payload('user.id', '7'),
      { url: HOST, body: '{"user":{"id":7}}' },
      true,
    ],
    [
      'requestPayload: through an array index',
      payload('items.0.sku', 'A1'),
      { url: HOST, body: '{"items":[{"sku":"A1"}]}' },
      true,
    ],
    ['requestPayload: true as text', payload('draft', 'true'), { url: HOST, body: '{"draft":true}' }, true],
    [
      'requestPayload: Contains a part of a string',
      payload('q', 'shoe', 'Contains'),
      { url: HOST, body: '{"q":"red shoes"}' },
      true,
    ],
    [
      'requestPayload: Equals is the whole value',
      payload('q', 'shoe'),
      { url: HOST, body: '{"q":"red shoes"}' },
      false,
    ],
    ['requestPayload: a form body fails', payload('q', 'x'), { url: HOST, body: 'q=x' }, false],
    [
      'requestPayload: a path into an empty object fails',
      payload('q.r', 'x'),
      { url: HOST, body: '{"q":{}}' },
      false,
    ],
    [
      'requestPayload: an empty object leaf fails',
      payload('q', '{}'),
      { url: HOST, body: '{"q":{}}' },
      false,
    ],
    ['requestPayload: a GET without a body fails', payload('q', 'x'), { url: HOST }, false],
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
    [
      'every field of one filter object must pass (the second fails, the method defaults)',
      on([{ requestMethod: ['GET'], resourceType: ['script'] }]),
      { url: HOST, resourceType: 'image' },
      false,
    ],
    [
      'every filter object must pass (method and type)',
      on([{ requestMethod: ['GET'] }, { resourceType: ['script'] }]),
      { url: HOST, resourceType: 'script' },
      true,
    ],
    [
      'every filter object must pass (the type fails)',
      on([{ requestMethod: ['GET'] }, { resourceType: ['script'] }]),
      { url: HOST, resourceType: 'font' },
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

  it('says what each check compared, in words', () => {
    const source = on([{ requestMethod: ['POST'], resourceType: ['script'] }]);
    const pair = verdict(run([cancel('c', source)], { url: HOST, method: 'GET' }), 'c').pairs[0];
    expect(pair?.checks).toEqual([
      { check: 'source', passed: true, detail: 'host "api.example.com" equals "api.example.com"' },
      { check: 'filters[0].requestMethod', passed: false, detail: 'method GET is not one of POST' },
    ]);
  });

  it('says what a failing source compared', () => {
    const pair = verdict(run([cancel('c', src('host', 'Equals', 'api.example.com'))], { url: API }), 'c')
      .pairs[0];
    expect(pair?.checks).toEqual([
      {
        check: 'source',
        passed: false,
        detail: 'host "api.example.com:8443" does not equal "api.example.com"',
      },
    ]);
  });
});

describe('captures in what a rule writes', () => {
  const GROUPS = src('Url', 'Matches', '^https://(\\w+)\\.example\\.com:8443/(\\w+)/');
  const TEN = src('path', 'Matches', '^/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)$');
  const WORD_NUMBER = src('path', 'Matches', '^/(\\w+)/(\\d+)');
  const USERS_42 = 'https://x.example/users/42';
  type CaptureCase = [title: string, source: Json, url: string, destination: string, expected: string];
  // The captures a source takes.
  it.each<MatchCase>([
    [
      'an empty star is an empty capture',
      src('path', 'Wildcard_Matches', '/a*b'),
      'https://x.example/ab',
      [''],
    ],
    [
      'regex groups in order',
      src('path', 'Matches', '^/(\\w+)/(\\d+)'),
      'https://x.example/users/42',
      ['users', '42'],
    ],
    [
      'a group that did not take part is empty (before one that did)',
      src('path', 'Matches', '^/(a)?(b)'),
      'https://x.example/b',
      ['', 'b'],
    ],
    ['Contains takes no captures', src('path', 'Contains', 'x'), 'https://x.example/x', []],
  ])('%s', (_title, source, request, expected) => checkMatch(source, request, expected));

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
    // A path of a word and a number.
    [
      '$1 and $2, swapped',
      WORD_NUMBER,
      USERS_42,
      'https://new.example/$2/$1',
      'https://new.example/42/users',
    ],
    [
      '${N} next to each other',
      WORD_NUMBER,
      USERS_42,
      'https://new.example/${2}${1}',
      'https://new.example/42users',
    ],
    [
      '$$1 is a dollar sign then 1',
      WORD_NUMBER,
      USERS_42,
      'https://new.example/$$1',
      'https://new.example/$1',
    ],
    ['$3 of two captures stays', WORD_NUMBER, USERS_42, 'https://new.example/$3', 'https://new.example/$3'],
    [
      '${9} of two captures stays (and is encoded as a URL)',
      WORD_NUMBER,
      USERS_42,
      'https://new.example/${9}',
      'https://new.example/$%7B9%7D',
    ],
    [
      '$10 of two captures is $1 then 0',
      WORD_NUMBER,
      USERS_42,
      'https://new.example/$10',
      'https://new.example/users0',
    ],
    ['$0 of two captures stays', WORD_NUMBER, USERS_42, 'https://new.example/$0', 'https://new.example/$0'],
    [
      '${10}$10 side by side: the tenth, then the first and 0',
      src('path', 'Matches', '^/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)'),
      'https://x.example/abcdefghij',
      'https://n.example/${10}$10',
      'https://n.example/ja0',
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

  it('a Replace to reads $ as JavaScript does: the captures of a wildcard source never fill it', () => {
    const host = src('host', 'Wildcard_Matches', '*.example.com');
    const trace = run([replace('p', host, 'example.com', '$&.staging.example.net')], {
      url: 'https://api.example.com/x',
    });
    expect(trace.outcome.url).toBe('https://api.example.com.staging.example.net/x');
  });
});
