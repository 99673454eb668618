// Variables in rules (decision 20): which fields `{{NAME}}` is replaced in, that a value is inserted as
// text wherever it lands (a wildcard's star, a pattern, a capture, a scheme, a header line), and what
// a rule its variables make invalid does. Every engine case goes through run(), so the browser parity
// test (test/system/dnr-parity.test.ts) asks Chromium the same of the resolved rules.
import { describe, expect, it } from 'vitest';
import { compileBrowserRules } from '../../src/engine/dnr/index.js';
import { type LintRule, undefinedVariables } from '../../src/engine/lint/index.js';
import type { EngineRule } from '../../src/engine/types.js';
import {
  hideValues,
  inEnvironment,
  resolveInEnvironment,
  resolveRule,
  variableReferences,
  variablesUsed,
} from '../../src/engine/variables.js';
import { checkResolvedPairs } from '../../src/engine/variables-check.js';
import {
  ANY,
  cancel,
  headers,
  redirect,
  replace,
  rule,
  run,
  src,
  userAgent,
  verdict,
} from './engine-helpers.js';

const values = (entries: Record<string, string>) => new Map(Object.entries(entries));

/** The rules in the environment of `entries`, then traced on `url`. */
function traceIn(rules: EngineRule[], entries: Record<string, string>, url: string) {
  return run(inEnvironment(rules, values(entries), checkResolvedPairs).rules, { url });
}

describe('which fields are resolved', () => {
  const HOST = values({ HOST: 'staging.example.com', T: 'tok' });

  it('replaces names the workspace has, in every field decision 20 lists', () => {
    const every: [EngineRule, unknown][] = [
      [
        redirect('r', src('Url', 'Contains', '{{HOST}}/a'), 'https://{{HOST}}/b'),
        {
          source: src('Url', 'Contains', 'staging.example.com/a'),
          destinationType: 'url',
          destination: 'https://staging.example.com/b',
        },
      ],
      [replace('p', ANY, '{{HOST}}', 'x{{T}}'), { source: ANY, from: 'staging.example.com', to: 'xtok' }],
      [
        headers(
          'h',
          ANY,
          [{ header: 'X-{{T}}', type: 'Add', value: 'Bearer {{T}}' }],
          [{ header: 'X-R', type: 'Add', value: '{{T}}' }],
        ),
        {
          source: ANY,
          modifications: [
            {
              Request: [{ header: 'X-tok', type: 'Add', value: 'Bearer tok' }],
              Response: [{ header: 'X-R', type: 'Add', value: 'tok' }],
            },
          ],
        },
      ],
      [userAgent('u', ANY, 'Agent {{T}}'), { source: ANY, userAgent: 'Agent tok' }],
      [
        rule('q', 'QueryParam', [
          { source: ANY, modifications: [{ param: '{{T}}', type: 'Add', value: '{{T}}' }] },
        ]),
        { source: ANY, modifications: [{ param: '{{T}}', type: 'Add', value: 'tok' }] },
      ],
      [
        rule('b', 'Request', [{ source: ANY, type: 'static', value: '{"t":"{{T}}"}' }]),
        { source: ANY, type: 'static', value: '{"t":"tok"}' },
      ],
      [
        rule('c', 'Request', [{ source: ANY, type: 'code', value: 'return "{{T}}"' }]),
        { source: ANY, type: 'code', value: 'return "{{T}}"' },
      ],
      [
        rule('s', 'Response', [
          { source: ANY, type: 'static', value: '{{T}} {{{T}}}', statusCode: 200, statusText: 'OK {{T}}' },
        ]),
        { source: ANY, type: 'static', value: 'tok {{{T}}}', statusCode: 200, statusText: 'OK tok' },
      ],
      [
        rule('j', 'Script', [
          {
            source: ANY,
            scripts: [
              { type: 'url', codeType: 'js', loadTime: 'afterPageLoad', value: 'https://{{HOST}}/a.js' },
              { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'let t = "{{T}}"' },
            ],
          },
        ]),
        {
          source: ANY,
          scripts: [
            {
              type: 'url',
              codeType: 'js',
              loadTime: 'afterPageLoad',
              value: 'https://staging.example.com/a.js',
            },
            { type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'let t = "tok"' },
          ],
        },
      ],
      [
        cancel('f', src('Url', 'Contains', 'x', [{ URL: { operator: 'Contains', value: '{{HOST}}' } }])),
        {
          source: src('Url', 'Contains', 'x', [
            { URL: { operator: 'Contains', value: 'staging.example.com' } },
          ]),
        },
      ],
    ];
    for (const [written, pair] of every) {
      expect(resolveRule(written, HOST).pairs[0], written.id).toEqual(pair);
    }
  });

  it('leaves other braces, unknown names and Matches patterns as written, and never mutates', () => {
    const written = redirect(
      'r',
      src('Url', 'Matches', '/{{HOST}}/'),
      'https://{{ HOST }}/{{NOPE}}/{{{HOST}}}/{{HOST}',
    );
    const copy = structuredClone(written);
    expect(resolveRule(written, HOST)).toBe(written);
    expect(variablesUsed(written, HOST)).toEqual([]);
    expect(written).toEqual(copy);
    const used = redirect('u', src('Url', 'Contains', '{{T}}'), 'https://{{HOST}}/{{T}}');
    expect(variablesUsed(used, HOST)).toEqual(['T', 'HOST']);
    expect(resolveRule(used, new Map())).toBe(used);
  });

  it('lists every reference with its path, for the lint', () => {
    const written = rule('r', 'Redirect', [
      { source: src('Url', 'Contains', '{{A}}'), destinationType: 'url', destination: 'https://{{B}}/{{A}}' },
      { source: src('Url', 'Matches', '{{C}}'), destinationType: 'url', destination: 'https://x/' },
    ]);
    expect(variableReferences(written)).toEqual([
      { name: 'A', path: '/pairs/0/source/value' },
      { name: 'B', path: '/pairs/0/destination' },
      { name: 'A', path: '/pairs/0/destination' },
    ]);
  });
});

