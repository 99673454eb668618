// Rules carry JavaScript regular expressions (Requestly runs them with JavaScript's RegExp), but the
// engine runs RE2, which matches in linear time. This reads a JavaScript pattern as JavaScript does
// (without `u`, the web's lenient reading) and writes the RE2 pattern with the same meaning. Only what
// no linear-time engine can run is refused: backreferences and lookaround, named with their position.

/** Flags a JavaScript regular expression may carry. */
export const JS_FLAGS = 'dgimsuyv';

export type Translation =
  | { ok: true; source: string; groupCount: number; groupNames: Map<string, number> }
  | { ok: false; problem: string };

/** JavaScript's `\s`: RE2's covers ASCII white space only. */
const SPACE =
  '\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** JavaScript's `.` without `s`: anything but a line terminator. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const NOTHING = '[^\\x00-\\x{10FFFF}]';
const ANYTHING = '[\\x00-\\x{10FFFF}]';
const QUANTIFIER = /^\{(\d+)(?:(,)(\d*))?\}/;
const MAX_REPEAT = 1000;

class Refusal extends Error {}

const hex = (code: number) => `\\x{${code.toString(16).toUpperCase()}}`;
const isHex = (text: string | undefined, n: number) =>
  text !== undefined && text.length === n && /^[0-9A-Fa-f]+$/.test(text);

/** A literal character outside a class, written so RE2 reads it as itself. */
function literal(code: number): string {
  if (code >= 0xd800 && code <= 0xdfff) return NOTHING; // a lone surrogate is never in a well-formed string
  const char = String.fromCodePoint(code);
  if (/[A-Za-z0-9]/.test(char)) return char;
  if (code > 0x20 && code < 0x7f) return `\\${char}`;
  return code > 0x7f && code !== 0x2028 && code !== 0x2029 ? char : hex(code);
}

/** What a JavaScript escape stands for: one character, or a class of them (`\d`), at `i` (a backslash). */
interface Escape {
  end: number;
  char?: number;
  /** RE2 text for a class escape, usable inside and outside a class. */
  inClass?: string;
  outside?: string;
}

interface Reading {
  pattern: string;
  unicode: boolean;
  groupCount: number;
  named: boolean;
  at: (i: number) => number;
}

function codePointAt(pattern: string, i: number): { code: number; end: number } {
  const code = pattern.codePointAt(i) as number;
  return { code, end: i + (code > 0xffff ? 2 : 1) };
}

/** A legacy octal escape (`\101`, `\0`), up to three digits worth at most 0o377. */
function octal(pattern: string, i: number): Escape {
  let j = i;
  let value = 0;
  while (j < i + 3 && /[0-7]/.test(pattern[j] ?? '') && value * 8 + Number(pattern[j]) <= 0o377) {
    value = value * 8 + Number(pattern[j]);
    j++;
  }
  return { end: j, char: value };
}

