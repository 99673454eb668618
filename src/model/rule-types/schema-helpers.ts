// Small schema and value helpers shared by the rule-type files; nothing here knows about a rule type.
import { type SchemaOptions, type TLiteral, type TString, type TUnion, Type } from '@sinclair/typebox';
import { describePattern } from '../../validation.js';

/**
 * A string enum as a union of literals: TypeCompiler reports it as one error at one path,
 * which src/validation.ts turns into "must be one of …" (an `enum` keyword would need a custom kind).
 */
export function oneOf<const T extends readonly [string, string, ...string[]]>(
  values: T,
  options: SchemaOptions = {},
): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as TUnion<TLiteral<T[number]>[]>;
}

/**
 * Every `pattern` the pair schemas use, with the message a caller reads when a value misses it:
 * a raw regular expression is no help to a human.
 */
export const patterns = {
  pairId: { pattern: '^[A-Za-z0-9]{1,32}$', message: 'must be 1 to 32 letters or digits' },
  httpToken: {
    pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
    message: "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only",
  },
  /**
   * A header name as a rule writes it: an HTTP token, in which `{{NAME}}` may stand for a variable
   * (decisions §20). The pattern lets braces through (a generator reads a class fast, not a group);
   * checkHeaders refuses braces that are not a reference; resolved, a name must be a token
   * (engine/variables.ts checks it per environment).
   */
  headerName: {
    pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z{}-]+$",
    message:
      "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only, or {{NAME}} of a variable",
  },
} as const;

export function patternString(name: keyof typeof patterns, options: SchemaOptions = {}): TString {
  describePattern(patterns[name].pattern, patterns[name].message);
  return Type.String({ ...options, pattern: patterns[name].pattern });
}

/** The id Requestly gives each header or query-parameter modification: kept when sent. */
export const ModificationId = Type.Optional(
  patternString('pairId', {
    description: 'Id of the modification: 1 to 32 letters or digits; kept as sent.',
  }),
);

/** A plain JSON object (not null, not an array): the only thing a normaliser rewrites. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `"250"` becomes 250; anything else is returned as is, for the schema to judge. */
export function digitsToNumber(value: unknown): unknown {
  return typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
}
