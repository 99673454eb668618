// The rule lint as a table written by hand: each workspace with exactly the findings it must give
// (code, severity, rules), the many that must give none included. Sampled answers say so.
import { describe, expect, it } from 'vitest';
import {
  type Finding,
  findingsOf,
  type LintGroup,
  type LintRule,
  lintRule,
  lint as lintWithOptions,
  lintWorkspace,
  preparedLint,
} from '../../src/engine/lint/index.js';
import { cancel, headers, type Json, queryParam, redirect, replace, rule, src } from './engine-helpers.js';

type Expected = [code: Finding['code'], severity: Finding['severity'], ruleIds: string[]];
type Case = [title: string, rules: LintRule[], expected: Expected[], groups?: LintGroup[]];

const lint = (rules: LintRule[], groups: LintGroup[] = []) => lintWorkspace(rules, groups);
const brief = (findings: Finding[]) => findings.map((f): Expected => [f.code, f.severity, f.ruleIds]);

const inactive = (r: LintRule): LintRule => ({ ...r, status: 'Inactive' });
const inGroup = (r: LintRule, groupId: string): LintRule => ({ ...r, groupId });
const group = (id: string, status: string): LintGroup => ({ id, name: `group ${id}`, status });
const typed = (id: string, ruleType: string, source: Json, pair: Json = {}) =>
  rule(id, ruleType, [{ source, ...pair }]);
const response = (id: string, source: Json, pair: Json = {}) =>
  typed(id, 'Response', source, { type: 'static', value: '{}', statusCode: 200, ...pair });
const delay = (id: string, source: Json) => typed(id, 'Delay', source, { delay: 100 });
const url = (value: string) => src('Url', 'Equals', value);
const contains = (value: string, filters?: Json[]) => src('Url', 'Contains', value, filters);
const MAIN_FRAME = [{ resourceType: ['main_frame'] }];

const redirectLoops: Case[] = [
  [
    'a self-redirect that grows the URL is an endless loop',
    [redirect('r', src('Url', 'Wildcard_Matches', 'https://example.com/*'), 'https://example.com/v2/$1')],
    [['redirect_loop', 'error', ['r']]],
  ],
  [
    // The whole URL matched, put after a relative destination: the URL doubles at every hop.
    'a self-redirect that doubles the URL is an endless loop, found before the URL is megabytes long',
    [redirect('r', src('Url', 'Wildcard_Matches', 'https://api.example.com/*'), '{{API}}/api/$1')],
    [['redirect_loop', 'error', ['r']]],
  ],
  [
    'A to B and B to A is a loop naming both',
    [
      redirect('a', url('https://a.example/x'), 'https://b.example/y'),
      redirect('b', url('https://b.example/y'), 'https://a.example/x'),
    ],
    [['redirect_loop', 'error', ['a', 'b']]],
  ],
  [
    'a loop of three through captures',
    [
      redirect('a', src('host', 'Equals', 'one.test'), 'https://two.test/'),
      redirect('b', src('host', 'Equals', 'two.test'), 'https://three.test/'),
      redirect('c', src('host', 'Equals', 'three.test'), 'https://one.test/'),
    ],
    [['redirect_loop', 'error', ['a', 'b', 'c']]],
  ],
  [
    'a destination its own source matches again is a warning (the second redirect changes nothing)',
    [redirect('r', contains('example.com/api'), 'https://staging.example.com/api')],
    [['redirect_loop', 'warning', ['r']]],
  ],
  [
    'a loop whose rule only matches main frames is found with a main-frame request',
    [
      redirect(
        'r',
        src('Url', 'Wildcard_Matches', 'https://example.com/*', MAIN_FRAME),
        'https://example.com/x/$1',
      ),
    ],
    [['redirect_loop', 'error', ['r']]],
  ],
  [
    'not reported: a redirect elsewhere',
    [redirect('r', url('https://a.example/old'), 'https://a.example/new')],
    [],
  ],
  [
    'not reported: a chain that ends',
    [
      redirect('a', url('https://a.example/1'), 'https://a.example/2'),
      redirect('b', url('https://a.example/2'), 'https://a.example/3'),
    ],
    [],
  ],
  [
    'not reported: a loop through an inactive rule',
    [
      redirect('a', url('https://a.example/x'), 'https://b.example/y'),
      inactive(redirect('b', url('https://b.example/y'), 'https://a.example/x')),
    ],
    [],
  ],
  [
    'not reported: a loop through a rule of an inactive group (which is said instead)',
    [
      redirect('a', url('https://a.example/x'), 'https://b.example/y'),
      inGroup(redirect('b', url('https://b.example/y'), 'https://a.example/x'), 'Group_off'),
    ],
    [['active_in_inactive_group', 'info', ['b']]],
    [group('Group_off', 'Inactive')],
  ],
  [
    'not reported: a redirect to a local file',
    [redirect('r', contains('example.com/app.js'), '/home/me/app.js', 'map_local')],
    [],
  ],
  [
    'not reported: a loop a Cancel of the destination stops',
    [
      cancel('c', url('https://b.example/y')),
      redirect('a', url('https://a.example/x'), 'https://b.example/y'),
      redirect('b', url('https://b.example/y'), 'https://a.example/x'),
    ],
    [['shadowed', 'warning', ['b', 'c']]],
  ],
];