function readEscape(r: Reading, i: number, inClass: boolean): Escape {
  const { pattern, unicode } = r;
  const next = pattern[i + 1] ?? '';
  switch (next) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
      return { end: i + 2, inClass: `\\${next}`, outside: `\\${next}` };
    case 's':
      return { end: i + 2, inClass: SPACE, outside: `[${SPACE}]` };
    case 'S':
      return { end: i + 2, inClass: '\\S', outside: `[^${SPACE}]` };
    case 'b':
    case 'B':
      if (inClass) return next === 'b' ? { end: i + 2, char: 8 } : { end: i + 2, char: 66 };
      return { end: i + 2, outside: `\\${next}` };
    case 'f':
      return { end: i + 2, char: 12 };
    case 'n':
      return { end: i + 2, char: 10 };
    case 'r':
      return { end: i + 2, char: 13 };
    case 't':
      return { end: i + 2, char: 9 };
    case 'v':
      return { end: i + 2, char: 11 };
    case 'c': {
      const letter = pattern[i + 2] ?? '';
      if (/[A-Za-z]/.test(letter) || (inClass && !unicode && /[0-9_]/.test(letter))) {
        return { end: i + 3, char: letter.charCodeAt(0) % 32 };
      }
      return { end: i + 1, char: 92 }; // a backslash; the `c` is read next as itself
    }
    case 'x': {
      const digits = pattern.slice(i + 2, i + 4);
      return isHex(digits, 2) ? { end: i + 4, char: Number.parseInt(digits, 16) } : { end: i + 2, char: 120 };
    }
    case 'u': {
      if (unicode && pattern[i + 2] === '{') {
        const close = pattern.indexOf('}', i);
        return { end: close + 1, char: Number.parseInt(pattern.slice(i + 3, close), 16) };
      }
      const digits = pattern.slice(i + 2, i + 6);
      if (!isHex(digits, 4)) return { end: i + 2, char: 117 };
      const high = Number.parseInt(digits, 16);
      const low = pattern.slice(i + 8, i + 12);
      if (high >= 0xd800 && high <= 0xdbff && pattern.slice(i + 6, i + 8) === '\\u' && isHex(low, 4)) {
        const lowCode = Number.parseInt(low, 16);
        if (lowCode >= 0xdc00 && lowCode <= 0xdfff) {
          return { end: i + 12, char: (high - 0xd800) * 0x400 + (lowCode - 0xdc00) + 0x10000 };
        }
      }
      return { end: i + 6, char: high };
    }
    case 'p':
    case 'P': {
      if (!unicode) return { end: i + 2, char: next.charCodeAt(0) };
      const close = pattern.indexOf('}', i);
      const name = pattern.slice(i + 3, close).replace(/^(?:Script|sc|General_Category|gc)=/, '');
      if (!/^[A-Za-z_]+$/.test(name)) {
        throw new Refusal(
          `the Unicode property ${pattern.slice(i, close + 1)} at ${r.at(i)} is not supported`,
        );
      }
      const text = `\\${next}{${name}}`;
      return { end: close + 1, inClass: text, outside: text };
    }
    case 'k':
      if (r.named || unicode) {
        const name = /^\\k<[^>]*>/.exec(pattern.slice(i, i + 300))?.[0] ?? '\\k';
        throw new Refusal(`backreference ${name} at ${r.at(i)} cannot be run in linear time`);
      }
      return { end: i + 2, char: 107 };
    default:
      break;
  }
  if (next === '0' && !/[0-9]/.test(pattern[i + 2] ?? '')) return { end: i + 2, char: 0 };
  if (/[1-9]/.test(next) && !inClass) {
    const digits = /^\d+/.exec(pattern.slice(i + 1))?.[0] as string;
    if (Number(digits) <= r.groupCount) {
      throw new Refusal(`backreference \\${digits} at ${r.at(i)} cannot be run in linear time`);
    }
  }
  if (/[0-7]/.test(next) && !unicode) return octal(pattern, i + 1);
  // An identity escape: the character itself (`\/`, `\-`, and without `u` any letter, as `\A` or `\z`).
  const { code, end } = codePointAt(pattern, i + 1);
  return { end, char: code };
}

/** The capturing groups of a JavaScript pattern, counted as JavaScript does (classes and escapes skipped). */
function countGroups(pattern: string): { count: number; names: Map<string, number> } {
  const names = new Map<string, number>();
  let count = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') {
      if (pattern[i + 1] !== '?') count++;
      else {
        const named = /^\(\?<([^=!>][^>]*)>/.exec(pattern.slice(i, i + 300));
        if (named) names.set(named[1] as string, ++count);
      }
    }
  }
  return { count, names };
}

type ClassAtom = { char: number; dash?: boolean } | { text: string };

function translateClass(r: Reading, i: number, vMode: boolean): { text: string; end: number } {
  const { pattern } = r;
  let j = i + 1;
  const negated = pattern[j] === '^';
  if (negated) j++;
  const atoms: ClassAtom[] = [];
  while (j < pattern.length && pattern[j] !== ']') {
    if (vMode && (pattern[j] === '[' || pattern.startsWith('--', j) || pattern.startsWith('&&', j))) {
      throw new Refusal(`the set operations of the v flag at ${r.at(j)} are not supported`);
    }
    if (pattern[j] === '\\') {
      const read = readEscape(r, j, true);
      atoms.push(read.char !== undefined ? { char: read.char } : { text: read.inClass as string });
      j = read.end;
    } else {
      const { code, end } = codePointAt(pattern, j);
      atoms.push(code === 45 ? { char: code, dash: true } : { char: code });
      j = end;
    }
  }
  if (atoms.length === 0) return { text: negated ? ANYTHING : NOTHING, end: j };
  let body = '';
  for (let k = 0; k < atoms.length; k++) {
    const atom = atoms[k] as ClassAtom;
    const dash = atoms[k + 1];
    const to = atoms[k + 2];
    const one = (a: ClassAtom) => ('text' in a ? a.text : hex(a.char));
    if (dash && 'dash' in dash && dash.dash && to) {
      // A range between two characters; with a class escape on either side (`[\d.-\w]`), JavaScript
      // reads the `-` as itself.
      body += 'char' in atom && 'char' in to ? `${one(atom)}-${one(to)}` : `${one(atom)}\\-${one(to)}`;
      k += 2;
    } else body += one(atom);
  }
  return { text: `[${negated ? '^' : ''}${body}]`, end: j };
}

