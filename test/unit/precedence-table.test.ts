// Which rules act on a request and in what order, as a table written by hand: first one wins, all
// act, chained URL changes, a Redirect ends them, a Cancel stops all, several pairs of one rule, and
// inactive rules and groups. Every case also checks the indexed fast path against the full trace (see
// run()).
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
  type Json,
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

/** A URL without a query. */
const SHOP_A = 'https://shop.example.com/a';

const HOST_B = src('Url', 'Contains', '/b');

describe('which rules act, and in what order', () => {
  it.each<EffectCase>([
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
      outcome: { cancelled: true, requestHeaders: {} },
      reasons: [
        ['h', 'cancelled'],
        ['c', 'acted'],
      ],
      overriddenBy: { h: 'c' },
    },
    {
      title: 'Headers: a later Modify changes what an earlier Add set',
      request: { url: SHOP_A },
      rules: [
        headers('h1', ANY, [{ header: 'X', type: 'Add', value: 'a' }]),
        headers('h2', ANY, [{ header: 'X', type: 'Modify', value: 'b' }]),
      ],
      outcome: { requestHeaders: { x: 'b' } },
      reasons: [
        ['h1', 'acted'],
        ['h2', 'acted'],
      ],
    },
    {
      title: 'Replace: three chained, the last matched against the URL the first left, so it misses',
      request: { url: SHOP_A },
      rules: [
        replace('p1', src('host', 'Equals', 'shop.example.com'), 'shop', 'store'),
        replace('p2', src('host', 'Equals', 'store.example.com'), '/a', '/b'),
        replace('p3', src('host', 'Equals', 'shop.example.com'), 'example', 'nope'),
      ],
      outcome: { url: 'https://store.example.com/b', redirected: true },
      reasons: [
        ['p1', 'acted'],
        ['p2', 'acted'],
        ['p3', 'no_pair_matched'],
      ],
    },
    {
      title: 'QueryParam then Replace: the Replace matches the parameter the QueryParam added',
      request: { url: SHOP_A },
      rules: [
        queryParam('q', ANY, [{ param: 'v', type: 'Add', value: '1' }]),
        replace('p', src('Url', 'Contains', 'v=1'), 'v=1', 'v=2'),
      ],
      outcome: { url: 'https://shop.example.com/a?v=2', redirected: true },
    },
    {
      title: 'after a Redirect, rules are matched against the new URL, not the old',
      request: { url: SHOP_A },
      rules: [
        redirect('r', ANY, 'https://other.test/x'),
        cancel('old', src('host', 'Equals', 'shop.example.com')),
        cancel('new', src('host', 'Equals', 'other.test')),
      ],
      // The Cancel that matches the new URL wins over the Redirect before it.
      outcome: { cancelled: true, url: SHOP_A, redirected: false },
      reasons: [
        ['r', 'cancelled'],
        ['old', 'no_pair_matched'],
        ['new', 'acted'],
      ],
    },
    {
      title: 'a Cancel wins over a Delay before it: reported cancelled, no delay',
      request: { url: SHOP_A },
      rules: [delay('d', ANY, 5), cancel('c', ANY)],
      outcome: { cancelled: true, delayMs: 0 },
      reasons: [
        ['d', 'cancelled'],
        ['c', 'acted'],
      ],
      overriddenBy: { d: 'c' },
    },
    {
      title: 'Delay: a first one that does not match leaves the second to act',
      request: { url: SHOP_A },
      rules: [delay('d1', src('host', 'Equals', 'elsewhere.test'), 1), delay('d2', ANY, 2)],
      outcome: { delayMs: 2 },
      reasons: [
        ['d1', 'no_pair_matched'],
        ['d2', 'acted'],
      ],
    },
    {
      title: 'first-one-wins is per type: Delay, UserAgent, Request, Response and Redirect all act',
      request: { url: SHOP_A },
      rules: [
        delay('d', ANY, 1),
        userAgent('u', ANY, 'UA'),
        body('b', ANY, 'static', 'b'),
        respond('s', ANY, { type: 'static', value: 'r', serveWithoutRequest: true }),
        redirect('r', ANY, 'https://r.example/'),
      ],
      reasons: [
        ['d', 'acted'],
        ['u', 'acted'],
        ['b', 'acted'],
        ['s', 'acted'],
        ['r', 'acted'],
      ],
    },
  ])('$title', checkEffect);
});

describe('several pairs of one rule', () => {
  const pairOf = (source: Json, fields: Json) => ({ source, ...fields });
  it.each<EffectCase>([
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
  ])('$title', checkEffect);

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

  it('a rule whose pairs all miss is no_pair_matched, and explains each pair', () => {
    const r = rule('c', 'Cancel', [
      { id: 'p1', source: src('host', 'Equals', 'a.test') },
      { id: 'p2', source: src('host', 'Equals', 'b.test') },
    ]);
    const trace = run([r], { url: URL_A });
    expect(verdict(trace, 'c')).toMatchObject({ acted: false, reason: 'no_pair_matched' });
    expect(verdict(trace, 'c').pairs.map((p) => [p.index, p.pairId, p.matched])).toEqual([
      [0, 'p1', false],
      [1, 'p2', false],
    ]);
  });
});

describe('inactive rules and groups', () => {
  it.each<EffectCase>([
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
    {
      title: 'an inactive first Delay does not take the Delay from a later active one',
      request: { url: SHOP_A },
      rules: [delay('d1', ANY, 1), delay('d2', ANY, 2)].map((r, i) =>
        i === 0 ? { ...r, status: 'Inactive' } : r,
      ),
      includeInactive: true,
      outcome: { delayMs: 2 },
      reasons: [
        ['d1', 'inactive'],
        ['d2', 'acted'],
      ],
    },
  ])('$title', checkEffect);

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
