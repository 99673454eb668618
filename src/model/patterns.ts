// The pattern language of rules: `/pattern/flags` or a bare pattern, written as JavaScript regular
// expressions (what Requestly runs) and run by RE2 (linear time: no pattern can stall the engine).
// Validation and the engine share this one reading of a value.
import { RE2JS } from 're2js';
import { flagsProblem, translateJsRegex } from './js-regex.js';
import { clearlyTooLarge, MAX_PROGRAM_SIZE, tooLargeProblem } from './pattern-size.js';

/** Anything that looks like `/pattern/flags`: letters after the last `/` are flags, known or not. */
const PATTERN_LITERAL = /^\/([\s\S]+)\/([A-Za-z]*)$/;

/**
 * The value is written `/pattern/flags` (a Replace `from` is a regular expression only then). Letters
 * that are not flags after the last `/` do not make it plain text: such a value is refused.
 */
export function isPatternLiteral(value: string): boolean {
  return PATTERN_LITERAL.test(value);
}

/** `/pattern/flags` when the value has that form, else the whole value, no flags. */
export function parsePattern(value: string): { pattern: string; flags: string } {
  const literal = PATTERN_LITERAL.exec(value);
  return literal
    ? { pattern: literal[1] as string, flags: literal[2] as string }
    : { pattern: value, flags: '' };
}

export type CompiledPattern =
  | {
      ok: true;
      regex: RE2JS;
      global: boolean;
      /** The RE2 text run, and the flags that act on it (i, m, s). */
      source: string;
      flags: string;
      /** JavaScript's named groups, by name, with their group numbers (RE2 runs them unnamed). */
      groupNames: Map<string, number>;
    }
  | { ok: false; problem: string };

/** What RE2 still refuses after translation, without re2js's own decoration. */
function explain(message: string): string {
  // re2js shows the flags it was given as a (?i) prefix of the pattern: not what the author wrote.
  return message.replace(/^error parsing regexp: /, '').replace(/`\(\?[ims]+\)/, '`');
}

/**
 * Compiles a `Matches` value (`/pattern/flags` or bare), read as JavaScript reads it: flags i, m, s
 * act; d, g, u, v, y are accepted (g: every match in a Replace). A program over `maxProgramSize`
 * instructions is refused (patterns the engine writes itself, from a wildcard, grow only with their
 * text and pass Infinity).
 */
export function compilePattern(value: string, maxProgramSize = MAX_PROGRAM_SIZE): CompiledPattern {
  const { pattern, flags } = parsePattern(value);
  const badFlags = flagsProblem(flags);
  if (badFlags) return { ok: false, problem: badFlags };
  const translated = translateJsRegex(pattern, flags, value === pattern ? 0 : 1);
  if (!translated.ok) return translated;
  const source = translated.source;
  if (clearlyTooLarge(source, maxProgramSize))
    return { ok: false, problem: tooLargeProblem(source, undefined, maxProgramSize) };
  try {
    let options = 0;
    if (flags.includes('i')) options |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes('m')) options |= RE2JS.MULTILINE;
    if (flags.includes('s')) options |= RE2JS.DOTALL;
    const regex = RE2JS.compile(source, options);
    const size = regex.programSize();
    if (size > maxProgramSize) return { ok: false, problem: tooLargeProblem(source, size, maxProgramSize) };
    return {
      ok: true,
      regex,
      global: flags.includes('g'),
      source,
      flags: [...flags].filter((flag) => 'ims'.includes(flag)).join(''),
      groupNames: translated.groupNames,
    };
  } catch (error) {
    return { ok: false, problem: explain(error instanceof Error ? error.message : String(error)) };
  }
}

/** Why a `Matches` value cannot be used, or undefined when it compiles. */
export function regexProblem(value: string): string | undefined {
  const result = compilePattern(value);
  return result.ok ? undefined : result.problem;
}
