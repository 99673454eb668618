// What a rule type does to a request, as each file beside this one declares it for its type.
import type { EngineRequest } from '../request.js';
import type { Check, EngineRule, EvaluationState } from '../types.js';

export interface RuleEffect<P> {
  /**
   * `first`: the first rule (in list order) that matches decides; later ones are overridden, and
   * within a rule only its first matching pair acts. `all`: every matching pair of every rule acts, in order.
   */
  combine: 'first' | 'all';
  /**
   * The type changes the URL: `chain` acts on the URL left by the ones before (and not after a
   * redirect); `redirect` ends URL changes.
   */
  url?: 'chain' | 'redirect';
  /** A condition of the type itself, checked after the source (Script: HTML documents only). */
  condition?(request: EngineRequest): Check;
  /**
   * Applies one matching pair to the state; answers what it did, as a trace shows it. A pair that
   * changes nothing (a Replace whose `from` is not in the URL) says why in `unchanged`, and one that
   * could not be applied says why in `error`: neither acts. `rule`: the pair's rule, for a type whose
   * rule holds a field of its effect besides its pairs (Script's `removeCSPHeader`).
   */
  apply(
    pair: P,
    captures: string[],
    state: EvaluationState,
    ruleId: string,
    request: EngineRequest,
    rule: EngineRule,
  ): Record<string, unknown>;
}
