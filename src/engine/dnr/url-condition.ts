// A pair's source as the URL part of a Chrome rule's condition: a urlFilter where Chrome's filter
// syntax says exactly what the operator says, else an RE2 regexFilter. Chrome matches the URL as it
// sends it: ASCII (punycode, percent-encoding), and without a fragment.
import { RE2JS } from 're2js';
import { flagsProblem, translateJsRegex } from '../../model/js-regex.js';
import { parsePattern } from '../../model/patterns.js';
import { CHROME_REGEX_INSTRUCTIONS, chromeRegexCost } from './limits.js';

type Key = 'Url' | 'host' | 'path';

export interface UrlCondition {
  urlFilter?: string;
  regexFilter?: string;
  isUrlFilterCaseSensitive: boolean;
}

export type SourceTranslation =
  /** The condition, and how many groups its regexFilter has for a regexSubstitution. */
  | { kind: 'condition'; url: UrlCondition; captures: number; wholeUrl: boolean }
  /** The engine never matches it on a URL a browser sends: no browser rule is needed. */
  | { kind: 'never'; reason: string }
  | { kind: 'refused'; reason: string };

/** Characters of a URL as Chrome sends it: printable ASCII. */
const URL_CHAR = '[!-~]';
/** In a host: not `/ ? # @`. */
const HOST_CHAR = '[!-"$-.0->A-~]';
/** In the authority (user information, host, port): not `/ ? #`. */
const AUTHORITY_CHAR = '[!-"$-.0->@-~]';
/** In a path: not `? #`. */
const PATH_CHAR = '[!-"$->@-~]';
const SCHEME = '^[a-z][a-z0-9+.-]*://';
/** After the host: the path, query and fragment, or nothing. */
const AFTER_HOST = `(?:[/?#]${URL_CHAR}*)?$`;
/** After the path: the query and fragment, or nothing. */
const AFTER_PATH = `(?:[?#]${URL_CHAR}*)?$`;

/** Characters Chrome's urlFilter reads as syntax (there is no escape for them). */
const FILTER_SYNTAX = /[*|^]/;
const PRINTABLE_ASCII = /^[!-~]*$/;

export const escapeRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/** The part past ASCII of JavaScript's `\\s` as the translation writes it (see js-regex.ts). */
const JS_SPACE_OUTSIDE_ASCII =
  '\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';

const NO_FRAGMENT =
  "Chrome never sees a URL's fragment (#…): browsers do not send it, so the browser cannot match on it";

/** Whether Chrome can run `regex` (compiles, within its program budget); why not, when it cannot. */
export function regexProblem(regex: string, caseSensitive: boolean): string | undefined {
  // A program has at least an instruction per literal character: long text is refused unread.
  if (regex.replace(/\\./g, '.').length > 8 * CHROME_REGEX_INSTRUCTIONS) {
    return `the regular expression is longer than Chrome's 2 KB program budget allows`;
  }
  let programSize: number;
  try {
    // RE2 text (the translated pattern, or one written here), compiled as Chrome's RE2 reads it.
    programSize = RE2JS.compile(regex, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE).programSize();
  } catch (error) {
    return `the regular expression cannot be compiled: ${error instanceof Error ? error.message : String(error)}`;
  }
  const cost = chromeRegexCost(regex, programSize);
  return cost > CHROME_REGEX_INSTRUCTIONS
    ? `the regular expression needs about ${cost} RE2 instructions, over Chrome's 2 KB budget (about ${CHROME_REGEX_INSTRUCTIONS})`
    : undefined;
}

function regexCondition(
  regexFilter: string,
  captures: number,
  caseSensitive = true,
  wholeUrl = true,
): SourceTranslation {
  // Whether Chrome's RE2 takes it is checked by the compiler, once the rule fits Chrome's count limits.
  return {
    kind: 'condition',
    url: { regexFilter, isUrlFilterCaseSensitive: caseSensitive },
    captures,
    wholeUrl,
  };
}

