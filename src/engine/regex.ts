// Regular expressions as the engine runs them: compiled patterns kept per text, matches and
// replacements, and the literal text a pattern requires (for the rule index).
import type { RE2JS } from 're2js';
import { translateJsRegex } from '../model/js-regex.js';
import { classEnd, MAX_PROGRAM_SIZE } from '../model/pattern-size.js';
import { type CompiledPattern, compilePattern, parsePattern } from '../model/patterns.js';

/**
 * Bytes the kept compiled patterns may hold. Kept by size, not count: one pattern's program can hold
 * a hundred times another's, and a count-bounded cache of large ones was gigabytes.
 */
export const PATTERN_CACHE_BYTES = 64 * 1024 * 1024;
/** A compiled pattern's heap, measured on re2js: a fixed part, and about this much per instruction. */
const BASE_BYTES = 8192;
const BYTES_PER_INSTRUCTION = 160;

// Compiled once per pattern text: rules are compiled once per version, and many rules share patterns.
// The least recently used go first.
const compiled = new Map<string, { pattern: CompiledPattern; bytes: number }>();
let keptBytes = 0;

function weight(value: string, pattern: CompiledPattern): number {
  return (
    BASE_BYTES + 2 * value.length + (pattern.ok ? BYTES_PER_INSTRUCTION * pattern.regex.programSize() : 0)
  );
}

/** What the kept compiled patterns are estimated to hold, in bytes (never over PATTERN_CACHE_BYTES). */
export function keptPatternBytes(): number {
  return keptBytes;
}

/**
 * Compiles a `Matches` value (`/pattern/flags` or bare): flags i, m, s act; u or v read the pattern in
 * Unicode mode; d, g, y change nothing here.
 * `maxProgramSize` is the limit on its program (see compilePattern).
 */
export function compileRegex(value: string, maxProgramSize = MAX_PROGRAM_SIZE): CompiledPattern {
  const key = maxProgramSize === MAX_PROGRAM_SIZE ? value : `${maxProgramSize}\0${value}`;
  const kept = compiled.get(key);
  if (kept) {
    compiled.delete(key);
    compiled.set(key, kept);
    return kept.pattern;
  }
  const pattern = compilePattern(value, maxProgramSize);
  const bytes = weight(value, pattern);
  if (bytes > PATTERN_CACHE_BYTES / 16) return pattern; // one pattern never crowds out the rest
  for (const [oldest, entry] of compiled) {
    if (keptBytes + bytes <= PATTERN_CACHE_BYTES) break;
    compiled.delete(oldest);
    keptBytes -= entry.bytes;
  }
  compiled.set(key, { pattern, bytes });
  keptBytes += bytes;
  return pattern;
}

/**
 * The first match of `regex` in `text` and its groups ("" for a group that did not take part), or
 * undefined.
 */
export function findMatch(regex: RE2JS, text: string): string[] | undefined {
  // Most patterns do not match most requests: a bare test is half the cost of a matcher.
  if (!regex.test(text)) return undefined;
  const matcher = regex.matcher(text);
  if (!matcher.find()) return undefined;
  const groups: string[] = [];
  for (let i = 1; i <= matcher.groupCount(); i++) groups.push(matcher.group(i) ?? '');
  return groups;
}

/**
 * `template` as JavaScript's `String.prototype.replace` reads it for one match: `$$`, `$&`, `` $` ``,
 * `$'`, `$1`…`$99` (two digits when that group exists) and `$<name>` (only when the pattern names groups).
 */
export function expandReplacement(
  template: string,
  match: { text: string; index: number; groups: (string | undefined)[] },
  input: string,
  names: ReadonlyMap<string, number> | undefined,
): string {
  if (!template.includes('$')) return template;
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i] as string;
    const next = template[i + 1];
    if (c !== '$' || next === undefined) {
      out += c;
      continue;
    }
    if (next === '$') out += '$';
    else if (next === '&') out += match.text;
    else if (next === '`') out += input.slice(0, match.index);
    else if (next === "'") out += input.slice(match.index + match.text.length);
    else if (/[0-9]/.test(next)) {
      const two = Number(template.slice(i + 1, i + 3));
      const one = Number(next);
      const count = match.groups.length;
      if (/^[0-9]{2}$/.test(template.slice(i + 1, i + 3)) && two >= 1 && two <= count) {
        out += match.groups[two - 1] ?? '';
        i += 2;
        continue;
      }
      if (one >= 1 && one <= count) out += match.groups[one - 1] ?? '';
      else out += `$${next}`;
    } else if (next === '<' && names && names.size > 0 && template.indexOf('>', i) > 0) {
      const close = template.indexOf('>', i);
      const group = names.get(template.slice(i + 2, close));
      out += group === undefined ? '' : (match.groups[group - 1] ?? '');
      i = close;
      continue;
    } else out += `$${next}`;
    i++;
  }
  return out;
}

