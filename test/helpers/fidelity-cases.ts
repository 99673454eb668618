// The fidelity points (Requestly's rules behave as they did): one table of cases, run in the engine
// (test/unit/fidelity-table.test.ts) and through POST /v1/trace (test/api/trace-fidelity.test.ts).
// Rules are written as a trace body writes them; rule N is `inline:N` in both.

import { expect } from 'vitest';
import type { TraceResult } from '../../src/engine/index.js';

type Json = Record<string, unknown>;

export interface FidelityCase {
  title: string;
  rules: Json[];
  request: { url: string; method?: string; pageUrl?: string; headers?: Record<string, string> };
  /** A subset of the outcome. */
  outcome?: Json;
  /** Each rule's reason, in order. */
  reasons?: string[];
  /** Rule index → the rule index named by overriddenBy. */
  overriddenBy?: Record<number, number>;
  /** Values a header of the outcome must match (random digits). */
  headerPatterns?: Record<string, RegExp>;
  responseHeaderPatterns?: Record<string, RegExp>;
  /** Text a check of the first rule's first pair must hold. */
  detail?: RegExp;
  /** What the first rule's first pair's effect must say (as JSON). */
  effect?: RegExp;
}

export interface RefusalCase {
  title: string;
  rule: Json;
  /** The pointer into the rule, and the message. */
  path: string;
  message: RegExp;
}

const rule = (ruleType: string, pairs: Json[]): Json => ({
  name: `a ${ruleType}`,
  ruleType,
  status: 'Active',
  pairs,
});
const src = (key: string, operator: string, value: string, filters?: Json[]): Json => ({
  key,
  operator,
  value,
  ...(filters ? { filters } : {}),
});
const ANY = src('Url', 'Contains', 'x.com');
const replace = (from: string, to: string, source = ANY) => rule('Replace', [{ source, from, to }]);
const cancel = (source = ANY) => rule('Cancel', [{ source }]);
const redirect = (destination: string, source = ANY) =>
  rule('Redirect', [{ source, destinationType: 'url', destination }]);
const delay = (ms: number) => rule('Delay', [{ source: ANY, delay: ms }]);
const requestHeaders = (changes: Json[]) =>
  rule('Headers', [{ source: ANY, modifications: [{ Request: changes }] }]);
const responseHeaders = (changes: Json[]) =>
  rule('Headers', [{ source: ANY, modifications: [{ Response: changes }] }]);
const queryParam = (modifications: Json[]) => rule('QueryParam', [{ source: ANY, modifications }]);
const matches = (key: string, operator: string, value: string) => cancel(src(key, operator, value));

const U = 'https://x.com/api/v2/u';
const on = (url = U) => ({ url });

/** Replace `to` read as JavaScript's replace. */
const replaceCases: FidelityCase[] = [
  ['$1 is the group of a regex from', '/v([0-9])/', 'v$1-beta', U, 'https://x.com/api/v2-beta/u'],
  ['$& is the match', '/api/', '$&-v3', U, 'https://x.com/api-v3/v2/u'],
  ["$' is the text after the match", '/a/', "$'", 'https://x.com/ab', 'https://x.com/bb'],
  ['$` is the text before the match', '/u$/', 'z$`', 'https://x.com/u', 'https://x.com/zhttps://x.com/'],
  ['$$ is a dollar sign', '/v2/', '$$v', U, 'https://x.com/api/$v/u'],
  ['without g only the first match', '/k/', 'q', 'https://x.com/k/k/k', 'https://x.com/q/k/k'],
  ['with g every match', '/k/g', 'q', 'https://x.com/k/k/k', 'https://x.com/q/q/q'],
  ['$<name> is a named group', '/(?<ver>v\\d)/', '$<ver>-beta', U, 'https://x.com/api/v2-beta/u'],
  [
    '$<name> without named groups stays as written',
    '/(v\\d)/',
    '$<ver>',
    U,
    'https://x.com/api/$%3Cver%3E/u',
  ],
  ['$10 with one group is $1 then 0', '/(v)2/', '$10', U, 'https://x.com/api/v0/u'],
  ['$01 is group 1', '/(v)2/', '$01x', U, 'https://x.com/api/vx/u'],
  ['a group that did not take part is empty', '/(z)?v2/', '[$1]', U, 'https://x.com/api/[]/u'],
  ['$2 beyond the groups stays as written', '/(v)2/', '$2', U, 'https://x.com/api/$2/u'],
  ['plain from: $1 stays as written', 'v2', '$1', U, 'https://x.com/api/$1/u'],
  ['plain from: $& is the match', 'v2', '$&-beta', U, 'https://x.com/api/v2-beta/u'],
  ['plain from: the first occurrence only', 'k', 'q', 'https://x.com/k/k', 'https://x.com/q/k'],
  ['plain from: $$ is a dollar sign', 'v2', '$$', U, 'https://x.com/api/$/u'],
  ['flag i acts on from', '/API/i', 'svc', U, 'https://x.com/svc/v2/u'],
].map(([title, from, to, url, expected]) => ({
  title: `Replace: ${title}`,
  rules: [replace(from as string, to as string)],
  request: on(url),
  outcome: { url: expected, redirected: true },
  reasons: ['acted'],
}));

