// A workspace's rules compiled once, with an index that finds the few rules a URL can match: each
// source's required literal text (an Equals or Contains value, the longest literal part of a wildcard
// or regular expression) is filed under its rarest 4-character piece, and a URL looks up its own.
// Rules with a source that has no such text are gated by their sources instead (see gates.ts). The
// lint's sets grow as a workspace does (growingRuleSet): rules added at the end are filed, not the
// whole set indexed again.
import { type CompiledRule, compileRule, evaluateRules, type TraceResult, traceRules } from './evaluate.js';
import { compileGates, type Gates } from './gates.js';
import type { MatcherCache } from './match.js';
import { type EngineRequest, urlParts } from './request.js';
import type { EngineRule, Outcome, RuleVerdict } from './types.js';

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
  /**
   * The outcome, and the rules the URL can match explained (the others matched no pair); with `until`,
   * only up to the first verdict it accepts.
   */
  traceMatching(request: EngineRequest, until?: (verdict: RuleVerdict) => boolean): TraceResult;
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
 * The index of `active`, which may grow at its end: `file()` files the rules added since the last
 * call. A rule is filed under the rarest piece of its literal as counted when it is filed; any piece
 * finds it (a URL it matches holds the whole literal), the rarest only keeps look-ups short.
 */
function literalIndex(active: readonly CompiledRule[], keep: boolean) {
  const frequency = new Map<string, number>();
  const byGram = new Map<string, number[]>();
  let gates: Gates | undefined;
  let filed = 0;
  // Marks of the current look-up, by generation: no clearing between look-ups.
  let seen = new Uint32Array(0);
  let generation = 0;

  function file(): void {
    const from = filed;
    const gated: { position: number; rule: CompiledRule }[] = [];
    const literals = active.slice(from).map((rule) => literalsOf(rule, keep));
    for (const list of literals) {
      for (const grams of list ?? []) {
        for (const gram of grams) frequency.set(gram, (frequency.get(gram) ?? 0) + 1);
      }
    }
    literals.forEach((list, k) => {
      const position = from + k;
      if (!list) {
        gated.push({ position, rule: active[position] as CompiledRule });
        return;
      }
      for (const grams of list) {
        let rarest = '';
        let lowest = Number.POSITIVE_INFINITY;
        for (const gram of grams) {
          const count = frequency.get(gram) ?? 0;
          if (count < lowest) [rarest, lowest] = [gram, count];
        }
        const filedHere = byGram.get(rarest) ?? [];
        if (filedHere.at(-1) !== position) filedHere.push(position);
        byGram.set(rarest, filedHere);
      }
    });
    filed = active.length;
    if (gates) gates.add(gated);
    else gates = compileGates(gated);
    if (seen.length < active.length) {
      const larger = new Uint32Array(Math.max(active.length, seen.length * 2));
      larger.set(seen);
      seen = larger;
    }
  }

  function candidates(url: string, after: number): number[] {
    if (++generation === 0xffffffff) {
      seen.fill(0); // the marks wrapped round: begun again
      generation = 1;
    }
    const found: number[] = [];
    const partOf = urlParts(url);
    const take = (position: number, test: boolean) => {
      if (position > after && seen[position] !== generation) {
        seen[position] = generation;
        if (!test || sourceMatches(active[position] as CompiledRule, partOf)) found.push(position);
      }
    };
    for (const position of gates?.open(partOf) ?? []) take(position, false);
    for (let i = 0; i + GRAM <= url.length; i++) {
      // A shared literal ("http") files many rules together: keep those whose source matches
      // (matchers are shared, so twenty rules with one pattern cost one match).
      for (const position of byGram.get(url.slice(i, i + GRAM)) ?? []) take(position, true);
    }
    return found.sort((a, b) => a - b);
  }

  file();
  return { file, candidates };
}

/** The set of rules compiled already. */
export function ruleSetOf(rules: readonly CompiledRule[]): RuleSet {
  return growingRuleSetOf([...rules], false);
}

/** A rule set that rules can be added to at its end (the lint's, as a workspace grows by creates). */
export interface GrowingRuleSet extends RuleSet {
  add(more: readonly CompiledRule[]): void;
}

/** `rules` is the set's own: `add` appends to it. */
function growingRuleSetOf(rules: CompiledRule[], keep: boolean): GrowingRuleSet {
  const active = rules.filter((rule) => !rule.inactive);
  const index = literalIndex(active, keep);
  const { candidates } = index;

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
    traceMatching(request, until) {
      const { outcome, verdicts } = evaluateRules(active, request, candidates, true, until);
      return { outcome, rules: verdicts };
    },
    add(more) {
      rules.push(...more);
      active.push(...more.filter((rule) => !rule.inactive));
      index.file();
      readsBodies = undefined;
    },
  };
}

/**
 * A set that grows at its end as rules are added, of rules kept compiled for other sets (the lint's,
 * from one write to the next): what the index needs of each is kept with it too.
 */
export function growingRuleSet(rules: readonly CompiledRule[]): GrowingRuleSet {
  return growingRuleSetOf([...rules], true);
}
