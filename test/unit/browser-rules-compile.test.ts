// The compiler of browser rules (src/engine/dnr) as a table: what each operator, key and rule type
// becomes in Chrome's declarativeNetRequest, what is reported instead, priorities, and Chrome's limits.
// Whether Chromium agrees is test/browser/dnr-parity.spec.ts's work; here regexFilters are run with RE2.
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileBrowserRules, MAX_DYNAMIC_RULES, MAX_REGEX_RULES } from '../../src/engine/dnr/index.js';
import {
  ANY,
  cancel,
  headers,
  type Json,
  queryParam,
  redirect,
  replace,
  rule,
  src,
  userAgent,
} from './engine-helpers.js';

const one = (ruleJson: ReturnType<typeof rule>) => compileBrowserRules([ruleJson]);
const conditionOf = (source: Json) => one(cancel('c', source)).rules[0]?.condition;

/** Whether the compiled condition's regexFilter finds a match in `url`, as Chrome's RE2 would. */
function regexMatches(source: Json, url: string): boolean {
  const regex = conditionOf(source)?.regexFilter;
  if (regex === undefined) throw new Error(`no regexFilter for ${JSON.stringify(source)}`);
  return RE2JS.compile(regex).matcher(url).find();
}

describe('sources', () => {
  it.each<[string, Json, Json]>([
    ['Url Contains: a urlFilter', src('Url', 'Contains', 'example.com/a'), { urlFilter: 'example.com/a' }],
    [
      'Url Equals: anchored at both ends',
      src('Url', 'Equals', 'https://a.com/'),
      { urlFilter: '|https://a.com/|' },
    ],
    [
      'Url Wildcard: anchored, * kept',
      src('Url', 'Wildcard_Matches', '*://*.a.com/*'),
      { urlFilter: '|*://*.a.com/*|' },
    ],
    [
      'Contains with Chrome syntax: escaped in a regex',
      src('Url', 'Contains', 'a*b|c^'),
      { regexFilter: 'a\\*b\\|c\\^' },
    ],
    [
      'Matches: the RE2 text, case-insensitive with i',
      src('Url', 'Matches', '/v[0-9]+/i'),
      { regexFilter: 'v[\\x{30}-\\x{39}]+', isUrlFilterCaseSensitive: false },
    ],
    ['an empty value: no URL condition', src('Url', 'Contains', ''), { isUrlFilterCaseSensitive: true }],
  ])('%s', (_title, source, expected) => {
    const condition = conditionOf(source);
    expect(condition).toMatchObject({ isUrlFilterCaseSensitive: true, ...expected });
    if (!('urlFilter' in expected)) expect(condition?.urlFilter).toBeUndefined();
    if (!('regexFilter' in expected)) expect(condition?.regexFilter).toBeUndefined();
  });

  it('lists every resource type when no filter names one (Chrome would leave out main_frame)', () => {
    expect(conditionOf(ANY)?.resourceTypes).toContain('main_frame');
    expect(conditionOf(src('Url', 'Contains', 'x', [{ resourceType: ['script'] }]))?.resourceTypes).toEqual([
      'script',
    ]);
  });

  it.each<[string, Json, string, boolean]>([
    ['host Equals: the host', src('host', 'Equals', 'a.com'), 'https://a.com/x', true],
    ['host Equals: not a subdomain', src('host', 'Equals', 'a.com'), 'https://b.a.com/x', false],
    [
      'host Equals: not in the query',
      src('host', 'Equals', 'a.com'),
      'https://b.com/?u=https://a.com/',
      false,
    ],
    [
      'host Equals: a non-default port is part of it',
      src('host', 'Equals', 'a.com'),
      'https://a.com:8443/',
      false,
    ],
    ['host Equals: after user information', src('host', 'Equals', 'a.com'), 'https://u:p@a.com/', true],
    ['host Contains: inside the host', src('host', 'Contains', 'exam'), 'https://api.example.com/', true],
    ['host Contains: not in the path', src('host', 'Contains', 'exam'), 'https://a.com/example', false],
    ['host Wildcard', src('host', 'Wildcard_Matches', '*.example.com'), 'https://api.example.com/', true],
    [
      'host Wildcard: a star stays in the host',
      src('host', 'Wildcard_Matches', 'a*'),
      'https://a.com/b',
      true,
    ],
    [
      'host Wildcard: anchored',
      src('host', 'Wildcard_Matches', '*.example.com'),
      'https://api.example.com.evil/',
      false,
    ],
    ['path Equals', src('path', 'Equals', '/v1/users'), 'https://a.com/v1/users?id=7', true],
    ['path Equals: not a longer path', src('path', 'Equals', '/v1'), 'https://a.com/v1/users', false],
    ['path Contains: in the path', src('path', 'Contains', 'users'), 'https://a.com/v1/users?x', true],
    ['path Contains: not in the query', src('path', 'Contains', 'id=7'), 'https://a.com/v1?id=7', false],
    ['path Contains: not in the host', src('path', 'Contains', 'example'), 'https://example.com/a', false],
    ['path Contains /: the first slash counts', src('path', 'Contains', '/a'), 'https://x.com/a', true],
    [
      'path Wildcard: a leading star is in the path',
      src('path', 'Wildcard_Matches', '*.com/x'),
      'https://a.com/x',
      false,
    ],
    [
      'path Wildcard: a leading star takes the path',
      src('path', 'Wildcard_Matches', '*.js'),
      'https://a.com/b/c.js',
      true,
    ],
    ['path Wildcard: anchored', src('path', 'Wildcard_Matches', '/a/*'), 'https://x.com/b/a/c', false],
  ])('%s', (_title, source, url, matched) => {
    expect(regexMatches(source, url)).toBe(matched);
  });

  it.each<[string, Json, string]>([
    ['a fragment: the browser never sends it', src('Url', 'Contains', '#top'), 'fragment'],
    ['a regular expression on the host', src('host', 'Matches', '/a/'), 'host'],
    [
      'a page URL filter',
      src('Url', 'Contains', 'a', [{ URL: { operator: 'Contains', value: 'b' } }]),
      'page',
    ],
    [
      'a requestPayload filter',
      src('Url', 'Contains', 'a', [{ requestPayload: { key: 'a', value: 'b' } }]),
      'body',
    ],
    ['a host value past the regex budget', src('host', 'Contains', 'a'.repeat(200)), '2 KB'],
    ['a pattern naming #: the fragment', src('Url', 'Matches', '/\\d#top/'), 'fragment'],
    [
      'code points past \\xFF, which Chromium refuses',
      src('Url', 'Matches', '/[\\u2000-\\u3000]x/'),
      '\\xFF',
    ],
  ])('not compiled: %s', (_title, source, reason) => {
    const { rules, report } = one(cancel('c', source));
    expect(rules).toEqual([]);
    expect(report[0]).toMatchObject({ status: 'not_compiled', reasons: [expect.stringContaining(reason)] });
  });

  it('a source that never matches a URL a browser sends needs no rule, and is compiled', () => {
    const { rules, report } = one(cancel('c', src('host', 'Contains', '/v1')));
    expect(rules).toEqual([]);
    expect(report[0]).toMatchObject({
      status: 'compiled',
      pairs: [{ browserRuleIds: [], reasons: [expect.any(String)] }],
    });
  });
});