const shadowedCases: Case[] = [
  [
    'a later Cancel shadows an earlier rule it covers (a Cancel that acts wins before or after it)',
    [
      headers('h', src('host', 'Equals', 'ads.example.com'), [{ header: 'X-A', type: 'Add', value: '1' }]),
      cancel('c', src('host', 'Contains', 'ads.example')),
    ],
    [['shadowed', 'warning', ['h', 'c']]],
  ],
  [
    'not reported: a later Cancel with a URL change between (it sees another URL)',
    [
      headers('h', contains('ads'), [{ header: 'X-A', type: 'Add', value: '1' }]),
      replace('r', contains('ads'), 'ads', 'news'),
      cancel('c', contains('ads')),
    ],
    [],
  ],
  [
    'an earlier wider Redirect shadows a narrower one (exact)',
    [
      redirect('wide', contains('example.com'), 'https://other.test/'),
      redirect('narrow', url('https://example.com/x'), 'https://other.test/x'),
    ],
    [['shadowed', 'warning', ['narrow', 'wide']]],
  ],
  [
    'not reported: the narrower rule first',
    [
      redirect('narrow', url('https://example.com/x'), 'https://other.test/x'),
      redirect('wide', contains('example.com'), 'https://other.test/'),
    ],
    [],
  ],
  [
    'an earlier Cancel shadows a rule of another type',
    [
      cancel('c', src('host', 'Equals', 'ads.example.com')),
      headers('h', src('host', 'Equals', 'ads.example.com'), [{ header: 'X-A', type: 'Add', value: '1' }]),
    ],
    [['shadowed', 'warning', ['h', 'c']]],
  ],
  [
    'a regular expression over a Contains (sampled)',
    [
      response('re', src('Url', 'Matches', '/\\/api\\/v[0-9]+\\//')),
      response('users', contains('/api/v1/users')),
    ],
    [['shadowed', 'warning', ['users', 're']]],
  ],
  [
    'a Contains over a regular expression whose required text holds it (exact)',
    [response('api', contains('/api/')), response('re', src('Url', 'Matches', '/\\/api\\/v[0-9]+\\/users/'))],
    [['shadowed', 'warning', ['re', 'api']]],
  ],
  [
    'not reported: a filtered earlier rule over an unfiltered later one',
    [delay('get', contains('slow', [{ requestMethod: ['GET'] }])), delay('all', contains('slow'))],
    [],
  ],
  [
    'an unfiltered earlier rule over a filtered later one',
    [delay('all', contains('slow')), delay('get', contains('slow', [{ requestMethod: ['GET'] }]))],
    [['shadowed', 'warning', ['get', 'all']]],
  ],
  [
    'not reported: Headers rules all act',
    [
      headers('h1', contains('example.com'), [{ header: 'X-A', type: 'Add', value: '1' }]),
      headers('h2', url('https://example.com/'), [{ header: 'X-B', type: 'Add', value: '1' }]),
    ],
    [],
  ],
  [
    'not reported: a Replace between the two changes the URL the later one sees',
    [
      redirect('wide', contains('example.com'), 'https://other.test/'),
      replace('swap', contains('old'), 'old', 'new'),
      redirect('narrow', url('https://example.com/x'), 'https://other.test/x'),
    ],
    [],
  ],
  [
    'a pair behind a covering pair of the same Redirect',
    [
      rule('r', 'Redirect', [
        { source: contains('example.com'), destinationType: 'url', destination: 'https://o.test/a' },
        { source: url('https://example.com/p'), destinationType: 'url', destination: 'https://o.test/b' },
      ]),
    ],
    [['shadowed', 'warning', ['r']]],
  ],
  [
    'a case-insensitive expression over a Contains (sampled)',
    [response('ci', src('Url', 'Matches', '/EXAMPLE\\.com/i')), response('plain', contains('example.com'))],
    [['shadowed', 'warning', ['plain', 'ci']]],
  ],
  [
    'not reported: a case-sensitive Contains over a case-insensitive expression',
    [response('plain', contains('example.com')), response('ci', src('Url', 'Matches', '/example\\.com/i'))],
    [],
  ],
  [
    'page domains: a domain covers its subdomains',
    [
      response('parent', contains('/api', [{ pageDomains: ['example.com'] }])),
      response('child', contains('/api', [{ pageDomains: ['shop.example.com'] }])),
    ],
    [['shadowed', 'warning', ['child', 'parent']]],
  ],
  [
    'not reported: a subdomain does not cover its parent',
    [
      response('child', contains('/api', [{ pageDomains: ['shop.example.com'] }])),
      response('parent', contains('/api', [{ pageDomains: ['example.com'] }])),
    ],
    [],
  ],
  [
    'not reported: an inactive earlier rule',
    [inactive(response('wide', contains('example.com'))), response('narrow', url('https://example.com/x'))],
    [],
  ],
  [
    'wildcards: a wider wildcard over a narrower one (exact)',
    [
      response('any', src('Url', 'Wildcard_Matches', '*://api.example.com/*')),
      response('v1', src('Url', 'Wildcard_Matches', 'https://api.example.com/v1/*')),
    ],
    [['shadowed', 'warning', ['v1', 'any']]],
  ],
  [
    'not reported: a wildcard anchored at both ends over a Contains',
    [
      response('w', src('Url', 'Wildcard_Matches', 'https://*.example.com/*')),
      response('c', contains('api.example.com')),
    ],
    [],
  ],
  [
    'not reported: different keys',
    [response('h', src('host', 'Contains', 'example')), response('p', src('path', 'Contains', 'example'))],
    [],
  ],
];