replaceCases.push({
  title: 'Replace: the source captures never fill to ($1 of a from without groups stays)',
  rules: [replace('/api/', '$1', src('Url', 'Wildcard_Matches', '*://x.com/*'))],
  request: on(),
  outcome: { url: 'https://x.com/$1/v2/u' },
  reasons: ['acted'],
});

const cancelCases: FidelityCase[] = [
  {
    title: 'Cancel: a Headers rule before it is reported cancelled, and adds nothing',
    rules: [requestHeaders([{ header: 'X-A', type: 'Add', value: '1' }]), cancel()],
    request: on(),
    outcome: { cancelled: true, requestHeaders: {} },
    reasons: ['cancelled', 'acted'],
    overriddenBy: { 0: 1 },
  },
  {
    title: 'Cancel: a Redirect before it is undone',
    rules: [redirect('https://y.com/'), cancel(src('Url', 'Contains', ''))],
    request: on(),
    outcome: { cancelled: true, url: U, redirected: false },
    reasons: ['cancelled', 'acted'],
    overriddenBy: { 0: 1 },
  },
  {
    title: 'Cancel: a Replace before it is undone',
    rules: [replace('v2', 'v3'), cancel()],
    request: on(),
    outcome: { cancelled: true, url: U },
    reasons: ['cancelled', 'acted'],
  },
  {
    title: 'Cancel: rules after it are cancelled',
    rules: [cancel(), delay(50)],
    request: on(),
    outcome: { cancelled: true, delayMs: 0 },
    reasons: ['acted', 'cancelled'],
    overriddenBy: { 1: 0 },
  },
  {
    title: 'Cancel: a second Cancel is cancelled by the first',
    rules: [cancel(), cancel()],
    request: on(),
    outcome: { cancelled: true },
    reasons: ['acted', 'cancelled'],
    overriddenBy: { 1: 0 },
  },
  {
    title: 'Cancel: one that does not match leaves the others acting',
    rules: [delay(50), cancel(src('host', 'Equals', 'y.com'))],
    request: on(),
    outcome: { cancelled: false, delayMs: 50 },
    reasons: ['acted', 'no_pair_matched'],
  },
  {
    title: 'Cancel: a Response before it serves nothing',
    rules: [rule('Response', [{ source: ANY, type: 'static', value: '{}' }]), delay(5), cancel()],
    request: on(),
    outcome: { cancelled: true, response: null, delayMs: 0 },
    reasons: ['cancelled', 'cancelled', 'acted'],
  },
  {
    title: 'Cancel: a rule before it that matched but changed nothing is cancelled too',
    rules: [replace('nowhere', 'x'), cancel()],
    request: on(),
    reasons: ['cancelled', 'acted'],
  },
];

const unchanged = (title: string, rules: Json[], request = on(), outcome: Json = {}): FidelityCase => ({
  title: `no_change: ${title}`,
  rules,
  request,
  outcome: { redirected: false, ...outcome },
  reasons: rules.map(() => 'no_change'),
});

