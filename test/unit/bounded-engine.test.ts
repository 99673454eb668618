// The engine's own bounds: compiled patterns are kept within a byte budget however large each is, and a
// trace's body is parsed once however many requestPayload filters read it (once per pair was 30 s of
// CPU for one 1 MB request).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileRuleSet, type EngineRule, toEngineRequest } from '../../src/engine/index.js';
import { compileRegex, keptPatternBytes, PATTERN_CACHE_BYTES } from '../../src/engine/regex.js';
import type { EngineRequest } from '../../src/engine/request.js';
import { estimateProgramSize, MAX_PROGRAM_SIZE } from '../../src/model/pattern-size.js';
import { compilePattern } from '../../src/model/patterns.js';

afterEach(() => vi.restoreAllMocks());

describe('compiled patterns', () => {
  it('are kept within their byte budget, not a count: 600 patterns near the program limit', () => {
    for (let i = 0; i < 600; i++) {
      const compiled = compileRegex(`/x${i}\\w{1,449}\\d{50}/`);
      expect(compiled.ok).toBe(true);
      expect(keptPatternBytes()).toBeLessThanOrEqual(PATTERN_CACHE_BYTES);
    }
    // 600 of them are ~96 MB by the same estimate: some were let go
    expect(keptPatternBytes()).toBeGreaterThan(PATTERN_CACHE_BYTES / 2);
  }, 120_000);

  it('refuse a program over the limit, naming the construct, from the structure when far over', () => {
    const over = compilePattern('/^(ab){300}$/');
    expect(over).toStrictEqual({ ok: false, problem: expect.stringContaining('`(ab){300}`') });
    const far = compilePattern(`(?:${'x{1000}'.repeat(50)})`);
    expect(far).toStrictEqual({
      ok: false,
      problem: expect.stringContaining('more than 4,000 instructions'),
    });
    expect(compilePattern('^https?://([^/]+)/(.*)$').ok).toBe(true);
    expect(compilePattern(`\\w{1,${Math.floor(MAX_PROGRAM_SIZE / 2) - 60}}`).ok).toBe(true);
  });

  it('estimate close to what RE2 compiles for repetitions', () => {
    for (const pattern of [
      '\\w{1,999}\\d{50}',
      '(a{1,100}){1,10}',
      '.{1000}',
      '[a-z]+\\.example',
      '(?<x>abc){300}',
    ]) {
      const real = (compileRegex(pattern, Number.POSITIVE_INFINITY) as { regex: { programSize(): number } })
        .regex;
      const estimate = estimateProgramSize(pattern).size;
      expect(estimate / real.programSize()).toBeGreaterThan(0.5);
      expect(estimate / real.programSize()).toBeLessThan(2);
    }
  });
});

describe('a trace with requestPayload filters', () => {
  it('parses the body once for 1,000 pairs that read it', () => {
    const body = JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ i })), op: 'x' });
    const pairs = Array.from({ length: 1000 }, () => ({
      source: {
        key: 'host',
        operator: 'Equals',
        value: 'a.example',
        filters: [{ requestPayload: { key: 'op', value: 'y' } }],
      },
    }));
    const rules: EngineRule[] = Array.from({ length: 10 }, (_, i) => ({
      id: `Cancel_${i}`,
      name: `r${i}`,
      ruleType: 'Cancel',
      status: 'Active',
      pairs: pairs.slice(i * 100, i * 100 + 100),
    }));
    const request = toEngineRequest({ url: 'https://a.example/', method: 'POST', body }) as EngineRequest;
    const parse = vi.spyOn(JSON, 'parse');
    const result = compileRuleSet(rules).trace(request);
    const parsesOfBody = parse.mock.calls.filter(([text]) => text === body).length;
    expect(parsesOfBody).toBe(1);
    expect(result.rules.flatMap((rule) => rule.pairs)).toHaveLength(1000);
    expect(result.rules[0]?.pairs[0]?.checks.at(-1)).toMatchObject({
      check: 'filters[0].requestPayload',
      passed: false,
    });
  });
});