/** A wildcard's stars as capture groups of `star`, its literal parts escaped. */
function wildcardRegex(parts: string[], star: (index: number) => string): string {
  return parts.map((part, i) => (i === 0 ? '' : star(i - 1)) + escapeRegex(part)).join('');
}

function urlKey(operator: string, value: string, wantCaptures: boolean): SourceTranslation {
  const plain = PRINTABLE_ASCII.test(value) && !FILTER_SYNTAX.test(value);
  switch (operator) {
    case 'Equals':
      if (plain) return { kind: 'condition', url: filter(`|${value}|`), captures: 0, wholeUrl: true };
      return regexCondition(`^${escapeRegex(value)}$`, 0);
    case 'Contains':
      if (plain) return { kind: 'condition', url: filter(value), captures: 0, wholeUrl: false };
      return regexCondition(escapeRegex(value), 0, true, false);
    case 'Wildcard_Matches': {
      const parts = value.split('*');
      const literalPlain = parts.every((part) => PRINTABLE_ASCII.test(part) && !/[|^]/.test(part));
      if (literalPlain && !wantCaptures)
        return { kind: 'condition', url: filter(`|${value}|`), captures: 0, wholeUrl: true };
      const stars = parts.length - 1;
      return regexCondition(`^${wildcardRegex(parts, () => `(${URL_CHAR}*?)`)}$`, stars);
    }
    default:
      return userRegex(value, wantCaptures);
  }
}

const filter = (urlFilter: string): UrlCondition => ({ urlFilter, isUrlFilterCaseSensitive: true });

/** A `Matches` value on the whole URL: the RE2 text the engine runs, with its flags. */
function userRegex(value: string, wantCaptures: boolean): SourceTranslation {
  // Translated only (RE2 compiles it once, when the rule fits Chrome's limits: see compile.ts).
  const { pattern, flags } = parsePattern(value);
  const translated = flagsProblem(flags) ? undefined : translateJsRegex(pattern, flags);
  if (!translated?.ok)
    return { kind: 'never', reason: 'the pattern cannot be used, so the engine never matches it' };
  // Chrome's URLs are ASCII and hold no line breaks: JavaScript's `.` is any ASCII character there.
  let source = translated.source
    .replaceAll('[^\\n\\r\\x{2028}\\x{2029}]', '[\\x00-\\x09\\x0B\\x0C\\x0E-\\x7F]')
    .replaceAll('[^\\x00-\\x{10FFFF}]', '[^\\x00-\\x7F]')
    .replaceAll('[\\x00-\\x{10FFFF}]', '[\\x00-\\x7F]')
    .replaceAll(JS_SPACE_OUTSIDE_ASCII, '');
  // Chromium's RE2 refuses code points written past \xFF (measured: `[\x00-\x{10FFFF}]` is a syntax
  // error there); the translation writes them for JavaScript's Unicode classes.
  if (/\\x\{[0-9A-Fa-f]{3,}\}/.test(source)) {
    return {
      kind: 'refused',
      reason: "the pattern needs code points past \\xFF, which Chrome's regexFilter refuses",
    };
  }
  const inline = [...flags].filter((flag) => flag === 'm' || flag === 's').join('');
  if (inline) source = `(?${inline})${source}`;
  // A regexSubstitution replaces the match: to make the destination the whole new URL, the match
  // must be the whole URL (the leftmost match, found as an unanchored search finds it).
  if (wantCaptures) source = `^${URL_CHAR}*?(?:${source})${URL_CHAR}*$`;
  return regexCondition(source, translated.groupCount, !flags.includes('i'), wantCaptures);
}