const noChangeCases: FidelityCase[] = [
  unchanged('a Replace whose from is not in the URL', [replace('v9', 'v3')]),
  unchanged('a Replace whose regex does not match', [replace('/v[5-9]/', 'v3')]),
  unchanged('a Replace by the same text', [replace('v2', 'v2')]),
  unchanged('a Replace whose result is no web URL', [replace('https:', 'ftp:')]),
  unchanged('a QueryParam Remove of an absent parameter', [queryParam([{ param: 'q', type: 'Remove' }])]),
  unchanged(
    'a QueryParam Add ignored because the parameter is there',
    [queryParam([{ param: 'a', type: 'Add', value: '2', actionWhenParamExists: 'Ignore' }])],
    on('https://x.com/?a=1'),
  ),
  unchanged('a QueryParam Remove All without a query', [queryParam([{ type: 'Remove All' }])]),
  unchanged('a Headers Modify of an absent header', [
    requestHeaders([{ header: 'X-A', type: 'Modify', value: '1' }]),
  ]),
  unchanged('a Headers Remove of an absent header', [requestHeaders([{ header: 'Cookie', type: 'Remove' }])]),
  unchanged('a Redirect to the URL requested', [redirect(U)]),
  unchanged('a Redirect to the URL requested, spelled otherwise', [redirect('HTTPS://X.COM/api/v2/u')]),
  {
    title: 'no_change: a Headers Remove of an absent header with an Add acts',
    rules: [
      requestHeaders([
        { header: 'Cookie', type: 'Remove' },
        { header: 'X-A', type: 'Add', value: '1' },
      ]),
    ],
    request: on(),
    outcome: { requestHeaders: { 'x-a': '1' } },
    reasons: ['acted'],
  },
  {
    title: 'no_change: a response header change always acts (the response is not known)',
    rules: [responseHeaders([{ header: 'Server', type: 'Remove' }])],
    request: on(),
    reasons: ['acted'],
  },
  {
    title: 'no_change: a Redirect that changes nothing does not take the effect from a later one',
    rules: [redirect(U), redirect('https://y.com/')],
    request: on(),
    outcome: { url: 'https://y.com/', redirected: true },
    reasons: ['no_change', 'acted'],
  },
  {
    title: 'no_change: a Redirect that changes nothing does not stop a later Replace',
    rules: [redirect(U), replace('v2', 'v3')],
    request: on(),
    outcome: { url: 'https://x.com/api/v3/u' },
    reasons: ['no_change', 'acted'],
  },
  {
    title: 'no_change: the pair effect says what was tried',
    rules: [replace('v9', 'v3')],
    request: on(),
    reasons: ['no_change'],
    effect: /"unchanged":"\\"v9\\" is not in the URL"/,
  },
  {
    title: 'no_change: a Headers Modify of a present header acts',
    rules: [requestHeaders([{ header: 'X-A', type: 'Modify', value: '2' }])],
    request: { url: U, headers: { 'X-A': '1' } },
    outcome: { requestHeaders: { 'x-a': '2' } },
    reasons: ['acted'],
  },
];

const emptyCases: FidelityCase[] = (
  [
    ['Url', 'Equals'],
    ['host', 'Equals'],
    ['path', 'Equals'],
    ['Url', 'Contains'],
    ['path', 'Matches'],
    ['host', 'Wildcard_Matches'],
    ['path', 'Wildcard_Matches'],
  ] as const
).map(([key, operator]) => ({
  title: `empty value: ${key} ${operator} "" matches every request`,
  rules: [matches(key, operator, '')],
  request: on(),
  outcome: { cancelled: true },
  reasons: ['acted'],
  detail: /an empty value matches every request/,
}));

const regex = (title: string, value: string, url: string, matched: boolean, key = 'Url'): FidelityCase => ({
  title: `JavaScript pattern: ${title}`,
  rules: [matches(key, 'Matches', value)],
  request: on(url),
  outcome: { cancelled: matched },
  reasons: [matched ? 'acted' : 'no_pair_matched'],
});

