// Which rules act on a request, in what order, and what they do: rules in list order, each matched against the URL the URL-changing rules before it left; every verdict explained.
import { type RuleEffect, ruleEffects } from './effects/index.js';
import { type CompiledSource, compileSource, type MatcherCache, matchSource } from './match.js';
import type { EngineRequest } from './request.js';
import type { EngineRule, EvaluationState, Outcome, PairVerdict, Reason, RuleVerdict } from './types.js';

interface CompiledPair {
  pair: Record<string, unknown>;
  source: CompiledSource;
}

export interface CompiledRule {
  rule: EngineRule;
  effect: RuleEffect<unknown>;
  pairs: CompiledPair[];
  /**
   * Why it never acts (its or its group's status, or its variables in this environment), or undefined
   * when it is active.
   */
  inactive: 'inactive' | 'group_inactive' | 'invalid_in_environment' | undefined;
}

/** Compiles a rule once: its sources, filters and patterns; used for every request after. */
export function compileRule(rule: EngineRule, matchers?: MatcherCache): CompiledRule {
  const effect = ruleEffects[rule.ruleType as keyof typeof ruleEffects];
  if (!effect) throw new TypeError(`unknown rule type ${rule.ruleType}`);
  return {
    rule,
    effect,
    pairs: rule.pairs.map((pair) => ({
      pair,
      source: compileSource(pair.source as Record<string, unknown>, matchers),
    })),
    inactive:
      rule.status !== 'Active'
        ? 'inactive'
        : rule.groupStatus === 'Inactive'
          ? 'group_inactive'
          : rule.environmentProblems?.length
            ? 'invalid_in_environment'
            : undefined,
  };
}

function initialState(request: EngineRequest): EvaluationState {
  return {
    url: request.url,
    cancelled: false,
    requestHeaders: new Map([...request.headers].map(([name, values]) => [name, [...values]])),
    responseHeaders: [],
    delayMs: 0,
    requestBody: null,
    response: null,
    scripts: [],
  };
}

/**
 * What the rules did. `redirected`: the request goes to another URL than it came with (changed
 * there and back again, or redirected to itself, it is not redirected).
 */
export function outcomeOf(state: EvaluationState, request: EngineRequest): Outcome {
  const requestHeaders: Record<string, string | string[]> = {};
  for (const [name, values] of state.requestHeaders) {
    requestHeaders[name] = values.length === 1 ? (values[0] as string) : values;
  }
  const { url, cancelled, responseHeaders, delayMs, requestBody, response, scripts } = state;
  return {
    cancelled,
    url,
    redirected: url !== request.url,
    requestHeaders,
    responseHeaders,
    delayMs,
    requestBody,
    response,
    scripts,
  };
}

/** One evaluation's bookkeeping: which rule took each first-one-wins effect, and the redirect. */
class Evaluation {
  readonly state: EvaluationState;
  readonly acted: string[] = [];
  readonly #takenBy = new Map<string, string>();
  #redirectedBy: string | undefined;
  #cancelledBy: string | undefined;

  constructor(
    readonly request: EngineRequest,
    readonly explain: boolean,
  ) {
    this.state = initialState(request);
  }