/** `host` is the host with a non-default port: the text between `scheme://` (and user information) and the path. */
function hostKey(operator: string, value: string): SourceTranslation {
  if (operator === 'Matches')
    return {
      kind: 'refused',
      reason: "a regular expression on the host cannot be kept to the host in Chrome's one URL condition",
    };
  const parts = operator === 'Wildcard_Matches' ? value.split('*') : [value];
  if (!parts.every((part) => /^[!-"$-.0->A-~]*$/.test(part))) {
    return { kind: 'never', reason: 'a host never holds / ? # @, white space or non-ASCII characters' };
  }
  const head = `${SCHEME}(?:${AUTHORITY_CHAR}*@)?`;
  if (operator === 'Equals') return regexCondition(`${head}${escapeRegex(value)}${AFTER_HOST}`, 0);
  if (operator === 'Contains')
    return regexCondition(`${head}${HOST_CHAR}*${escapeRegex(value)}${HOST_CHAR}*${AFTER_HOST}`, 0);
  const host = wildcardRegex(parts, () => `(${HOST_CHAR}*?)`);
  return regexCondition(`${head}${host}${AFTER_HOST}`, parts.length - 1);
}

/** `path` is the path alone: from the first `/` after the authority to the query or fragment. */
function pathKey(operator: string, value: string): SourceTranslation {
  if (operator === 'Matches')
    return {
      kind: 'refused',
      reason: "a regular expression on the path cannot be kept to the path in Chrome's one URL condition",
    };
  const parts = operator === 'Wildcard_Matches' ? value.split('*') : [value];
  if (!parts.every((part) => /^[!-"$->@-~]*$/.test(part))) {
    return { kind: 'never', reason: 'a path never holds ? #, white space or non-ASCII characters' };
  }
  const head = `${SCHEME}${AUTHORITY_CHAR}*`;
  const esc = escapeRegex(value);
  if (operator === 'Equals') {
    if (!value.startsWith('/')) return { kind: 'never', reason: 'a path always starts with /' };
    return regexCondition(`${head}${esc}${AFTER_PATH}`, 0);
  }
  if (operator === 'Contains') {
    // The path starts at the first `/`: the authority holds none, so a match starts inside the path.
    const before = value.startsWith('/') ? `(?:/${PATH_CHAR}*)?` : `/${PATH_CHAR}*`;
    return regexCondition(`${head}${before}${esc}${PATH_CHAR}*${AFTER_PATH}`, 0);
  }
  const first = parts[0] as string;
  if (first !== '' && !first.startsWith('/')) return { kind: 'never', reason: 'a path always starts with /' };
  // Leading stars: the path's `/` must be in one of them when the text after them does not start with
  // it, so that no star can reach back into the authority.
  const leading = parts.findIndex((part, i) => i > 0 && part !== '');
  const afterLeading = leading < 0 ? '' : (parts[leading] as string);
  const slashStar = first === '' && afterLeading !== '' && !afterLeading.startsWith('/') ? leading - 1 : -1;
  const path = wildcardRegex(parts, (star) =>
    star === slashStar ? `(/${PATH_CHAR}*?)` : `(${PATH_CHAR}*?)`,
  );
  return regexCondition(`${head}${path}${AFTER_PATH}`, parts.length - 1);
}

/**
 * The source's operator and value on its key as a urlFilter or regexFilter. `wantCaptures`: the
 * destination uses the source's captures, so the regexFilter must match the whole URL with them as
 * its groups.
 */
export function sourceCondition(
  source: { key: string; operator: string; value: string },
  wantCaptures: boolean,
): SourceTranslation {
  const { key, operator, value } = source;
  if (value === '')
    return { kind: 'condition', url: { isUrlFilterCaseSensitive: true }, captures: 0, wholeUrl: false };
  // A pattern naming `#` is about the fragment too (the engine's URL has it, the browser's never).
  if (key === 'Url' && value.includes('#')) return { kind: 'refused', reason: NO_FRAGMENT };
  if (operator !== 'Matches' && /[\u0080-\uffff]/.test(value)) {
    return {
      kind: 'never',
      reason: 'the browser sends URLs in ASCII (punycode, percent-encoding): this value never matches',
    };
  }
  switch (key as Key) {
    case 'host':
      return hostKey(operator, value);
    case 'path':
      return pathKey(operator, value);
    default:
      return urlKey(operator, value, wantCaptures);
  }
}