describe('rule types', () => {
  it('Redirect with captures: a regex over the whole URL and a regexSubstitution', () => {
    const { rules } = one(
      redirect('r', src('Url', 'Wildcard_Matches', '*://*.example.com/*'), 'https://$2.staging.com/$3?$$'),
    );
    expect(rules[0]?.action).toEqual({
      type: 'redirect',
      redirect: { regexSubstitution: 'https://\\2.staging.com/\\3?$' },
    });
    const regex = RE2JS.compile(rules[0]?.condition.regexFilter as string);
    const url = 'https://api.example.com/v1/x';
    const m = regex.matcher(url);
    expect(m.find() && [m.group(1), m.group(2), m.group(3)]).toEqual(['https', 'api', 'v1/x']);
  });

  it('Redirect to a local file is not compiled', () => {
    const report = one(redirect('r', ANY, '/tmp/x.json', 'map_local')).report[0];
    expect(report).toMatchObject({
      status: 'not_compiled',
      reasons: [expect.stringContaining('local file')],
    });
  });

  it('Replace: the first occurrence, with the text around it kept', () => {
    const { rules } = one(replace('p', src('Url', 'Contains', 'v1'), 'v1/', 'v2/$&'));
    expect(rules[0]?.action.redirect?.regexSubstitution).toBe('\\1v2/\\2\\3');
    expect(rules[0]?.condition.regexFilter).toBe('^([!-~]*?)(v1/)([!-~]*)$');
  });

  it('Replace writing a scheme the engine never sends is not compiled', () => {
    const report = one(replace('p', ANY, 'https:', 'ftp:')).report[0];
    expect(report).toMatchObject({ status: 'not_compiled', reasons: [expect.stringContaining('ftp')] });
  });

  it('Redirect matched at its own destination is partial (Chrome ignores it there, no later one acts)', () => {
    const self = one(redirect('r', src('Url', 'Contains', 'x.com'), 'https://x.com/a')).report[0];
    expect(self).toMatchObject({ status: 'partial', reasons: [expect.stringContaining('own destination')] });
    const elsewhere = one(redirect('r', src('Url', 'Contains', 'x.com'), 'https://y.com/a')).report[0];
    expect(elsewhere?.status).toBe('compiled');
  });

  it("JavaScript's . and [^] become their ASCII part, which Chromium takes", () => {
    expect(conditionOf(src('Url', 'Matches', '/a.b[^]c/'))?.regexFilter).toBe(
      'a[\\x00-\\x09\\x0B\\x0C\\x0E-\\x7F]b[\\x00-\\x7F]c',
    );
  });

  it('Replace whose source is not implied by from is not compiled', () => {
    const report = one(replace('p', src('host', 'Equals', 'a.com'), 'x', 'y')).report[0];
    expect(report?.status).toBe('not_compiled');
  });

  it('QueryParam: a query transform; Ignore is written as an Add, and said so (partial)', () => {
    const { rules } = one(
      queryParam('q', ANY, [
        { param: 'a', type: 'Add', value: '1' },
        { param: 'b', type: 'Remove' },
      ]),
    );
    expect(rules[0]?.action.redirect?.transform).toEqual({
      queryTransform: { removeParams: ['b'], addOrReplaceParams: [{ key: 'a', value: '1' }] },
    });
    // Measured in Chromium: addOrReplaceParams keeps a repeated parameter's repeats.
    expect(one(queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '1' }])).report[0]?.status).toBe(
      'partial',
    );
    const ignored = one(
      queryParam('q', ANY, [{ param: 'a', type: 'Add', value: '1', actionWhenParamExists: 'Ignore' }]),
    );
    expect(ignored.rules[0]?.action.redirect?.transform).toEqual({
      queryTransform: { addOrReplaceParams: [{ key: 'a', value: '1' }] },
    });
    expect(ignored.report[0]).toMatchObject({
      status: 'partial',
      reasons: [
        expect.stringContaining('Add a (actionWhenParamExists: Ignore): when the request has the parameter'),
      ],
    });
  });

  it("Headers: Modify is written as Chrome's set, and the difference said (partial)", () => {
    const { rules, report } = one(
      headers(
        'h',
        ANY,
        [
          { header: 'X-A', type: 'Remove' },
          { header: 'X-B', type: 'Modify', value: '1' },
        ],
        [{ header: 'X-C', type: 'Add', value: '2' }],
      ),
    );
    expect(rules[0]?.action).toEqual({
      type: 'modifyHeaders',
      requestHeaders: [
        { header: 'X-A', operation: 'remove' },
        { header: 'X-B', operation: 'set', value: '1' },
      ],
      responseHeaders: [{ header: 'X-C', operation: 'append', value: '2' }],
    });
    expect(report[0]).toMatchObject({
      status: 'partial',
      reasons: [
        expect.stringContaining("Request Modify X-B: written as Chrome's set, which also adds the header"),
      ],
    });
  });

  it("Headers: a request header added is written as Chrome's set, as Requestly's extension does (partial)", () => {
    const { rules, report } = one(
      headers('h', ANY, [
        { header: 'Accept-Language', type: 'Add', value: 'fr' },
        { header: 'X-A', type: 'Remove' },
      ]),
    );
    expect(rules[0]?.action).toEqual({
      type: 'modifyHeaders',
      requestHeaders: [
        { header: 'Accept-Language', operation: 'set', value: 'fr' },
        { header: 'X-A', operation: 'remove' },
      ],
    });
    expect(report[0]).toMatchObject({
      status: 'partial',
      reasons: [
        expect.stringContaining(
          "Request Add Accept-Language: written as Chrome's set (as Requestly's extension does), which replaces a value the request already has",
        ),
      ],
    });
  });

  it("Headers: a value calling Requestly's functions cannot act (not compiled when it is all)", () => {
    const { report } = one(
      headers(
        'h',
        ANY,
        [],
        [{ header: 'Access-Control-Allow-Origin', type: 'Add', value: 'rq_request_initiator_origin()' }],
      ),
    );
    expect(report[0]).toMatchObject({
      status: 'not_compiled',
      reasons: [expect.stringContaining('calls a function the engine evaluates per request')],
    });
  });

  it('Replace with flag g: the first match replaced, and said so (partial)', () => {
    const { rules, report } = one(replace('g', src('Url', 'Contains', ''), '/a/g', 'b'));
    expect(rules).toHaveLength(1);
    expect(report[0]).toMatchObject({
      status: 'partial',
      reasons: [expect.stringContaining('flag g: Chrome replaces the first match only')],
    });
  });

  it.each<[string, Json]>([
    ['Script with removeCSPHeader: false', { removeCSPHeader: false }],
    ['Response', {}],
    ['Request', {}],
    ['Delay', {}],
  ])('%s is not compiled, with the reason', (title, fields) => {
    const type = title.split(' ')[0] as string;
    const report = one(rule('x', type, [{ source: ANY }], fields)).report[0];
    expect(report).toEqual({
      ruleId: 'x',
      status: 'not_compiled',
      reasons: [expect.stringMatching(/Chrome's rules cannot/)],
    });
  });

  describe('Script: the Content-Security-Policy of the documents it matches removed, as Requestly does', () => {
    const script = (source: Json, fields: Json = {}) =>
      rule('s', 'Script', [{ source, scripts: [{ type: 'code', codeType: 'js', value: '1' }] }], fields);
    const removal = {
      type: 'modifyHeaders',
      responseHeaders: [{ header: 'Content-Security-Policy', operation: 'remove' }],
    };

    it.each<[string, Json]>([
      ['by default (removeCSPHeader absent: Requestly reads it as true)', {}],
      ['with removeCSPHeader: true', { removeCSPHeader: true }],
    ])(
      "%s: one rule per pair on main and sub frames, partial (the scripts are the content scripts' work)",
      (_title, fields) => {
        const { rules, report } = one(script(src('Url', 'Contains', 'shop.example'), fields));
        expect(rules).toEqual([
          {
            id: 1,
            priority: 1,
            action: removal,
            condition: expect.objectContaining({
              urlFilter: 'shop.example',
              resourceTypes: ['main_frame', 'sub_frame'],
            }),
          },
        ]);
        expect(report[0]).toMatchObject({
          ruleId: 's',
          status: 'partial',
          pairs: [{ index: 0, status: 'partial', browserRuleIds: [1] }],
          reasons: [expect.stringContaining('content scripts inject them')],
        });
      },
    );

    it("a resourceType filter keeps its documents only; one without any is never a Script's request", () => {
      const framed = one(script(src('Url', 'Contains', 'a', [{ resourceType: ['sub_frame', 'script'] }])));
      expect(framed.rules[0]?.condition.resourceTypes).toEqual(['sub_frame']);
      const scripts = one(script(src('Url', 'Contains', 'a', [{ resourceType: ['script', 'image'] }])));
      expect(scripts.rules).toEqual([]);
      expect(scripts.report[0]).toMatchObject({ status: 'compiled', pairs: [{ browserRuleIds: [] }] });
    });
  });

  it('only active rules, in list order; Cancel above all, earlier above later', () => {
    const { rules, report } = compileBrowserRules([
      redirect('r1', ANY, 'https://one.com/'),
      cancel('off', ANY, { status: 'Inactive' }),
      cancel('grouped', ANY, { groupStatus: 'Inactive' }),
      redirect('r2', ANY, 'https://two.com/'),
      cancel('c', ANY),
    ]);
    expect(report.map((r) => r.ruleId)).toEqual(['r1', 'r2', 'c']);
    expect(rules.map((r) => [r.id, r.priority])).toEqual([
      [1, 2],
      [2, 1],
      [3, 3],
    ]);
  });
});