const noOps: Case[] = [
  [
    'a Replace from not in the one URL its source matches',
    [replace('r', url('https://a.example/x?y=1'), 'prod', 'staging')],
    [['no_op', 'warning', ['r']]],
  ],
  [
    'not reported: a Replace from that may be in the URL',
    [replace('r', contains('example.com'), 'prod', 'staging')],
    [],
  ],
  [
    'a Replace from with a character a URL never holds',
    [replace('r', contains('example.com'), 'café menu', 'x')],
    [['no_op', 'warning', ['r']]],
  ],
  [
    'a Replace pattern that does not match the one URL',
    [replace('r', url('https://a.example/x'), '/v[0-9]/', 'v9')],
    [['no_op', 'warning', ['r']]],
  ],
  [
    'not reported: a Replace pattern that matches it',
    [replace('r', url('https://a.example/v2/x'), '/v[0-9]/', 'v9')],
    [],
  ],
  [
    'a Replace of a text by itself',
    [replace('r', contains('example.com'), 'prod', 'prod')],
    [['no_op', 'warning', ['r']]],
  ],
  [
    'a QueryParam Remove of a parameter the one URL has not',
    [
      queryParam('q', url('https://a.example/p?x=1'), [
        { param: 'utm', type: 'Remove' },
        { param: 'x', type: 'Remove' },
      ]),
    ],
    [['no_op', 'warning', ['q']]],
  ],
  [
    'a QueryParam Remove after Remove All of the same pair',
    [queryParam('q', contains('example.com'), [{ type: 'Remove All' }, { param: 'a', type: 'Remove' }])],
    [['no_op', 'warning', ['q']]],
  ],
  [
    'not reported: a Remove of a parameter added after Remove All',
    [
      queryParam('q', contains('example.com'), [
        { type: 'Remove All' },
        { param: 'a', type: 'Add', value: '1' },
        { param: 'a', type: 'Remove' },
      ]),
    ],
    [],
  ],
  [
    'a Headers Modify of a header the same pair removed',
    [
      headers('h', contains('example.com'), [
        { header: 'X-A', type: 'Remove' },
        { header: 'x-a', type: 'Modify', value: '2' },
      ]),
    ],
    [['no_op', 'warning', ['h']]],
  ],
  [
    'not reported: Remove, Add, then Modify',
    [
      headers('h', contains('example.com'), [
        { header: 'X-A', type: 'Remove' },
        { header: 'X-A', type: 'Add', value: '1' },
        { header: 'X-A', type: 'Modify', value: '2' },
      ]),
    ],
    [],
  ],
  [
    'not reported: a request header removed, the response header modified',
    [
      headers(
        'h',
        contains('example.com'),
        [{ header: 'Server', type: 'Remove' }],
        [{ header: 'Server', type: 'Modify', value: 'x' }],
      ),
    ],
    [],
  ],
];

