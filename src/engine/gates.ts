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
  /** Gates rules added after the others (positions after theirs). */
  add(rules: { position: number; rule: CompiledRule }[]): void;
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

/**
 * Sources first gated after the alternations were made (rules added to a growing set), each tried
 * alone until there are this many: then the alternations are made again with them.
 */
const LOOSE_SOURCES = 32;

interface Group {
  key: Key;
  together: RE2JS | undefined;
  gates: Gate[];
}

export function compileGates(rules: { position: number; rule: CompiledRule }[]): Gates {
  const byKey = new Map<string, Gate>();
  let used: Group[] = [];
  let loose: Gate[] = [];

  /** Files the rules under the gates of their sources; answers the gates made for sources met first. */
  function file(more: { position: number; rule: CompiledRule }[]): Gate[] {
    const made: Gate[] = [];
    for (const { position, rule } of more) {
      for (const { pair, source } of rule.pairs) {
        const { operator, value } = pair.source as { operator: string; value: string };
        const id = `${source.key}\u0000${operator}\u0000${value}`;
        let gate = byKey.get(id);
        if (!gate) {
          gate = {
            key: source.key as Key,
            test: (text: string) => source.matcher.test(text),
            positions: [],
            pattern: source.matcher.pattern,
          };
          byKey.set(id, gate);
          made.push(gate);
        }
        if (gate.positions.at(-1) !== position) gate.positions.push(position);
      }
    }
    return made;
  }

  // Per URL part, the gates with a regular expression behind alternations of up to ALTERNATION_SIZE
  // patterns (each program stays small however many rules there are); the rest stay alone.
  function group(): void {
    const groups: Group[] = [];
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
    used = groups.filter((group) => group.gates.length > 0);
    loose = [];
  }

  file(rules);
  group();
  return {
    open(partOf) {
      const opened: number[] = [];
      for (const { key, together, gates } of used) {
        const text = partOf(key);
        if (together && !together.test(text)) continue;
        for (const gate of gates) if (gate.test(text) !== undefined) opened.push(...gate.positions);
      }
      for (const gate of loose) if (gate.test(partOf(gate.key)) !== undefined) opened.push(...gate.positions);
      return opened;
    },
    add(more) {
      // A source gated already takes the new rules at once: only new sources wait for the alternations.
      loose.push(...file(more));
      if (loose.length > LOOSE_SOURCES) group();
    },
  };
}
