// Building blocks every rule-type file uses: the pair envelope (id, source), its normaliser and its check.
import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { type ErrorDetail, pointerToken } from '../../errors.js';
import { PathMap } from '../path-map.js';
import { digitsToNumber, isRecord } from './schema-helpers.js';
import { checkSource, normaliseSource, PairId, Source, type SourceValue } from './source.js';

/** A pair schema: `id` and `source` (required for every type: without it a rule matches all traffic). */
export function pairSchema<P extends TProperties>(
  title: string,
  description: string,
  properties: P,
): TObject<{ id: typeof PairId; source: typeof Source } & P> {
  return Type.Object(
    { id: PairId, source: Source, ...properties },
    // $id: the pair is a named component of the OpenAPI document, referred to by every rule of its type.
    { $id: title, title, description, additionalProperties: false },
  );
}

type Rewrite = (pair: Record<string, unknown>, paths: PathMap) => Record<string, unknown>;

/**
 * The normaliser of a type: its own rewrites, then the source's. Works on copies (spread and rest
 * define own properties, so a "__proto__" key stays a plain key) and leaves non-objects to the schema.
 */
export function pairNormaliser(
  rewrite: Rewrite = (pair) => pair,
): (pair: unknown, paths?: PathMap) => unknown {
  return (pair, paths = new PathMap()) => {
    if (!isRecord(pair)) return pair;
    const rewritten = rewrite({ ...pair }, paths);
    if (!Object.hasOwn(rewritten, 'source')) return rewritten;
    return { ...rewritten, source: normaliseSource(rewritten.source, paths) };
  };
}

/**
 * Lifts the fields of a nested object (Requestly's `response: {...}`) onto the pair. When a field is on
 * both levels with different values, nothing is lifted: guessing which one the caller meant would lose
 * the other silently, so the nested object stays and is reported as an unknown field.
 */
export function liftNested(
  pair: Record<string, unknown>,
  name: string,
  paths: PathMap,
): Record<string, unknown> {
  const nested = pair[name];
  if (!isRecord(nested) || !Object.hasOwn(pair, name)) return pair;
  const { [name]: _lifted, ...rest } = pair;
  const clash = Object.keys(nested).some((key) => Object.hasOwn(rest, key) && rest[key] !== nested[key]);
  if (clash) return pair;
  for (const key of Object.keys(nested))
    paths.moved(`/${pointerToken(key)}`, `/${name}/${pointerToken(key)}`);
  return { ...rest, ...nested };
}

/**
 * Requestly sends `statusCode: ""` for "no status code"; a string of digits is the number.
 * Called after `liftNested`, so a nested one is covered too.
 */
export function readStatusCode(pair: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(pair, 'statusCode')) return pair;
  const { statusCode, ...rest } = pair;
  if (statusCode === '') return rest;
  // In its place: a canonical pair normalised again must keep its key order (export, import, export
  // gives the same bytes).
  return Object.fromEntries(
    Object.entries(pair).map(([key, value]) => [key, key === 'statusCode' ? digitsToNumber(value) : value]),
  );
}

/** The check every type runs: the source's. Types with rules of their own add theirs to it. */
export function checkPairSource(pair: Record<string, unknown>): ErrorDetail[] {
  return checkSource(pair.source as SourceValue);
}
