// A workspace's rules compiled once, with an index that finds the few rules a URL can match: each
// source's required literal text (an Equals or Contains value, the longest literal part of a wildcard
// or regular expression) is filed under its rarest 4-character piece, and a URL looks up its own.
// Rules with a source that has no such text are gated by their sources instead (see gates.ts).
import { type CompiledRule, compileRule, evaluateRules, type TraceResult, traceRules } from './evaluate.js';
import { compileGates } from './gates.js';
import type { MatcherCache } from './match.js';
import { type EngineRequest, urlParts } from './request.js';
import type { EngineRule, Outcome } from './types.js';

const GRAM = 4;

export interface RuleSet {
  /** Every rule, in list order (inactive ones too, for traces). */
  readonly rules: readonly CompiledRule[];
  /** Whether an active rule filters on the request body: a proxy must then read each body first. */
  readonly readsBodies: boolean;
  /** The outcome and the rules that acted, evaluating only the rules the URL can match. */
  evaluate(request: EngineRequest): { outcome: Outcome; acted: string[] };
  /** Every rule explained (inactive ones with `includeInactive`). */
  trace(request: EngineRequest, includeInactive?: boolean): TraceResult;
  /** The outcome, and only the rules that acted explained: the fast path, with explanations. */
  traceActed(request: EngineRequest): TraceResult;
  /** The outcome, and the rules the URL can match explained (the others matched no pair). */
  traceMatching(request: EngineRequest): TraceResult;
}

function gramsOf(text: string): Set<string> {
  const grams = new Set<string>();
  for (let i = 0; i + GRAM <= text.length; i++) grams.add(text.slice(i, i + GRAM));
  return grams;
}

/** The pieces of the literals of rules kept compiled from one set to the next (the lint's). */
const literalsKept = new WeakMap<CompiledRule, Set<string>[] | null>();

/**
 * The pieces of the literal each pair requires, per active rule; undefined when a pair has none
 * (always evaluated). With `keep`, kept with the rule for the next set built from it.
 */
function literalsOf(rule: CompiledRule, keep: boolean): Set<string>[] | undefined {
  let literals = literalsKept.get(rule);
  if (literals === undefined) {
    literals = [];
    for (const { source } of rule.pairs) {
      const literal = source.matcher.literal;
      if (literal === undefined || literal.length < GRAM) {
        literals = null;
        break;
      }
      literals.push(gramsOf(literal));
    }
    if (keep) literalsKept.set(rule, literals);
  }
  return literals ?? undefined;
}

function sourceMatches(rule: CompiledRule, partOf: (key: 'Url' | 'host' | 'path') => string): boolean {
  return rule.pairs.some(({ source }) => source.matcher.test(partOf(source.key)) !== undefined);
}

export function compileRuleSet(input: readonly EngineRule[]): RuleSet {
  const matchers: MatcherCache = new Map();
  return ruleSetOf(input.map((rule) => compileRule(rule, matchers)));
}

/**
 * The set of rules compiled already. `keep`: the rules are kept compiled for other sets (the lint's,
 * from one write to the next), so what the index needs of each is kept with it too.
 */
export function ruleSetOf(rules: readonly CompiledRule[], { keep = false } = {}): RuleSet {
  const active = rules.filter((rule) => !rule.inactive);
  const literals = active.map((rule) => literalsOf(rule, keep));

  const frequency = new Map<string, number>();
  for (const list of literals) {
    for (const grams of list ?? []) {
      for (const gram of grams) frequency.set(gram, (frequency.get(gram) ?? 0) + 1);
    }
  }
  const byGram = new Map<string, number[]>();
  const gated: number[] = [];
  literals.forEach((list, position) => {
    if (!list) {
      gated.push(position);
      return;
    }
    for (const grams of list) {
      let rarest = '';
      let lowest = Number.POSITIVE_INFINITY;
      for (const gram of grams) {
        const count = frequency.get(gram) ?? 0;
        if (count < lowest) [rarest, lowest] = [gram, count];
      }
      const filed = byGram.get(rarest) ?? [];
      if (filed.at(-1) !== position) filed.push(position);
      byGram.set(rarest, filed);
    }
  });

  const gates = compileGates(gated.map((position) => ({ position, rule: active[position] as CompiledRule })));

  // Marks of the current look-up, by generation: no clearing between look-ups.
  const seen = new Uint32Array(active.length);
  let generation = 0;
  function candidates(url: string, after: number): number[] {
    generation++;
    const found: number[] = [];
    const partOf = urlParts(url);
    for (const position of gates.open(partOf)) {
      if (position > after && seen[position] !== generation) {
        seen[position] = generation;
        found.push(position);
      }
    }
    for (let i = 0; i + GRAM <= url.length; i++) {
      const filed = byGram.get(url.slice(i, i + GRAM));
      if (!filed) continue;
      for (const position of filed) {
        if (position > after && seen[position] !== generation) {
          seen[position] = generation;
          // A shared literal ("http") files many rules together: keep those whose source matches
          // (matchers are shared, so twenty rules with one pattern cost one match).
          if (sourceMatches(active[position] as CompiledRule, partOf)) found.push(position);
        }
      }
    }
    return found.sort((a, b) => a - b);
  }

  let readsBodies: boolean | undefined;
  return {
    rules,
    // Found when first asked (the proxy asks; the lint and traces never do).
    get readsBodies() {
      readsBodies ??= active.some(({ rule }) =>
        rule.pairs.some((pair) => JSON.stringify(pair).includes('"requestPayload"')),
      );
      return readsBodies;
    },
    evaluate: (request) => evaluateRules(active, request, candidates),
    trace: (request, includeInactive = false) => traceRules(rules, request, includeInactive),
    traceActed(request) {
      const { outcome, verdicts } = evaluateRules(active, request, candidates, true);
      return { outcome, rules: verdicts.filter((verdict) => verdict.reason === 'acted') };
    },
    traceMatching(request) {
      const { outcome, verdicts } = evaluateRules(active, request, candidates, true);
      return { outcome, rules: verdicts };
    },
  };
}