/**
 * `text` with the first match of `regex` (every match with `global`) replaced by `template`, read as
 * JavaScript's `replace` reads it (see expandReplacement).
 */
export function replaceMatches(
  regex: RE2JS,
  text: string,
  template: string,
  global: boolean,
  names?: ReadonlyMap<string, number>,
): string {
  const matcher = regex.matcher(text);
  let out = '';
  let last = 0;
  while (matcher.find()) {
    const index = matcher.start();
    const groups: (string | undefined)[] = [];
    for (let g = 1; g <= matcher.groupCount(); g++) groups.push(matcher.group(g) ?? undefined);
    const matched = text.slice(index, matcher.end());
    out +=
      text.slice(last, index) + expandReplacement(template, { text: matched, index, groups }, text, names);
    last = matcher.end();
    if (!global) break;
  }
  return out + text.slice(last);
}

/** Inline flags that turn case-insensitivity on: (?i), (?si), (?mi:…). */
const INLINE_CASE_INSENSITIVE = /\(\?[imsU]*i/;
const REPEAT = /^\{\d+(?:,\d*)?\}/;

/**
 * The last position of the escape whose letter is at `i` (`\p{Greek}`, `\pN`, `\x41`, `\x{41}`, `\101`,
 * `\Q…\E`), so that what it stands for is never read as literal text.
 */
function endOfEscape(pattern: string, i: number): number {
  const letter = pattern[i];
  const braced = pattern[i + 1] === '{' ? pattern.indexOf('}', i) : -1;
  if (letter === 'p' || letter === 'P') return braced >= 0 ? braced : i + 1;
  if (letter === 'x') return braced >= 0 ? braced : i + 2;
  if (letter === 'Q') {
    const end = pattern.indexOf('\\E', i);
    return end < 0 ? pattern.length : end + 1;
  }
  let end = i;
  if (/[0-7]/.test(letter ?? '')) while (end < i + 2 && /[0-7]/.test(pattern[end + 1] ?? '')) end++;
  return end;
}

/**
 * A literal piece of text every match of `value` must contain, for pre-filtering (undefined when none
 * can be told safely: alternation, case-insensitivity, or no run of 3 literal characters outside groups).
 * Any doubt cuts a run: a literal too short only costs the index, one not really required breaks it.
 */
export function requiredLiteral(value: string): string | undefined {
  const parsed = parsePattern(value);
  const { flags } = parsed;
  // Read from the RE2 text the pattern is run as: JavaScript escapes such as `\u0041` are no literal text.
  const translated = translateJsRegex(parsed.pattern, flags);
  if (!translated.ok) return undefined;
  const pattern = translated.source;
  if (flags.includes('i') || pattern.includes('|') || INLINE_CASE_INSENSITIVE.test(pattern)) return undefined;
  const runs: string[] = [];
  let run = '';
  let depth = 0;
  const cut = () => {
    runs.push(run);
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    let literal: string | undefined;
    if (c === '\\') {
      const escaped = pattern[i + 1] ?? '';
      i++;
      if (/[^A-Za-z0-9]/.test(escaped)) literal = escaped;
      else i = endOfEscape(pattern, i);
    } else if (c === '[') {
      i = classEnd(pattern, i); // a class stands for one of several characters
    } else if (c === '{') {
      i += (REPEAT.exec(pattern.slice(i))?.[0].length ?? 1) - 1; // a repeat's digits are no text
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (!'.^$*+?}'.includes(c)) literal = c;
    const quantifierNext = pattern[i + 1];
    if (literal !== undefined && depth === 0) {
      if (quantifierNext === '?' || quantifierNext === '*' || quantifierNext === '{') {
        cut(); // the character may be absent
      } else {
        run += literal;
        if (quantifierNext === '+') cut();
      }
    } else {
      cut();
    }
  }
  cut();
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest.length >= 3 ? longest : undefined;
}
