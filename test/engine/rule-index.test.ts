// The fast path's index: rules without required text are tried together (one RE2 alternation per URL
// part), rules that share a source share one match, and neither ever loses or adds a rule: `run`
// checks each case against the full trace.
import { describe, expect, it } from 'vitest';
import { headers, run, src, verdict } from './engine-helpers.js';

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
