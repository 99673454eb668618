// Rules the literal index cannot file (a source with no required text, such as `^https?://[a-z]+\.`):
// instead of evaluating each on every request, each distinct source is tried once per URL (many rules
// share one), and the regular expressions on one URL part are first tried together as one RE2
// alternation, so a URL that none of them matches costs one linear pass, however many there are.
import { RE2JS } from 're2js';
import type { CompiledRule } from './evaluate.js';

type Key = 'Url' | 'host' | 'path';

interface Pattern {
  source: string;
  flags: string;
}

interface Gate {
  key: Key;
  test(text: string): unknown;
  /** Positions of the rules with a pair whose source this is. */
  positions: number[];
  pattern: Pattern | undefined;
}

/** The rules whose sources match at a URL, among those given. */
export interface Gates {
  open(partOf: (key: Key) => string): readonly number[];
}

const ALTERNATION_SIZE = 64;

/** One RE2 program for several patterns, or undefined when they do not go together. */
function alternation(patterns: Pattern[]): RE2JS | undefined {
  const branches = patterns.map(({ source, flags }) => {
    const inline = [...flags].filter((flag) => 'ims'.includes(flag)).join('');
    return inline ? `(?${inline}:${source})` : `(?:${source})`;
  });
  try {
    return RE2JS.compile(branches.join('|'));
  } catch {
    return undefined; // each gate is still tried on its own
  }
}

export function compileGates(rules: { position: number; rule: CompiledRule }[]): Gates {
  const byKey = new Map<string, Gate>();
  for (const { position, rule } of rules) {
    for (const { pair, source } of rule.pairs) {
      const { operator, value } = pair.source as { operator: string; value: string };
      const id = `${source.key}\u0000${operator}\u0000${value}`;
      const gate = byKey.get(id) ?? {
        key: source.key as Key,
        test: (text: string) => source.matcher.test(text),
        positions: [],
        pattern: source.matcher.pattern,
      };
      if (gate.positions.at(-1) !== position) gate.positions.push(position);
      byKey.set(id, gate);
    }
  }
  // Per URL part, the gates with a regular expression behind alternations of up to ALTERNATION_SIZE
  // patterns (each program stays small however many rules there are); the rest stay alone.
  const groups: { key: Key; together: RE2JS | undefined; gates: Gate[] }[] = [];
  for (const key of ['Url', 'host', 'path'] as const) {
    const gates = [...byKey.values()].filter((gate) => gate.key === key);
    const regexGates = gates.filter((gate) => gate.pattern);
    for (let i = 0; i < regexGates.length; i += ALTERNATION_SIZE) {
      const chunk = regexGates.slice(i, i + ALTERNATION_SIZE);
      const together =
        chunk.length > 1 ? alternation(chunk.map((gate) => gate.pattern as Pattern)) : undefined;
      groups.push({ key, together, gates: chunk });
    }
    groups.push({ key, together: undefined, gates: gates.filter((gate) => !gate.pattern) });
  }
  const used = groups.filter((group) => group.gates.length > 0);

  return {
    open(partOf) {
      const opened: number[] = [];
      for (const { key, together, gates } of used) {
        const text = partOf(key);
        if (together && !together.test(text)) continue;
        for (const gate of gates) if (gate.test(text) !== undefined) opened.push(...gate.positions);
      }
      return opened;
    },
  };
}