const regexCases: FidelityCase[] = [
  regex(
    '[\\d.-\\w]+: the dash between class escapes is itself',
    '^/[\\d.-\\w]+$',
    'https://x.com/a-b.c',
    true,
    'path',
  ),
  regex('[\\d.-\\w]+ is no range that takes a slash', '^/[\\d.-\\w]+$', 'https://x.com/a/b', false, 'path'),
  regex('[^] is any character', '^/[^]+$', 'https://x.com/a/b', true, 'path'),
  regex('[] matches nothing', 'a[]', 'https://x.com/a', false),
  regex('\\/ is a slash', '/\\/api\\/v2/', U, true),
  regex('\\u0061 is a', '/\\u0061pi/', U, true),
  regex('\\u{61} with u is a', '/\\u{61}pi/u', U, true),
  regex('\\u{61} without u is u repeated', '/\\u{61}pi/', U, false),
  regex('\\x2F is a slash', '\\x2Fapi', U, true),
  regex('an escape of a letter that needs none is the letter', '/\\a\\p\\i/', U, true),
  regex('\\A is the letter A', '/\\Api/', U, false),
  regex('\\A is the letter A (with i)', '/\\Api/i', U, true),
  regex('\\p without u is p', '/\\p{L}/', U, false),
  regex('\\p{L} with u is a letter', '/^\\/\\p{L}+/u', U, true, 'path'),
  regex('\\cJ is a line feed, never in a URL', '/a\\cJ/', 'https://x.com/aJ', false),
  regex('a { that is no repeat is itself', '/a{/', 'https://x.com/?a{', true),
  regex('(?:…) groups', '/(?:api|svc)\\/v2/', U, true),
  regex('flag s lets . match anything', '/api.v2/s', U, true),
  regex('flags d, g, y and v are accepted', '/api/dgy', U, true),
  {
    title: 'JavaScript pattern: a named group is a capture of the source',
    rules: [redirect('https://y.com/$1', src('path', 'Matches', '^/api/(?<ver>v\\d)/'))],
    request: on(),
    outcome: { url: 'https://y.com/v2' },
    reasons: ['acted'],
  },
  {
    title: 'JavaScript pattern: translated patterns tried together agree with each alone',
    rules: [
      matches('path', 'Matches', '^/[\\d.-\\w]+/v9'),
      matches('path', 'Matches', '\\u0061pi\\/v[^]'),
      matches('host', 'Matches', '^\\x78\\.'),
      matches('path', 'Matches', '[\\w-]+\\/u$'),
    ],
    request: on(),
    outcome: { cancelled: true },
    reasons: ['no_pair_matched', 'acted', 'cancelled', 'cancelled'],
  },
];

const cors = (value: string) =>
  responseHeaders([
    { header: 'Access-Control-Allow-Origin', type: 'Add', value },
    { header: 'Access-Control-Allow-Credentials', type: 'Add', value: 'true' },
  ]);

const functionCases: FidelityCase[] = [
  {
    title: "header function: rq_request_initiator_origin() is the request's Origin",
    rules: [cors('rq_request_initiator_origin()')],
    request: { url: U, headers: { Origin: 'https://app.example' } },
    responseHeaderPatterns: { 'Access-Control-Allow-Origin': /^https:\/\/app\.example$/ },
    reasons: ['acted'],
  },
  {
    title: 'header function: rq_request_initiator_origin() without Origin is the page origin',
    rules: [cors('rq_request_initiator_origin()')],
    request: { url: U, pageUrl: 'http://localhost:3000/page?x=1' },
    responseHeaderPatterns: { 'Access-Control-Allow-Origin': /^http:\/\/localhost:3000$/ },
    reasons: ['acted'],
  },
  {
    title: 'header function: rq_request_initiator_origin() with neither is *',
    rules: [cors('rq_request_initiator_origin()')],
    request: on(),
    responseHeaderPatterns: { 'Access-Control-Allow-Origin': /^\*$/ },
    reasons: ['acted'],
  },
  {
    title: 'header function: rq_rand(4) is four random digits',
    rules: [requestHeaders([{ header: 'X-R', type: 'Add', value: 'rq_rand(4)' }])],
    request: on(),
    headerPatterns: { 'x-r': /^\d{4}$/ },
    reasons: ['acted'],
  },
  {
    title: 'header function: calls inside other text, in a Modify',
    rules: [
      requestHeaders([
        { header: 'X-R', type: 'Modify', value: 'id-rq_rand(2)-rq_request_initiator_origin()' },
      ]),
    ],
    request: { url: U, headers: { 'X-R': 'old', Origin: 'https://o.example' } },
    headerPatterns: { 'x-r': /^id-\d{2}-https:\/\/o\.example$/ },
    reasons: ['acted'],
  },
];