  /** Why a rule whose pair matched may not act, before it tries. */
  #blocked({ rule, effect }: CompiledRule): { reason: Reason; overriddenBy?: string } | undefined {
    if (this.#cancelledBy) return { reason: 'cancelled', overriddenBy: this.#cancelledBy };
    if (effect.url === 'chain' && this.#redirectedBy) return { reason: 'after_redirect' };
    const taken = effect.combine === 'first' ? this.#takenBy.get(rule.ruleType) : undefined;
    return taken ? { reason: 'overridden', overriddenBy: taken } : undefined;
  }

  run(compiled: CompiledRule): RuleVerdict {
    const { rule, effect } = compiled;
    const blockedByStatus = compiled.inactive;
    let blocked = blockedByStatus ? undefined : this.#blocked(compiled);
    const pairs: PairVerdict[] = [];
    let matchedAny = false;
    let actedOnce = false;
    compiled.pairs.forEach(({ pair, source }, index) => {
      const result = matchSource(source, this.state.url, this.request, this.explain);
      let matched = result.matched;
      if (matched && effect.condition) {
        const check = effect.condition(this.request);
        if (this.explain) result.checks.push(check);
        matched = check.passed;
      }
      let pairEffect: Record<string, unknown> | null = null;
      const mayAct = !blockedByStatus && !blocked && !(effect.combine === 'first' && actedOnce);
      if (matched && mayAct) {
        pairEffect = effect.apply(pair, result.captures, this.state, rule.id, this.request, rule);
        // A pair that changed nothing did not act: a later pair, or rule, may still take the effect.
        if (!('unchanged' in pairEffect) && !('error' in pairEffect)) actedOnce = true;
      }
      matchedAny ||= matched;
      pairs.push({
        index,
        ...(typeof pair.id === 'string' ? { pairId: pair.id } : {}),
        matched,
        checks: result.checks,
        captures: result.captures,
        effect: pairEffect,
      });
    });
    if (actedOnce) this.#record(compiled);
    if (!matchedAny) blocked = undefined;
    const reason: Reason =
      blockedByStatus ??
      blocked?.reason ??
      (actedOnce ? 'acted' : matchedAny ? 'no_change' : 'no_pair_matched');
    return {
      ruleId: rule.id,
      name: rule.name,
      ruleType: rule.ruleType,
      acted: reason === 'acted',
      reason,
      ...(reason === 'overridden' || reason === 'cancelled' ? { overriddenBy: blocked?.overriddenBy } : {}),
      ...(reason === 'invalid_in_environment' ? { problems: rule.environmentProblems } : {}),
      pairs,
    };
  }

  #record({ rule, effect }: CompiledRule): void {
    this.acted.push(rule.id);
    if (effect.combine === 'first') this.#takenBy.set(rule.ruleType, rule.id);
    if (effect.url === 'redirect') this.#redirectedBy = rule.id;
    if (this.state.cancelled && !this.#cancelledBy) this.#cancelledBy = rule.id;
  }

  /**
   * A Cancel that acted wins over every rule, before it in the list as well as after (as a browser's
   * own blocking does): the request is cancelled and nothing else; every other rule that matched is
   * reported cancelled by it.
   */
  finish(verdicts: RuleVerdict[]): Outcome {
    const cancelledBy = this.#cancelledBy;
    if (!cancelledBy) return outcomeOf(this.state, this.request);
    this.acted.splice(0, this.acted.length, cancelledBy);
    for (const verdict of verdicts) {
      if (verdict.ruleId === cancelledBy || verdict.reason === 'inactive') continue;
      if (verdict.reason === 'group_inactive' || verdict.reason === 'no_pair_matched') continue;
      if (verdict.reason === 'invalid_in_environment') continue;
      verdict.acted = false;
      verdict.reason = 'cancelled';
      verdict.overriddenBy = cancelledBy;
      for (const pair of verdict.pairs) pair.effect = null;
    }
    return outcomeOf({ ...initialState(this.request), cancelled: true }, this.request);
  }
}

export interface TraceResult {
  outcome: Outcome;
  rules: RuleVerdict[];
}

/**
 * Every rule evaluated and explained, in list order. Inactive rules (of their own status or their
 * group's) are explained only with `includeInactive`, and never change the outcome. An active rule
 * its variables make invalid in this environment is always explained: it would act elsewhere.
 */
export function traceRules(
  rules: readonly CompiledRule[],
  request: EngineRequest,
  includeInactive = false,
): TraceResult {
  const evaluation = new Evaluation(request, true);
  const verdicts: RuleVerdict[] = [];
  for (const rule of rules) {
    if (rule.inactive && rule.inactive !== 'invalid_in_environment' && !includeInactive) continue;
    verdicts.push(evaluation.run(rule));
  }
  return { outcome: evaluation.finish(verdicts), rules: verdicts };
}

/**
 * Positions (ascending, after `after`) of the rules that may match at `url`; the others cannot, so
 * they are not evaluated. Asked again whenever a rule changes the URL.
 */
export type Candidates = (url: string, after: number) => readonly number[];

/**
 * The evaluation of active `rules` (in list order), without explanations unless `explain`: what the
 * proxy needs. The same verdicts as traceRules, for the rules `candidates` names (with `explain`, the
 * verdicts of those rules, the only ones that can have acted). With `until`, explained rules stop at
 * the first verdict it accepts (the outcome is then only as far as that rule).
 */
export function evaluateRules(
  rules: readonly CompiledRule[],
  request: EngineRequest,
  candidates: Candidates = (_url, after) => rules.map((_, i) => i).filter((i) => i > after),
  explain = false,
  until?: (verdict: RuleVerdict) => boolean,
): { outcome: Outcome; acted: string[]; verdicts: RuleVerdict[] } {
  const evaluation = new Evaluation(request, explain);
  const verdicts: RuleVerdict[] = [];
  let url = evaluation.state.url;
  let positions = candidates(url, -1);
  for (let k = 0; k < positions.length; k++) {
    const position = positions[k] as number;
    const rule = rules[position] as CompiledRule;
    if (!rule.inactive) {
      const verdict = evaluation.run(rule);
      if (explain) verdicts.push(verdict);
      if (until?.(verdict)) break;
    }
    if (evaluation.state.url !== url) {
      url = evaluation.state.url;
      positions = candidates(url, position);
      k = -1;
    }
  }
  const outcome = evaluation.finish(verdicts);
  return { outcome, acted: evaluation.acted, verdicts };
}
