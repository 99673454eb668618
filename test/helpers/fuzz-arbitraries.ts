// fast-check arbitraries for the fuzz suite's bodies: odd strings and values, and mutated valid payloads
// written as raw JSON text (so that duplicate keys and `__proto__` keys survive to the wire).
import fc from 'fast-check';
import { RULE_TYPES, ruleTypes } from '../../src/model/rule-types/index.js';

/** A JSON document as written on the wire: objects are lists of entries, so keys may repeat. */
export type Raw =
  | { kind: 'value'; value: unknown }
  | { kind: 'object'; entries: [string, Raw][] }
  | { kind: 'array'; items: Raw[] };

export function toRaw(value: unknown): Raw {
  if (Array.isArray(value)) return { kind: 'array', items: value.map(toRaw) };
  if (value !== null && typeof value === 'object')
    return { kind: 'object', entries: Object.entries(value).map(([k, v]) => [k, toRaw(v)]) };
  return { kind: 'value', value };
}

export function rawText(raw: Raw): string {
  if (raw.kind === 'array') return `[${raw.items.map(rawText).join(',')}]`;
  if (raw.kind === 'object')
    return `{${raw.entries.map(([k, v]) => `${JSON.stringify(k)}:${rawText(v)}`).join(',')}}`;
  return JSON.stringify(raw.value) ?? 'null';
}

const DANGEROUS_KEYS = ['__proto__', 'constructor', 'prototype'];

// biome-ignore format: a list of odd values reads best as a block
const TRICKY_CHARACTERS = ['a', ' ', 'é', '𝒳', '\ud800', '\udfff', '\u0000', '\u0007', '\u200b', '\u2028', '"', '\\'];
// biome-ignore format: a list of odd values reads best as a block
const ODD_STRINGS = [
  '', ' ', '\u0000', '\ud800', '\u202e', '\ufeff', ...DANGEROUS_KEYS, 'Group_', 'Group_zzzzz', 'Redirect_00000',
  '<script>alert(1)</script>', "' OR 1=1 --", '../../etc/passwd', '%00', '{{7*7}}', 'null', 'Active ', 'ACTIVE',
];

/** Strings that have broken services: long, unicode, control characters, look-alikes of ids and keys. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom(...TRICKY_CHARACTERS), minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
  fc
    .tuple(fc.constantFrom('a', 'é', '𝒳', '\u0000', ' ', '%'), fc.integer({ min: 200, max: 10_000 }))
    .map(([c, n]) => c.repeat(n)),
  fc.constantFrom(...ODD_STRINGS),
);

/** Values of the wrong type for any field, and odd strings for string fields. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 1.5, 2 ** 53 + 1, [], {}, [null], { '': '' }),
);

type Mutation = { op: number; at: number; key: string; value: unknown; text: string };

const mutation = (minOp = 0): fc.Arbitrary<Mutation> =>
  fc.record({
    op: fc.integer({ min: minOp, max: minOp === 8 ? 8 : 7 }),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom(...DANGEROUS_KEYS, 'name', 'pairs', 'source', 'id', 'extra'), oddString),
    value: oddValue,
    text: oddString,
  });

/** Every object and array node of `raw`, the root first. */
function containers(raw: Raw, into: Raw[] = []): Raw[] {
  if (raw.kind === 'value') return into;
  into.push(raw);
  for (const child of raw.kind === 'object' ? raw.entries.map(([, v]) => v) : raw.items)
    containers(child, into);
  return into;
}

/** Fields whose value is free text (the rest of the strings are enums or ids). */
const FREE_TEXT = new Set([
  'name',
  'description',
  'value',
  'destination',
  'from',
  'to',
  'userAgent',
  'fileName',
  'env',
]);

type Leaf = { node: Raw; index: number };