const others: Case[] = [
  [
    'a Cancel with an empty value matches everything',
    [cancel('c', contains(''))],
    [['matches_everything', 'warning', ['c']]],
  ],
  [
    'a Cancel on Contains "/" matches everything',
    [cancel('c', contains('/'))],
    [['matches_everything', 'warning', ['c']]],
  ],
  [
    'a Response on Matches /.*/ matches everything',
    [response('r', src('Url', 'Matches', '/.*/'))],
    [['matches_everything', 'warning', ['r']]],
  ],
  [
    'a Response on the wildcard * matches everything',
    [response('r', src('path', 'Wildcard_Matches', '*'))],
    [['matches_everything', 'warning', ['r']]],
  ],
  [
    'not reported: an empty value narrowed by a filter, or on a Headers rule',
    [
      cancel('c', contains('', [{ pageDomains: ['ads.test'] }])),
      headers('h', contains(''), [{ header: 'X-A', type: 'Add', value: '1' }]),
    ],
    [],
  ],
  ['not reported: host Contains "." (localhost has none)', [cancel('c', src('host', 'Contains', '.'))], []],
  [
    'group status: inactive in active, active in inactive; nothing for active in active',
    [
      inGroup(inactive(cancel('off', url('https://a.test/'))), 'Group_on'),
      inGroup(cancel('on', url('https://b.test/')), 'Group_off'),
      inGroup(cancel('fine', url('https://c.test/')), 'Group_on'),
    ],
    [
      ['inactive_in_active', 'info', ['off']],
      ['active_in_inactive_group', 'info', ['on']],
    ],
    [group('Group_on', 'Active'), group('Group_off', 'Inactive')],
  ],
  [
    'duplicates: the same type and pairs, whatever their ids',
    [
      rule('h1', 'Headers', [
        {
          id: 'p1',
          source: contains('x.test'),
          modifications: [{ Request: [{ id: 'm1', header: 'X-A', type: 'Add', value: '1' }] }],
        },
      ]),
      rule('h2', 'Headers', [
        {
          id: 'p2',
          source: contains('x.test'),
          modifications: [{ Request: [{ id: 'm2', header: 'X-A', type: 'Add', value: '1' }] }],
        },
      ]),
    ],
    [['duplicate', 'warning', ['h2', 'h1']]],
  ],
  [
    'duplicates: each later copy against the first, one finding the size of two rules',
    ['q1', 'q2', 'q3'].map((id) =>
      rule(id, 'QueryParam', [
        {
          source: contains('x.test'),
          modifications: [{ actionWhenParamExists: 'Overwrite', param: 'a', type: 'Add', value: '1' }],
        },
      ]),
    ),
    [
      ['duplicate', 'warning', ['q2', 'q1']],
      ['duplicate', 'warning', ['q3', 'q1']],
    ],
  ],
  [
    'a duplicate Cancel is also shadowed by the first',
    [cancel('c1', url('https://a.test/')), cancel('c2', url('https://a.test/'))],
    [
      ['shadowed', 'warning', ['c2', 'c1']],
      ['duplicate', 'warning', ['c2', 'c1']],
    ],
  ],
  [
    'not reported: the same source on two types',
    [response('r', url('https://a.test/')), delay('d', url('https://a.test/'))],
    [],
  ],
  [
    'browser_unsupported: a pattern over Chrome’s budget',
    [response('big', src('Url', 'Matches', '/^https?:\\/\\/([a-z0-9-]+\\.)*example\\.com\\/.{0,100}/'))],
    [['browser_unsupported', 'warning', ['big']]],
  ],
  [
    'not reported: a modest pattern',
    [response('small', src('Url', 'Matches', '/^https:\\/\\/api\\.example\\.com\\/v[0-9]+\\//'))],
    [],
  ],
  [
    'code_needs_allow: a code Response; not a static one',
    [
      response('code', url('https://a.test/'), {
        type: 'code',
        value: 'function modifyResponse(a) { return a.response; }',
      }),
      response('static', url('https://b.test/')),
    ],
    [['code_needs_allow', 'info', ['code']]],
  ],
];