describe('across rules: in Chrome every rule sees the URL as requested, one URL change per request', () => {
  const statusOf = (rules: ReturnType<typeof rule>[]) =>
    Object.fromEntries(compileBrowserRules(rules).report.map((r) => [r.ruleId, r.status]));
  const HOST_SHOP = src('host', 'Equals', 'shop.example.com');

  it('a Replace, then a Cancel of the URL as requested: both partial, each naming the other', () => {
    const { report } = compileBrowserRules([replace('p', ANY, 'shop', 'store'), cancel('c', HOST_SHOP)]);
    expect(report).toEqual([
      {
        ruleId: 'p',
        status: 'partial',
        // Each pair alone is expressed: what parts is the rule beside the other.
        pairs: [expect.objectContaining({ status: 'compiled', reasons: [] })],
        reasons: [
          'in Chrome every rule sees the URL as requested: a later Cancel (c) that matches the URL as requested ' +
            'blocks the request, where the engine matches that Cancel against the URL this rule changed',
        ],
      },
      {
        ruleId: 'c',
        status: 'partial',
        pairs: [expect.objectContaining({ status: 'compiled', reasons: [] })],
        reasons: [
          'in Chrome it sees the URL as requested, not as the URL-changing rules before it (p) leave it: it may ' +
            'block a request the engine lets through',
        ],
      },
    ]);
  });

  it('two URL changes in a row: both partial (Chrome applies one per request; undone, it loops)', () => {
    const { report } = compileBrowserRules([
      replace('p1', ANY, 'shop', 'store'),
      replace('p2', ANY, 'store', 'shop'),
    ]);
    expect(report.map((r) => [r.ruleId, r.status])).toEqual([
      ['p1', 'partial'],
      ['p2', 'partial'],
    ]);
    expect(report[0]?.reasons).toEqual([
      expect.stringMatching(
        /^in Chrome one URL change applies per request: .*later URL changes \(p2\).*loop/,
      ),
    ]);
    expect(report[1]?.reasons).toEqual([
      expect.stringMatching(
        /^in Chrome one URL change applies per request: after the change of a rule before it \(p1\)/,
      ),
    ]);
  });

  it.each<[string, ReturnType<typeof rule>[]]>([
    [
      'a QueryParam, then a Replace',
      [queryParam('q', ANY, [{ param: 'x', type: 'Remove' }]), replace('p', ANY, 'a', 'b')],
    ],
    [
      'a Replace, then a Redirect',
      [
        replace('p', ANY, 'shop', 'store'),
        redirect('r', src('host', 'Equals', 'store.example.com'), 'https://a.com/'),
      ],
    ],
    [
      'a QueryParam, then a Cancel of the whole URL',
      [queryParam('q', ANY, [{ param: 'x', type: 'Remove' }]), cancel('c', src('Url', 'Contains', 'x=1'))],
    ],
    [
      'a Redirect, then a Cancel of the URL as requested',
      [redirect('r', src('Url', 'Contains', 'checkout'), 'https://a.com/'), cancel('c', HOST_SHOP)],
    ],
  ])('%s: both partial', (_title, rules) => {
    // Each alone compiles.
    for (const one of rules) expect(statusOf([one])[one.id]).toBe('compiled');
    expect(Object.values(statusOf(rules))).toEqual(['partial', 'partial']);
  });

  it.each<[string, ReturnType<typeof rule>[]]>([
    [
      'a Cancel before the Replace (both see the URL as requested)',
      [cancel('c', HOST_SHOP), replace('p', ANY, 'shop', 'store')],
    ],
    [
      'a Cancel of every URL (it matches the changed one too)',
      [replace('p', ANY, 'shop', 'store'), cancel('c', ANY)],
    ],
    [
      'a QueryParam, then a host or path Cancel (a query change leaves them)',
      [
        queryParam('q', ANY, [{ param: 'x', type: 'Remove' }]),
        cancel('c', HOST_SHOP),
        cancel('d', src('path', 'Contains', '/a')),
      ],
    ],
    [
      'a Redirect, then URL changes (the engine changes no URL after a Redirect)',
      [
        redirect('r', HOST_SHOP, 'https://a.com/'),
        redirect('r2', HOST_SHOP, 'https://b.com/'),
        replace('p', ANY, 'a', 'b'),
      ],
    ],
    [
      'a Replace, then Headers and UserAgent (both act on the request the browser sends)',
      [
        replace('p', ANY, 'shop', 'store'),
        headers('h', HOST_SHOP, [{ header: 'X-A', type: 'Remove' }]),
        userAgent('u', HOST_SHOP, 'ua'),
      ],
    ],
    [
      'resource types that never meet',
      [
        replace('p', src('Url', 'Contains', '', [{ resourceType: ['script'] }]), 'shop', 'store'),
        cancel('c', src('host', 'Equals', 'shop.example.com', [{ resourceType: ['image'] }])),
      ],
    ],
    [
      'methods that never meet',
      [
        replace('p', src('Url', 'Contains', '', [{ requestMethod: ['GET'] }]), 'shop', 'store'),
        cancel('c', src('host', 'Equals', 'shop.example.com', [{ requestMethod: ['POST'] }])),
      ],
    ],
  ])('not reported: %s', (_title, rules) => {
    expect(Object.values(statusOf(rules)).every((status) => status === 'compiled')).toBe(true);
  });

  it("a Replace's pairs change the URL in turn: the rule says so of its own later pairs", () => {
    const twice = rule('p', 'Replace', [
      { source: ANY, from: 'shop', to: 'store' },
      { source: ANY, from: 'store', to: 'shop' },
    ]);
    const [report] = compileBrowserRules([twice]).report;
    expect(report?.status).toBe('partial');
    expect(report?.reasons).toEqual([expect.stringContaining("later URL changes (this rule's later pairs)")]);
  });

  it('names three of many, and says there are others', () => {
    const cancels = ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => cancel(id, src('Url', 'Contains', id)));
    const [first] = compileBrowserRules([replace('p', ANY, 'shop', 'store'), ...cancels]).report;
    expect(first?.reasons).toEqual([expect.stringContaining('a later Cancel (c1, c2, c3 and others)')]);
  });
});

describe("Chrome's limits", () => {
  it(`past ${MAX_DYNAMIC_RULES} rules, the rest are reported, not dropped`, () => {
    const many = Array.from({ length: MAX_DYNAMIC_RULES + 5 }, (_, i) =>
      cancel(`c${i}`, src('Url', 'Contains', `a${i}`)),
    );
    const { rules, report } = compileBrowserRules(many);
    expect(rules).toHaveLength(MAX_DYNAMIC_RULES);
    expect(report).toHaveLength(many.length);
    expect(report.at(-1)).toMatchObject({
      status: 'not_compiled',
      reasons: [expect.stringContaining('30000')],
    });
  });

  it(`past ${MAX_REGEX_RULES} regular expressions, the rest are reported`, () => {
    const many = Array.from({ length: MAX_REGEX_RULES + 1 }, (_, i) =>
      cancel(`c${i}`, src('host', 'Equals', `a${i}.com`)),
    );
    const { rules, report } = compileBrowserRules(many);
    expect(rules).toHaveLength(MAX_REGEX_RULES);
    expect(report.at(-1)).toMatchObject({
      status: 'not_compiled',
      reasons: [expect.stringContaining('1000')],
    });
  });
});