/** Every string value of `raw` (only free-text fields with `freeText`), as its node and place there. */
function stringLeaves(raw: Raw, freeText: boolean): Leaf[] {
  return containers(raw).flatMap((node): Leaf[] => {
    if (node.kind === 'object')
      return node.entries.flatMap(([key, child], index) =>
        child.kind === 'value' && typeof child.value === 'string' && (!freeText || FREE_TEXT.has(key))
          ? [{ node, index }]
          : [],
      );
    if (node.kind !== 'array' || freeText) return [];
    return node.items.flatMap((child, index) =>
      child.kind === 'value' && typeof child.value === 'string' ? [{ node, index }] : [],
    );
  });
}

/**
 * Applies one mutation at the node `at` picks: drop, replace with any value, duplicate a key, add a
 * dangerous key, add an unknown key, or (most often, ops 5 to 7) replace a string with an odd one;
 * op 8 replaces a free-text string only (the body stays valid more often).
 */
function mutate(raw: Raw, { op, at, key, value, text }: Mutation): void {
  if (op >= 5) {
    const leaves = stringLeaves(raw, op === 8);
    const leaf = leaves[at % Math.max(leaves.length, 1)];
    if (leaf?.node.kind === 'object') (leaf.node.entries[leaf.index] as [string, Raw])[1] = toRaw(text);
    else if (leaf?.node.kind === 'array') leaf.node.items[leaf.index] = toRaw(text);
    return;
  }
  const nodes = containers(raw);
  const node = nodes[at % nodes.length];
  if (!node || node.kind === 'value') return;
  const children: Raw[] = node.kind === 'object' ? node.entries.map(([, v]) => v) : node.items;
  const index = children.length === 0 ? -1 : at % children.length;
  if (op === 0 && index >= 0) {
    if (node.kind === 'object') node.entries.splice(index, 1);
    else node.items.splice(index, 1);
  } else if (op === 1 && index >= 0) {
    if (node.kind === 'object') (node.entries[index] as [string, Raw])[1] = toRaw(value);
    else node.items[index] = toRaw(value);
  } else if (op === 2 && index >= 0 && node.kind === 'object') {
    const [name] = node.entries[index] as [string, Raw];
    node.entries.push([name, toRaw(value)]);
  } else if (op === 3 && node.kind === 'object') {
    const dangerous = DANGEROUS_KEYS[at % DANGEROUS_KEYS.length] as string;
    node.entries.push([dangerous, toRaw({ polluted: 'yes', prototype: { polluted: 'yes' } })]);
  } else if (node.kind === 'object') {
    node.entries.push([key, toRaw(value)]);
  } else {
    node.items.push(toRaw(value));
  }
}

/**
 * A valid rule body of some type (with one of its valid example pairs), then 1 to 4 mutations; with
 * `stringsOnly`, only free-text strings are replaced (by odd ones), so that many bodies stay valid.
 */
export function mutatedRuleBody(extra: Record<string, unknown> = {}, stringsOnly = false) {
  return fc
    .record({
      ruleType: fc.constantFrom(...RULE_TYPES),
      example: fc.nat(),
      status: fc.constantFrom('Active', 'Inactive', undefined),
      mutations: fc.array(mutation(stringsOnly ? 8 : 0), { minLength: 1, maxLength: 4 }),
    })
    .map(({ ruleType, example, status, mutations }) => {
      const examples = ruleTypes[ruleType].examples.valid;
      const pair = (examples[example % examples.length] as { pair: unknown }).pair;
      const body = {
        name: 'fuzzed rule',
        description: 'fuzz',
        ...(status ? { status } : {}),
        ruleType,
        pairs: [pair],
        ...extra,
      };
      const raw = toRaw(structuredClone(body));
      for (const change of mutations) mutate(raw, change);
      return { ruleType, text: rawText(raw) };
    });
}

/** A valid group body, then 1 to 4 mutations (with `stringsOnly`, odd strings for its name only). */
export const mutatedGroupBody = (stringsOnly = false) =>
  fc
    .record({
      mutations: fc.array(mutation(stringsOnly ? 8 : 0), { minLength: 1, maxLength: 4 }),
      favourite: fc.boolean(),
    })
    .map(({ mutations, favourite }) => {
      const raw = toRaw({ name: 'fuzzed group', status: 'Inactive', isFavourite: favourite });
      for (const change of mutations) mutate(raw, change);
      return rawText(raw);
    });