describe('a value is text wherever it lands', () => {
  it('a Contains source matches the value', () => {
    const trace = traceIn(
      [cancel('c', src('host', 'Equals', '{{HOST}}'))],
      { HOST: 'api.example.com' },
      'https://api.example.com/x',
    );
    expect(trace.outcome.cancelled).toBe(true);
  });

  it("a wildcard's stars stay wildcards, a value's star is a star", () => {
    const rules = [cancel('w', src('Url', 'Wildcard_Matches', 'https://e.example.com/{{P}}/*'))];
    const star = { P: 'x*y' };
    expect(traceIn(rules, star, 'https://e.example.com/x*y/z').outcome.cancelled).toBe(true);
    expect(verdict(traceIn(rules, star, 'https://e.example.com/x*y/z'), 'w').pairs[0]?.captures).toEqual([
      'z',
    ]);
    expect(traceIn(rules, star, 'https://e.example.com/xAy/z').outcome.cancelled).toBe(false);
    // Without a star in the value, the source stays a wildcard.
    expect(resolveRule(rules[0] as EngineRule, values({ P: 'v1' })).pairs[0]?.source).toEqual(
      src('Url', 'Wildcard_Matches', 'https://e.example.com/v1/*'),
    );
  });

  it("a destination's value is not a capture: $1 in it is written as it is", () => {
    const rules = [
      redirect(
        'r',
        src('Url', 'Wildcard_Matches', 'https://e.example.com/*'),
        'https://s.example.com/{{P}}$1',
      ),
    ];
    const trace = traceIn(rules, { P: 'v$1-' }, 'https://e.example.com/z');
    expect(trace.outcome.url).toBe('https://s.example.com/v$1-z');
  });

  it("a Replace to's value is not a replacement pattern: $& in it is written as it is", () => {
    const trace = traceIn([replace('p', ANY, 'old', '{{TO}}')], { TO: 'n$&w' }, 'https://e.example.com/old');
    expect(trace.outcome.url).toBe('https://e.example.com/n$&w');
  });

  it('a value in a pattern from matches literally, inside a class too', () => {
    const dot = [replace('p', ANY, '/\\/{{SEG}}\\//', '/v2/')];
    expect(traceIn(dot, { SEG: 'a.b' }, 'https://e.example.com/a.b/x').outcome.url).toBe(
      'https://e.example.com/v2/x',
    );
    expect(traceIn(dot, { SEG: 'a.b' }, 'https://e.example.com/aXb/x').outcome.redirected).toBe(false);
    const klass = [replace('k', ANY, '/[{{C}}]/g', '_')];
    expect(traceIn(klass, { C: 'a-c' }, 'https://h.test/abc-').outcome.url).toBe('https://h.test/_b__');
    // A quantifier after the reference repeats the whole value.
    const repeated = [replace('q', ANY, '/x{{V}}+/', 'y')];
    expect(traceIn(repeated, { V: 'ab' }, 'https://e.example.com/xababab').outcome.url).toBe(
      'https://e.example.com/y',
    );
  });

  it('a plain from whose value looks like /pattern/ stays plain text', () => {
    const trace = traceIn(
      [replace('p', ANY, '{{FROM}}', '/v2/')],
      { FROM: '/v1/' },
      'https://e.example.com/v1/users',
    );
    expect(trace.outcome.url).toBe('https://e.example.com/v2/users');
  });

  it('a header value holds the value, a user agent too', () => {
    const trace = traceIn(
      [
        headers('h', ANY, [{ header: 'Authorization', type: 'Add', value: 'Bearer {{TOKEN}}' }]),
        userAgent('u', ANY, 'Bot/{{V}}'),
      ],
      { TOKEN: 's3cr3t', V: '2' },
      'https://e.example.com/',
    );
    expect(trace.outcome.requestHeaders).toEqual({ authorization: 'Bearer s3cr3t', 'user-agent': 'Bot/2' });
  });
});