/**
 * The RE2 pattern that means what the JavaScript `pattern` means with `flags`, or why it cannot be
 * run. `offset` is where the pattern starts in the value as written, for the positions in messages.
 */
export function translateJsRegex(pattern: string, flags: string, offset = 0): Translation {
  try {
    // JavaScript's own parser says whether the text is a pattern at all (compiling runs nothing).
    new RegExp(pattern, flags.replace(/[dgy]/g, ''));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: message.replace(/^Invalid regular expression: \/[\s\S]*\/[a-z]*: /, '') };
  }
  const unicode = flags.includes('u') || flags.includes('v');
  const { count, names } = countGroups(pattern);
  const r: Reading = { pattern, unicode, groupCount: count, named: names.size > 0, at: (i) => i + offset };
  let out = '';
  try {
    for (let i = 0; i < pattern.length; ) {
      const c = pattern[i] as string;
      if (c === '\\') {
        const read = readEscape(r, i, false);
        out += read.char !== undefined ? literal(read.char) : read.outside;
        i = read.end;
      } else if (c === '[') {
        const cls = translateClass(r, i, flags.includes('v'));
        out += cls.text;
        i = cls.end + 1;
      } else if (c === '(') {
        const head = pattern.slice(i, i + 4);
        const look = /^\(\?(<?[=!])/.exec(head)?.[1];
        if (look) {
          const kind = `${look.startsWith('<') ? 'lookbehind' : 'lookahead'}`;
          const negative = look.endsWith('!') ? 'negative ' : '';
          throw new Refusal(`${negative}${kind} (?${look}…) at ${r.at(i)} cannot be run in linear time`);
        }
        const named = /^\(\?<[^>]*>/.exec(pattern.slice(i, i + 300));
        if (named) {
          out += '(';
          i += named[0].length;
        } else if (head.startsWith('(?')) {
          // `(?:` and, where the runtime knows them, modifiers such as `(?i:`: RE2 reads them alike.
          const group = /^\(\?[a-z-]*:/.exec(pattern.slice(i, i + 12))?.[0] ?? '(?:';
          out += group;
          i += group.length;
        } else {
          out += '(';
          i++;
        }
      } else if (c === '{') {
        const quantifier = QUANTIFIER.exec(pattern.slice(i, i + 24));
        if (quantifier) {
          const largest = Math.max(Number(quantifier[1]), Number(quantifier[3] || 0));
          if (largest > MAX_REPEAT) {
            throw new Refusal(
              `the repetition ${quantifier[0]} at ${r.at(i)} is over ${MAX_REPEAT}, the most a linear-time engine repeats`,
            );
          }
          out += quantifier[0];
          i += quantifier[0].length;
        } else {
          out += '\\{';
          i++;
        }
      } else if (c === '.') {
        out += flags.includes('s') ? ANYTHING : DOT;
        i++;
      } else if ('|)*+?^$'.includes(c)) {
        out += c;
        i++;
      } else {
        const { code, end } = codePointAt(pattern, i);
        out += literal(code);
        i = end;
      }
    }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, problem: error.message };
    throw error;
  }
  return { ok: true, source: out, groupCount: count, groupNames: names };
}

/** Why `flags` are not a JavaScript regular expression's flags, or undefined. */
export function flagsProblem(flags: string): string | undefined {
  const unknown = [...new Set(flags)].filter((flag) => !JS_FLAGS.includes(flag));
  if (unknown.length > 0) {
    return `unknown flag${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (flags are ${JS_FLAGS.split('').join(', ')})`;
  }
  const repeated = [...flags].find((flag, index) => flags.indexOf(flag) !== index);
  if (repeated) return `flag ${repeated} is given twice`;
  if (flags.includes('u') && flags.includes('v')) return 'flags u and v cannot be given together';
  return undefined;
}
