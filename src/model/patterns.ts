// The pattern language of rules: `/pattern/flags` or a bare pattern, compiled with RE2 (linear time:
// no pattern can stall the engine). Validation and the engine share this one reading of a value.
import { RE2JS } from 're2js';
import { clearlyTooLarge, MAX_PROGRAM_SIZE, tooLargeProblem } from './pattern-size.js';

const PATTERN_LITERAL = /^\/([\s\S]+)\/([gimsuy]*)$/;

/** The value is written `/pattern/flags` (a Replace `from` is a regular expression only then). */
export function isPatternLiteral(value: string): boolean {
  return PATTERN_LITERAL.test(value);
}

/** `/pattern/flags` when the value has that form (flags from gimsuy), else the whole value, no flags. */
export function parsePattern(value: string): { pattern: string; flags: string } {
  const literal = PATTERN_LITERAL.exec(value);
  return literal
    ? { pattern: literal[1] as string, flags: literal[2] as string }
    : { pattern: value, flags: '' };
}

export type CompiledPattern = { ok: true; regex: RE2JS; global: boolean } | { ok: false; problem: string };

/** What RE2 refuses that JavaScript accepts, said in words a rule's author recognises. */
function explain(message: string, pattern: string): string {
  if (/invalid escape sequence: `\\[1-9]/.test(message) || /\\k</.test(pattern)) {
    return 'backreferences (\\1, \\k<name>) are not supported: RE2 matches in linear time and has none';
  }
  const look = /\(\?<?[=!]/.exec(pattern);
  if (look) return `lookaround (${look[0]}…) is not supported: RE2 matches in linear time and has none`;
  // re2js shows the flags it was given as a (?i) prefix of the pattern: not what the author wrote.
  return message.replace(/^error parsing regexp: /, '').replace(/`\(\?[ims]+\)/, '`');
}

/**
 * Compiles a `Matches` value (`/pattern/flags` or bare): flags i, m, s act; g, u, y change nothing here.
 * A program over `maxProgramSize` instructions is refused (patterns the engine writes itself, from a
 * wildcard, grow only with their text and pass Infinity).
 */
export function compilePattern(value: string, maxProgramSize = MAX_PROGRAM_SIZE): CompiledPattern {
  const { pattern, flags } = parsePattern(value);
  if (clearlyTooLarge(pattern, maxProgramSize))
    return { ok: false, problem: tooLargeProblem(pattern, undefined, maxProgramSize) };
  try {
    let options = 0;
    if (flags.includes('i')) options |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes('m')) options |= RE2JS.MULTILINE;
    if (flags.includes('s')) options |= RE2JS.DOTALL;
    const regex = RE2JS.compile(pattern, options);
    const size = regex.programSize();
    if (size > maxProgramSize) return { ok: false, problem: tooLargeProblem(pattern, size, maxProgramSize) };
    return { ok: true, regex, global: flags.includes('g') };
  } catch (error) {
    return { ok: false, problem: explain(error instanceof Error ? error.message : String(error), pattern) };
  }
}

/** Why a `Matches` value cannot be used, or undefined when it compiles. */
export function regexProblem(value: string): string | undefined {
  const result = compilePattern(value);
  return result.ok ? undefined : result.problem;
}