describe('a rule its variables make invalid does not act in that environment', () => {
  const cases: [string, EngineRule, Record<string, string>, string][] = [
    [
      'a header name that is no longer a name',
      headers('h', ANY, [{ header: '{{H}}', type: 'Add', value: '1' }]),
      { H: 'X Bad' },
      '/pairs/0/modifications/0/Request/0/header',
    ],
    [
      'a source value emptied (it would match every request)',
      cancel('c', src('Url', 'Contains', '{{HOST}}')),
      { HOST: '' },
      '/pairs/0/source/value',
    ],
    [
      'a destination given another scheme',
      redirect('r', src('Url', 'Contains', 'e.example.com'), '{{BASE}}/x'),
      { BASE: 'javascript:alert(1)//' },
      '/pairs/0/destination',
    ],
    [
      'a header value given a line break',
      headers('h', ANY, [{ header: 'X-A', type: 'Add', value: '{{V}}' }]),
      { V: 'a\r\nSet-Cookie: x=1' },
      '/pairs/0/modifications/0/Request/0/value',
    ],
    [
      'a header name whose variable has no value here (it is no name)',
      headers('h', ANY, [{ header: 'X-{{NOPE}}', type: 'Add', value: '1' }]),
      { OTHER: 'x' },
      '/pairs/0/modifications/0/Request/0/header',
    ],
    [
      'a replacement pattern that no longer compiles',
      replace('p', ANY, '/(?<{{N}}>a)/', 'b'),
      { N: 'x-y' },
      '/pairs/0/from',
    ],
  ];

  it.each(cases)('%s', (_title, written, entries, path) => {
    const { problems } = resolveInEnvironment(written, values(entries), checkResolvedPairs);
    expect(problems.map((p) => p.path)).toContain(path);
    for (const problem of problems) {
      for (const value of Object.values(entries)) {
        if (value.length > 2) expect(problem.message).not.toContain(value);
      }
    }
    const trace = traceIn([written], entries, 'https://e.example.com/x');
    const v = verdict(trace, written.id);
    expect(v.reason).toBe('invalid_in_environment');
    expect(v.acted).toBe(false);
    expect(v.problems?.map((p) => p.path)).toContain(path);
    expect(trace.outcome.cancelled).toBe(false);
    expect(trace.outcome.redirected).toBe(false);
    const { report, rules } = compileBrowserRules(
      inEnvironment([written], values(entries), checkResolvedPairs).rules,
    );
    expect(rules).toEqual([]);
    expect(report[0]?.status).toBe('not_compiled');
    expect(report[0]?.reasons[0]).toContain(path);
  });

  it('the same rule acts where its values are good', () => {
    const written = headers('h', ANY, [{ header: '{{H}}', type: 'Add', value: '1' }]);
    const trace = traceIn([written], { H: 'X-Good' }, 'https://e.example.com/x');
    expect(verdict(trace, 'h').reason).toBe('acted');
    expect(trace.outcome.requestHeaders).toEqual({ 'x-good': '1' });
  });
});