const pageCases: FidelityCase[] = [
  [
    "pageUrl (Requestly's name) is the URL filter",
    [{ pageUrl: { operator: 'Contains', value: 'app.example' } }],
    'https://app.example/p',
    true,
  ],
  [
    'pageUrl that does not match',
    [{ pageUrl: { operator: 'Contains', value: 'other' } }],
    'https://app.example/p',
    false,
  ],
  [
    'pageDomains .example.com matches example.com',
    [{ pageDomains: ['.example.com'] }],
    'https://example.com/',
    true,
  ],
  [
    'pageDomains .example.com matches a subdomain',
    [{ pageDomains: ['.example.com'] }],
    'https://a.example.com/',
    true,
  ],
  [
    'pageDomains .example.com never matches notexample.com',
    [{ pageDomains: ['.example.com'] }],
    'https://notexample.com/',
    false,
  ],
  ['pageDomains in capitals match', [{ pageDomains: ['Example.COM'] }], 'https://www.example.com/', true],
].map(([title, filters, pageUrl, matched]) => ({
  title: `page filter: ${title}`,
  rules: [cancel(src('Url', 'Contains', 'x.com', filters as Json[]))],
  request: { url: U, pageUrl: pageUrl as string },
  outcome: { cancelled: matched },
  reasons: [matched ? 'acted' : 'no_pair_matched'],
}));

export const FIDELITY_CASES: FidelityCase[] = [
  ...replaceCases,
  ...cancelCases,
  ...noChangeCases,
  ...emptyCases,
  ...regexCases,
  ...functionCases,
  ...pageCases,
];

const refused = (title: string, value: string, message: RegExp): RefusalCase => ({
  title,
  rule: matches('Url', 'Matches', value),
  path: '/pairs/0/source/value',
  message,
});

export const REFUSAL_CASES: RefusalCase[] = [
  refused(
    'a lookbehind, named with its position',
    '(?<=a)b',
    /lookbehind \(\?<=…\) at 0 cannot be run in linear time/,
  ),
  refused(
    'a negative lookahead',
    '/a(?!b)/',
    /negative lookahead \(\?!…\) at 2 cannot be run in linear time/,
  ),
  refused('a backreference', '(a)\\1', /backreference \\1 at 3 cannot be run in linear time/),
  refused('a named backreference', '(?<n>a)\\k<n>', /backreference \\k<n> at 7 cannot be run in linear time/),
  refused('an unknown flag', '/a/x', /unknown flag x \(flags are d, g, i, m, s, u, y, v\)/),
  refused('a flag given twice', '/a/gg', /flag g is given twice/),
  refused('flags u and v together', '/a/uv', /flags u and v cannot be given together/),
  refused('(?i), which JavaScript does not read', '(?i)abc', /Invalid group/),
  refused('a class range out of order', '[b-a]', /Range out of order in character class/),
  refused('a repetition over 1000', 'a{2000}', /the repetition \{2000\} at 1 is over 1000/),
  {
    title: 'a Replace from with an unknown flag',
    rule: replace('/a/x', 'b'),
    path: '/pairs/0/from',
    message: /unknown flag x/,
  },
  {
    title: 'a Replace from with a lookbehind',
    rule: replace('/(?<=a)b/', 'c'),
    path: '/pairs/0/from',
    message: /lookbehind \(\?<=…\) at 1 cannot be run in linear time/,
  },
  {
    title: 'rq_rand asking for more than 8 digits',
    rule: requestHeaders([{ header: 'X-R', type: 'Add', value: 'rq_rand(9)' }]),
    path: '/pairs/0/modifications/0/Request/0/value',
    message: /rq_rand\(9\) must ask for 1 to 8 random digits/,
  },
];

/** What every case expects of a trace, however it was made (the engine here, the API elsewhere). */
export function expectCase(c: FidelityCase, trace: Pick<TraceResult, 'outcome' | 'rules'>): void {
  if (c.outcome) expect(trace.outcome).toMatchObject(c.outcome);
  if (c.reasons) expect(trace.rules.map((r) => r.reason)).toEqual(c.reasons);
  for (const r of trace.rules) expect(r.acted).toBe(r.reason === 'acted');
  for (const [index, by] of Object.entries(c.overriddenBy ?? {})) {
    expect(trace.rules[Number(index)]?.overriddenBy).toBe(`inline:${by}`);
  }
  for (const [name, pattern] of Object.entries(c.headerPatterns ?? {})) {
    expect(trace.outcome.requestHeaders[name]).toMatch(pattern);
  }
  for (const [name, pattern] of Object.entries(c.responseHeaderPatterns ?? {})) {
    expect(trace.outcome.responseHeaders.find((h) => h.header === name)?.value).toMatch(pattern);
  }
  const pair = trace.rules[0]?.pairs[0];
  if (c.detail) expect(pair?.checks.map((check) => check.detail).join('\n')).toMatch(c.detail);
  if (c.effect) expect(JSON.stringify(pair?.effect)).toMatch(c.effect);
}
