// The fast path's index: rules without required text are tried together (one RE2 alternation per URL
// part), rules that share a source share one match, and neither ever loses or adds a rule: `run`
// checks each case against the full trace.
import { describe, expect, it } from 'vitest';
import { compileRule } from '../../src/engine/evaluate.js';
import { type EngineRequest, toEngineRequest } from '../../src/engine/request.js';
import { growingRuleSet, ruleSetOf } from '../../src/engine/rule-set.js';
import { headers, type Json, run, src, verdict } from './engine-helpers.js';

const header = (name: string) => [{ type: 'Add', header: name, value: '1' }];
const acted = (trace: ReturnType<typeof run>) =>
  trace.rules.filter((rule) => rule.reason === 'acted').map((rule) => rule.ruleId);

describe('rules without required text', () => {
  // Forty patterns with no literal part, on every URL part, with and without flags: only the ones
  // that match this URL act, whatever their number.
  const patterns = Array.from({ length: 40 }, (_, n) => {
    const key = ['Url', 'host', 'path'][n % 3] as string;
    const body = key === 'path' ? `^/[a-z]{${n + 1}}$` : `[a-z]{${n + 2}}\\.[a-z]{2,3}`;
    return headers(`p${n}`, src(key, 'Matches', `/${body}/${n % 4 === 0 ? 'i' : ''}`), header(`x-p${n}`));
  });

  it('act when their pattern matches, alone or among forty, with their flags', () => {
    // Url and host: [a-z]{n+2}\.[a-z]{2,3} needs at most 7 letters before a dot ("example"), so
    // n ≤ 5; path: ^/[a-z]{n+1}$ needs n + 1 = 9 letters, upper-case ones only with the i flag (n = 8).
    const trace = run(patterns, { url: 'https://shop.example.io/ABCDEFGHI' });
    expect(acted(trace)).toEqual(['p0', 'p1', 'p3', 'p4', 'p8']);
    // Six upper-case letters would need n = 5, whose pattern has no i flag.
    expect(acted(run(patterns, { url: 'https://shop.example.io/ABCDEF' }))).toEqual(['p0', 'p1', 'p3', 'p4']);
    expect(verdict(trace, 'p5').reason).not.toBe('acted');
  });

  it('none act on a URL none matches', () => {
    expect(acted(run(patterns, { url: 'https://1.2.3.4/0' }))).toEqual([]);
  });

  it('a pattern with alternatives of its own stays whole among the others', () => {
    const rules = [
      headers('a', src('Url', 'Matches', '/^http:|^ftp:/'), header('x-a')),
      headers('b', src('Url', 'Matches', '/^zz[0-9]/'), header('x-b')),
    ];
    expect(acted(run(rules, { url: 'http://host.test/' }))).toEqual(['a']);
  });
});

describe('rules that share a source', () => {
  it('every one of twenty rules with one pattern acts, in list order', () => {
    const rules = Array.from({ length: 20 }, (_, n) =>
      headers(`s${n}`, src('Url', 'Matches', '/^https?:\\/\\/[a-z]+\\.[a-z]+\\//'), header(`x-s${n}`)),
    );
    expect(acted(run(rules, { url: 'https://shop.test/cart' }))).toEqual(rules.map((rule) => rule.id));
    expect(acted(run(rules, { url: 'https://www.shop.test/cart' }))).toEqual([]);
  });
});

describe('a rule set grown at its end (the lint keeps one per workspace as creates arrive)', () => {
  // Sources of every kind the index files: literal pieces, patterns with no literal (sixty distinct,
  // more than are tried alone before the alternations are made again) and copies of a few of them.
  const sources = [
    ...Array.from({ length: 60 }, (_, k) => src('host', 'Matches', `/^[a-z]{${k + 1}}\\.[a-z]{2,3}$/`)),
    ...Array.from({ length: 5 }, (_, k) => src('path', 'Matches', `/^\\/[a-z]{${k + 1}}$/`)),
    src('Url', 'Contains', 'shop'),
    src('host', 'Equals', 'abc.io'),
    src('Url', 'Wildcard_Matches', '*://*.example.com/*'),
  ];
  const rules = Array.from({ length: 240 }, (_, n) =>
    headers(`h${n}`, sources[(n * 7) % sources.length] as Json, header(`x-h${n}`)),
  ).map((rule, n) => (n % 9 === 4 ? { ...rule, status: 'Inactive' } : rule));
  const URLS = [
    'https://a.io/',
    'https://abc.io/ab',
    'https://abcdefghijklmnopqrstuvwxyz.com/abcde',
    'https://shop.example.com/shopping',
    'https://ab.co.uk/',
    'https://1.2.3.4/',
  ];

  it('answers as a set built whole of the same rules, after every addition', () => {
    const compiled = rules.map((rule) => compileRule(rule));
    const grown = growingRuleSet(compiled.slice(0, 10));
    for (let size = 10; size < compiled.length; ) {
      const more = compiled.slice(size, size + 1 + (size % 13));
      grown.add(more);
      size += more.length;
      const whole = ruleSetOf(compiled.slice(0, size));
      for (const url of URLS) {
        const request = toEngineRequest({ url }) as EngineRequest;
        expect(grown.evaluate(request), `${size} rules, ${url}`).toEqual(whole.evaluate(request));
        expect(grown.traceMatching(request)).toEqual(whole.traceMatching(request));
      }
    }
    // The URLs reach rules of every kind: patterns, copies of one, and literal pieces.
    const acted = URLS.flatMap((url) => grown.evaluate(toEngineRequest({ url }) as EngineRequest).acted);
    expect(new Set(acted).size).toBeGreaterThan(20);
  });
});

describe('traceMatching until a verdict', () => {
  it('explains the rules the URL matches up to the first verdict accepted, in list order', () => {
    const rules = ['a', 'b', 'c', 'd'].map((id) =>
      headers(id, src('Url', 'Contains', id === 'b' ? 'nowhere' : 'shop'), header(`x-${id}`)),
    );
    const set = ruleSetOf(rules.map((rule) => compileRule(rule)));
    const request = toEngineRequest({ url: 'https://shop.test/' }) as EngineRequest;
    const ids = (trace: { rules: { ruleId: string }[] }) => trace.rules.map((verdict) => verdict.ruleId);
    expect(ids(set.traceMatching(request))).toEqual(['a', 'c', 'd']);
    expect(ids(set.traceMatching(request, (verdict) => verdict.ruleId === 'c'))).toEqual(['a', 'c']);
    expect(ids(set.traceMatching(request, () => false))).toEqual(['a', 'c', 'd']);
  });
});