describe('browser rules of resolved rules', () => {
  it("a value's star is a regexFilter, a plain value a urlFilter", () => {
    const written = [
      cancel('a', src('Url', 'Contains', '{{HOST}}/api')),
      cancel('b', src('Url', 'Wildcard_Matches', 'https://e.example.com/{{P}}/*')),
    ];
    const { rules, report } = compileBrowserRules(
      inEnvironment(written, values({ HOST: 'staging.example.com', P: 'x*y' }), checkResolvedPairs).rules,
    );
    expect(report.map((r) => r.status)).toEqual(['compiled', 'compiled']);
    expect(rules[0]?.condition.urlFilter).toBe('staging.example.com/api');
    expect(rules[1]?.condition.regexFilter).toBeDefined();
    expect(rules[1]?.condition.regexFilter).not.toContain('x*y');
  });
});

describe('lint: undefined_variable', () => {
  const variables = {
    environments: ['default', 'staging', 'prod'],
    defined: new Map([
      ['HOST', new Set(['default', 'staging', 'prod'])],
      ['API', new Set(['default'])],
    ]),
  };
  const lintOf = (written: LintRule) =>
    undefinedVariables(written, variables).map((f) => [f.code, f.severity, f.pointers[0]?.path, f.message]);

  it('names a variable missing in some environment, in a destination or a source', () => {
    const found = lintOf(redirect('r', src('Url', 'Contains', '{{API}}'), 'https://{{HOST}}/{{API}}'));
    expect(found.map(([code, severity, path]) => [code, severity, path])).toEqual([
      ['undefined_variable', 'warning', '/pairs/0/source/value'],
      ['undefined_variable', 'warning', '/pairs/0/destination'],
    ]);
    expect(found[0]?.[3]).toContain('staging, prod');
  });

  it('names a variable the workspace does not have', () => {
    const [finding] = lintOf(redirect('r', src('Url', 'Contains', 'x'), 'https://{{HOTS}}/'));
    expect(finding?.[3]).toContain('no variable HOTS');
  });

  it('says nothing of variables every environment has, of bodies and headers, or of Matches patterns', () => {
    expect(lintOf(redirect('r', src('Url', 'Matches', '/{{API}}/'), 'https://{{HOST}}/'))).toEqual([]);
    expect(lintOf(headers('h', ANY, [{ header: 'X-A', type: 'Add', value: '{{NOPE}}' }]))).toEqual([]);
    expect(
      lintOf(rule('b', 'Response', [{ source: ANY, type: 'static', value: '{{name}}', statusCode: 200 }])),
    ).toEqual([]);
    expect(undefinedVariables(redirect('r', ANY, 'https://{{NOPE}}/'), undefined)).toEqual([]);
  });
});

describe('hideValues', () => {
  it('shows a value as its reference, as written, encoded, lower-cased and cut short', () => {
    const hidden = [['TOKEN', 'Ab Cd/é'] as const];
    expect(hideValues('x Ab Cd/é y', hidden)).toBe('x {{TOKEN}} y');
    expect(hideValues('https://h/Ab%20Cd%2F%C3%A9', hidden)).toBe('https://h/{{TOKEN}}');
    expect(hideValues('ab cd/é', hidden)).toBe('{{TOKEN}}');
    expect(hideValues('"…Ab Cd…"', hidden)).toBe('"…{{TOKEN}}…"');
    expect(hideValues('nothing here', [['E', '']])).toBe('nothing here');
  });
});
