// How big a pattern's compiled program is, and which construct makes it so. RE2 matches in time linear
// in the text, but the factor is the program's size, and so is the memory it holds: `\w{1,999}\d{50}`
// compiles to 2,049 instructions and took 0.6 s against an 8 KB URL. Like Chrome's regex budget, a
// pattern over the limit is refused when it is written, naming what to change.

/** Instructions a pattern's compiled program may have. */
export const MAX_PROGRAM_SIZE = 1000;

/** Estimates past this many times the limit are refused without compiling (compiling is the cost). */
const ESTIMATE_MARGIN = 4;

const REPEAT = /^\{(\d+)(?:(,)(\d*))?\}/;

interface Estimate {
  size: number;
  /** The counted repetition that adds the most, and how many instructions it adds. */
  largest?: { text: string; size: number };
}

/** The end of the escape starting at `i` (a backslash): `\p{Greek}`, `\x{41}`, `\Q…\E` are one atom. */
function escapeEnd(pattern: string, i: number): number {
  const letter = pattern[i + 1];
  if ((letter === 'p' || letter === 'P' || letter === 'x') && pattern[i + 2] === '{') {
    const close = pattern.indexOf('}', i);
    return close < 0 ? pattern.length - 1 : close;
  }
  if (letter === 'p' || letter === 'P') return i + 2;
  if (letter === 'Q') {
    const end = pattern.indexOf('\\E', i);
    return end < 0 ? pattern.length - 1 : end + 1;
  }
  return i + 1;
}

/** The end of the class opened at `i` (`[:alpha:]` and escapes inside it included). */
export function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === '^') j++;
  if (pattern[j] === ']') j++;
  while (j < pattern.length && pattern[j] !== ']') {
    const posix = pattern[j] === '[' && pattern[j + 1] === ':' ? pattern.indexOf(':]', j + 2) : -1;
    j = posix >= 0 ? posix + 2 : j + (pattern[j] === '\\' ? 2 : 1);
  }
  return j;
}

/**
 * The program size of `pattern` read from its structure: an atom is one instruction, a group what it
 * holds, and a counted repetition multiplies what it repeats. Close to RE2's own count for the
 * constructs that matter (repetitions), cheap for any text, and never compiles anything.
 */
export function estimateProgramSize(pattern: string): Estimate {
  interface Level {
    size: number;
    /** Where the last atom starts and what it costs (what a quantifier after it repeats). */
    atomStart: number;
    atomSize: number;
    /** Where the group this level reads was opened. */
    groupStart: number;
  }
  const levels: Level[] = [{ size: 0, atomStart: -1, atomSize: 0, groupStart: 0 }];
  let largest: Estimate['largest'];
  const top = () => levels[levels.length - 1] as Level;
  const atom = (start: number, size: number) => {
    const level = top();
    level.size += size;
    level.atomStart = start;
    level.atomSize = size;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const end = escapeEnd(pattern, i);
      atom(i, pattern[i + 1] === 'Q' ? Math.max(1, end - i - 3) : 1);
      i = end;
    } else if (c === '[') {
      const end = classEnd(pattern, i);
      atom(i, 1);
      i = end;
    } else if (c === '(') {
      levels.push({ size: 0, atomStart: -1, atomSize: 0, groupStart: i });
      // A name (`(?P<name>`, `(?<name>`) or flags (`(?i:`, `(?i)`) are no atoms.
      if (pattern[i + 1] === '?') {
        const named = /^\(\?P?<[^>]*>/.exec(pattern.slice(i, i + 40));
        if (named) i += named[0].length - 1;
        else while (i < pattern.length && !':)'.includes(pattern[i + 1] ?? ')')) i++;
        if (pattern[i + 1] === ':') i++;
      }
    } else if (c === ')' && levels.length > 1) {
      const inner = levels.pop() as Level;
      atom(inner.groupStart, inner.size + 2);
    } else if (c === '|') {
      const level = top();
      level.size += 1;
      level.atomSize = 0;
    } else if (c === '*' || c === '+' || c === '?') {
      if (pattern[i + 1] === '?') i++; // lazy: the same program
      top().size += 1;
    } else if (c === '{' && REPEAT.test(pattern.slice(i, i + 24))) {
      const [text, min, comma, max] = REPEAT.exec(pattern.slice(i, i + 24)) as RegExpExecArray;
      const times = comma === undefined ? Number(min) : max ? Number(max) : Number(min) + 1;
      const level = top();
      const added = level.atomSize * (times - 1) + (comma === undefined ? 0 : times);
      level.size += added;
      if (level.atomStart >= 0 && (!largest || added > largest.size)) {
        largest = { text: pattern.slice(level.atomStart, i + text.length), size: added };
      }
      level.atomSize = level.atomSize * times;
      i += text.length - 1;
      if (pattern[i + 1] === '?') i++;
    } else {
      atom(i, 1);
    }
  }
  while (levels.length > 1) {
    const inner = levels.pop() as Level;
    top().size += inner.size + 2;
  }
  return { size: top().size + 2, ...(largest ? { largest } : {}) };
}

const grouped = (n: number) => n.toLocaleString('en-US');

/** Why the program is too large, naming the construct that makes it so. */
export function tooLargeProblem(pattern: string, size: number | undefined, limit = MAX_PROGRAM_SIZE): string {
  const { largest } = estimateProgramSize(pattern);
  const total =
    size === undefined
      ? `more than ${grouped(limit * ESTIMATE_MARGIN)} instructions`
      : `${grouped(size)} instructions`;
  const because = largest
    ? `the counted repetition \`${largest.text.length > 60 ? `${largest.text.slice(0, 60)}…` : largest.text}\` copies what it repeats for each count; use a smaller count, or + or *`
    : 'make it shorter or simpler';
  return `the pattern compiles to ${total}, more than the ${grouped(limit)} allowed (matching time and memory grow with it): ${because}`;
}

/** Whether the estimate alone says the program is far too large to be worth compiling. */
export function clearlyTooLarge(pattern: string, limit = MAX_PROGRAM_SIZE): boolean {
  return estimateProgramSize(pattern).size > limit * ESTIMATE_MARGIN;
}