describe.each([
  ['redirect_loop', redirectLoops],
  ['shadowed', shadowedCases],
  ['no_op', noOps],
  ['the other codes', others],
])('%s', (_name, cases) => {
  it.each(cases)('%s', (_title, rules, expected, groups) => {
    const findings = lint(rules, groups);
    expect(brief(findings)).toEqual(expected);
    // What a write of one rule answers: the same findings about it, found from that rule alone.
    for (const { id } of rules) expect(lintRule(rules, groups ?? [], id)).toEqual(findingsOf(findings, id));
    // And what a batch of writes answers, each rule in turn against one preparation of the workspace.
    const batch = preparedLint(rules, groups ?? []);
    for (const { id } of rules)
      expect(findingsOf(batch({ focus: id }).findings, id)).toEqual(findingsOf(findings, id));
  });
});

describe('what findings say', () => {
  it('a redirect whose URL doubles at every hop is told as growing, with the URLs it grew through', () => {
    const rules = [
      redirect('r', src('Url', 'Wildcard_Matches', 'https://api.example.com/*'), '{{API}}/api/$1'),
    ];
    const [finding] = lint(rules);
    expect(finding?.message).toMatch(
      /redirect a request to ever longer URLs, past 8192 characters after \d+ redirects/,
    );
    expect(finding?.message).toContain('https://api.example.com/');
  });
  it('a sampled answer says it was sampled, an exact one says exact', () => {
    const [sampled] = lint(shadowedCases[5]?.[1] as LintRule[]);
    expect(sampled?.message).toContain('sampling');
    const [exact] = lint(shadowedCases[2]?.[1] as LintRule[]);
    expect(exact?.message).toContain('exactly');
  });

  it('names rules, points into them, and gives a hint', () => {
    const [finding] = lint([replace('r', url('https://a.example/x'), 'prod', 'staging')]);
    expect(finding).toEqual({
      code: 'no_op',
      severity: 'warning',
      ruleIds: ['r'],
      pointers: [{ ruleId: 'r', path: '/pairs/0/from' }],
      message: expect.stringContaining('"rule r"'),
      hint: expect.any(String),
    });
  });

  it('comes errors first, then warnings, then information', () => {
    const findings = lint(
      [
        inGroup(inactive(cancel('off', url('https://a.test/'))), 'Group_on'),
        response('all', contains('')),
        redirect('r', src('Url', 'Wildcard_Matches', 'https://example.com/*'), 'https://example.com/v2/$1'),
      ],
      [group('Group_on', 'Active')],
    );
    expect(findings.map((f) => f.severity)).toEqual(['error', 'warning', 'info']);
  });

  it('says when the comparisons of rules stopped at the budget, and finds less then', () => {
    const rules = shadowedCases[2]?.[1] as LintRule[];
    expect(lintWithOptions(rules, [])).toEqual({ findings: lint(rules), complete: true });
    const cut = lintWithOptions(rules, [], { comparisons: 0 });
    expect(cut).toEqual({ findings: [], complete: false });
  });

  it('holds at least 40 workspaces', () => {
    expect(redirectLoops.length + shadowedCases.length + noOps.length + others.length).toBeGreaterThanOrEqual(
      40,
    );
  });
});
