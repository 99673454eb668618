// What each rule type's translation answers for one pair, and the pair's whole condition (its source's
// URL part and its filters): the shared part of the files beside this one, one per rule type.
import type { DnrAction, DnrCondition } from '../../model/browser-rule.js';
import { filtersCondition } from './filters.js';
import { sourceCondition } from './url-condition.js';

export type PairTranslation =
  /** The browser rules for the pair; `left`: effects of it that could not be expressed. */
  | { kind: 'rules'; rules: { action: DnrAction; condition: DnrCondition }[]; left: string[] }
  /** The engine never acts on a request a browser sends with it: nothing to write, nothing lost. */
  | { kind: 'never'; reason: string }
  | { kind: 'refused'; reasons: string[] };

export type PairTranslator = (pair: Record<string, unknown>) => PairTranslation;

export type PairCondition =
  | { kind: 'condition'; condition: DnrCondition; captures: number; wholeUrl: boolean }
  | { kind: 'never'; reason: string }
  | { kind: 'refused'; reasons: string[] };

interface SourceFields {
  key: string;
  operator: string;
  value: string;
  filters?: Record<string, unknown>[];
}

/** The source's URL condition and its filters, in one Chrome condition. */
export function pairCondition(pair: Record<string, unknown>, wantCaptures = false): PairCondition {
  const source = pair.source as SourceFields;
  const url = sourceCondition(source, wantCaptures);
  const filters = filtersCondition(source.filters);
  if (url.kind === 'never') return url;
  if (filters.kind === 'never') return filters;
  const refused = [url, filters].flatMap((part) => (part.kind === 'refused' ? [part.reason] : []));
  if (url.kind === 'refused' || filters.kind === 'refused') return { kind: 'refused', reasons: refused };
  return {
    kind: 'condition',
    condition: { ...url.url, ...filters.condition },
    captures: url.captures,
    wholeUrl: url.wholeUrl,
  };
}

/** A pair whose condition is all it needs (the action does not depend on the match). */
export function withCondition(pair: Record<string, unknown>, action: DnrAction): PairTranslation {
  const condition = pairCondition(pair);
  if (condition.kind !== 'condition') return condition;
  return { kind: 'rules', rules: [{ action, condition: condition.condition }], left: [] };
}
