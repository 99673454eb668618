// The shape every rule-type file fills in: its canonical pair schema, its input variants, its checks and
// its examples. What a type does to a request is the engine's (src/engine/effects/).
import type { TObject } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import type { PathMap } from '../path-map.js';

export const RULE_TYPES = [
  'Redirect',
  'Cancel',
  'Replace',
  'Headers',
  'UserAgent',
  'Script',
  'QueryParam',
  'Response',
  'Request',
  'Delay',
] as const;

export type RuleType = (typeof RULE_TYPES)[number];

/** What the checks of a pair may depend on besides the pair itself (configuration). */
export interface PairContext {
  maxDelayMs: number;
}

export interface RuleTypeDefinition {
  name: RuleType;
  /** The canonical pair as stored and returned; unknown fields rejected. */
  pair: TObject;
  /**
   * Rewrites the input variants real Requestly clients send into the canonical shape.
   * Gets any JSON value, returns a new value, never throws and never mutates its input. Records in
   * `paths` (pointers relative to the pair) where each value it moved was sent, for error details.
   */
  normalise(pair: unknown, paths?: PathMap): unknown;
  /**
   * Rules a JSON Schema cannot say well (a value required for some types, a pattern that must compile,
   * a configured maximum). Called only on a pair that already matches `pair`; paths are relative to the pair.
   */
  check(pair: Record<string, unknown>, ctx: PairContext): ErrorDetail[];
  examples: {
    valid: { title: string; pair: Record<string, unknown> }[];
    /** `path` is the JSON Pointer, relative to the pair, that the error must name. */
    invalid: { title: string; pair: unknown; path: string }[];
    /** Input variants and the canonical pair each becomes. */
    variants: { title: string; input: Record<string, unknown>; canonical: Record<string, unknown> }[];
  };
}
