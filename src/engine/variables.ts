// Variables in rules (decision 20): `{{NAME}}` in the text fields a rule writes is replaced by the
// value of the workspace's variable NAME in one environment. A value is inserted as text: whatever
// field it lands in, it means what it says, never syntax of that field (a wildcard's star, a regular
// expression, a capture `$1`); what the same text typed into the rule would mean in that place is the
// most it can do. A rule resolved is checked again as a written rule is: one that fails does not act
// in that environment, and says why. Pure: no I/O; the services give the values. It loads no schema
// compiler (rulekeeper/runtime runs it in a browser service worker, which forbids compiling code): the
// rule types' own checks are given to it (variables-check.ts holds them for the server).
import type { ErrorDetail } from '../errors.js';
import { isPatternLiteral, parsePattern } from '../model/patterns.js';

/** A workspace's variables in one environment, by name (secrets resolved). */
export type VariableValues = ReadonlyMap<string, string>;

/**
 * The checks a written rule's pairs pass, run again on a resolved rule's (variables-check.ts: the rule
 * types' own); their problems, with paths into the rule.
 */
export type PairsCheck = (ruleType: string, pairs: unknown[]) => ErrorDetail[];

/** A variable's name, as the variables' routes take it. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * `{{NAME}}` with exactly two braces each side: `{{{body}}}` (a mock's own template language) and
 * `{{ NAME }}` are not references.
 */
const REFERENCE = /(?<!\{)\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}(?!\})/g;

/** The rules this file reads: a type and pairs (stored, engine and lint rules all have them). */
export interface ResolvableRule {
  ruleType: string;
  pairs: readonly unknown[];
}

/**
 * How a field reads its text, which says how a value is inserted:
 * - `text`: as is (header values, bodies, a user agent, a source's Equals or Contains value);
 * - `template`: text where `$1`, `${N}`, `$&`, `$$` mean captures (a destination, a Replace `to`): a
 *   value's `$` is written `$$`;
 * - `source`: a source value of any operator (a wildcard's stars, none in a `Matches` pattern);
 * - `from`: a Replace `from`, plain text or `/pattern/flags`.
 */
type Kind = 'text' | 'template' | 'source' | 'from';

interface Field {
  /** JSON Pointer into the rule. */
  path: string;
  kind: Kind;
  value: string;
  /** A source's operator (kind `source`). */
  operator?: string;
  /** A URL a request goes to or loads: a value may not give it a scheme of its own. */
  url?: boolean;
  /** Sent in a header line (a header's name or value, a user agent, a status text). */
  headerLine?: boolean;
  /** A header's name: resolved, an HTTP token (a written one may hold `{{NAME}}`). */
  headerName?: boolean;
}

/** What a field becomes: its text, and for a source its operator when that had to change. */
interface Written {
  value: string;
  operator?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const str = (value: unknown): value is string => typeof value === 'string';

/**
 * Each field of a pair a variable may stand in, with a setter that writes a copy. `rewrite` answers
 * the new text of a field, or undefined to keep it; answers the new pair, or the same one when no
 * field changed.
 */
function mapPair(
  ruleType: string,
  pair: unknown,
  at: string,
  rewrite: (field: Field) => Written | undefined,
): unknown {
  if (!isRecord(pair)) return pair;
  let out = pair;
  const set = (key: string, value: unknown) => {
    if (out === pair) out = { ...pair };
    out[key] = value;
  };
  const source = pair.source;
  if (isRecord(source)) {
    const next = mapSource(source, `${at}/source`, rewrite);
    if (next !== source) set('source', next);
  }
  const one = (key: string, kind: Kind, extra: Partial<Field> = {}) => {
    const value = pair[key];
    if (!str(value)) return;
    const written = rewrite({ path: `${at}/${key}`, kind, value, ...extra });
    if (written) set(key, written.value);
  };
  switch (ruleType) {
    case 'Redirect':
      one('destination', 'template', { url: pair.destinationType === 'url' });
      break;
    case 'Replace':
      one('from', 'from');
      one('to', 'template', { url: true });
      break;
    case 'UserAgent':
      one('userAgent', 'text', { headerLine: true });
      break;
    case 'Request':
      if (pair.type === 'static') one('value', 'text');
      break;
    case 'Response':
      if (pair.type === 'static') one('value', 'text');
      one('statusText', 'text', { headerLine: true });
      break;
    case 'QueryParam': {
      const next = mapList(pair.modifications, `${at}/modifications`, (item, path) =>
        mapKeys(item, path, [['value', 'text']], rewrite),
      );
      if (next !== pair.modifications) set('modifications', next);
      break;
    }
    case 'Headers': {
      const next = mapList(pair.modifications, `${at}/modifications`, (group, path) => {
        if (!isRecord(group)) return group;
        let copy = group;
        for (const target of ['Request', 'Response']) {
          const list = mapList(group[target], `${path}/${target}`, (item, itemPath) =>
            mapKeys(
              mapKeys(item, itemPath, [['header', 'text']], rewrite, { headerLine: true, headerName: true }),
              itemPath,
              [['value', 'text']],
              rewrite,
              { headerLine: true },
            ),
          );
          if (list !== group[target]) copy = { ...copy, [target]: list };
        }
        return copy;
      });
      if (next !== pair.modifications) set('modifications', next);
      break;
    }
    case 'Script': {
      const next = mapList(pair.scripts, `${at}/scripts`, (item, path) =>
        mapKeys(item, path, [['value', 'text']], rewrite, {
          url: isRecord(item) && item.type === 'url',
        }),
      );
      if (next !== pair.scripts) set('scripts', next);
      break;
    }
  }
  return out;
}

/** The source's value and its filters' page URL values, each by its operator. */
function mapSource(
  source: Record<string, unknown>,
  at: string,
  rewrite: (field: Field) => Written | undefined,
): Record<string, unknown> {
  const operand = (object: Record<string, unknown>, path: string) => {
    const { operator, value } = object;
    if (!str(value) || !str(operator) || operator === 'Matches') return object;
    const written = rewrite({ path: `${path}/value`, kind: 'source', value, operator });
    if (!written) return object;
    return { ...object, ...(written.operator ? { operator: written.operator } : {}), value: written.value };
  };
  let out = operand(source, at);
  const filters = mapList(source.filters, `${at}/filters`, (filter, path) => {
    if (!isRecord(filter) || !isRecord(filter.URL)) return filter;
    const url = operand(filter.URL, `${path}/URL`);
    return url === filter.URL ? filter : { ...filter, URL: url };
  });
  if (filters !== source.filters) out = { ...out, filters };
  return out;
}

function mapList(list: unknown, at: string, each: (item: unknown, path: string) => unknown): unknown {
  if (!Array.isArray(list)) return list;
  let out: unknown[] | undefined;
  list.forEach((item, index) => {
    const next = each(item, `${at}/${index}`);
    if (next !== item) {
      out ??= [...list];
      out[index] = next;
    }
  });
  return out ?? list;
}

function mapKeys(
  item: unknown,
  at: string,
  keys: [string, Kind][],
  rewrite: (field: Field) => Written | undefined,
  extra: Partial<Field> = {},
): unknown {
  if (!isRecord(item)) return item;
  let out = item;
  for (const [key, kind] of keys) {
    const value = item[key];
    if (!str(value)) continue;
    const written = rewrite({ path: `${at}/${key}`, kind, value, ...extra });
    if (written) out = { ...out, [key]: written.value };
  }
  return out;
}

/** Each field of `rule` a variable may stand in (`rewrite` answering undefined leaves the rule as is). */
function eachField(rule: ResolvableRule, visit: (field: Field) => void): void {
  rule.pairs.forEach((pair, index) => {
    mapPair(rule.ruleType, pair, `/pairs/${index}`, (field) => {
      visit(field);
      return undefined;
    });
  });
}

/** The names `text` refers to, in order, each once. */
function namesIn(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(REFERENCE), (match) => match[1] as string))];
}

/** Every `{{NAME}}` in the fields a variable may stand in, with where it is (for the lint). */
export function variableReferences(rule: ResolvableRule): { name: string; path: string }[] {
  const found: { name: string; path: string }[] = [];
  eachField(rule, ({ path, value }) => {
    for (const name of namesIn(value)) found.push({ name, path });
  });
  return found;
}

/** The names of the variables `rule` refers to that `values` has: those resolving it replaces. */
export function variablesUsed(rule: ResolvableRule, values: VariableValues): string[] {
  const used = new Set<string>();
  eachField(rule, ({ value }) => {
    for (const name of namesIn(value)) if (values.has(name)) used.add(name);
  });
  return [...used];
}

/** `text` with each reference to a variable of `values` replaced by `insert(value)`. */
function replaceIn(text: string, values: VariableValues, insert: (value: string) => string): string {
  return text.replace(REFERENCE, (whole, name: string) => {
    const value = values.get(name);
    return value === undefined ? whole : insert(value);
  });
}

const hasReference = (text: string, values: VariableValues) => namesIn(text).some((name) => values.has(name));

/**
 * One character as a regular expression reads it literally, in and out of a class, with and without
 * `u`: letters and digits as they are, other ASCII and the rest of the first plane as `\x`/`\u`
 * escapes (so that a `-` never makes a range, a digit in braces never a count).
 */
function literalChar(char: string, unicode: boolean): string {
  if (/[A-Za-z0-9_]/.test(char)) return char;
  const code = char.codePointAt(0) as number;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return unicode ? `\\u{${code.toString(16)}}` : char;
}

const literalText = (text: string, unicode: boolean) =>
  Array.from(text, (char) => literalChar(char, unicode)).join('');

/**
 * A `/pattern/flags` with the references in its pattern replaced by the values as literal text: a
 * group of escaped characters outside a class (a quantifier after it repeats the whole value), the
 * escaped characters inside one. A reference behind a backslash is an escaped brace, not a reference.
 */
function resolvePattern(literal: string, values: VariableValues): string {
  const { pattern, flags } = parsePattern(literal);
  const unicode = /[uv]/.test(flags);
  let out = '';
  let inClass = 0;
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i] as string;
    if (c === '\\') {
      out += pattern.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '{' && pattern[i + 1] === '{' && pattern[i - 1] !== '{') {
      const match = /^\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}(?!\})/.exec(pattern.slice(i));
      const value = match ? values.get(match[1] as string) : undefined;
      if (match && value !== undefined) {
        const escaped = literalText(value, unicode);
        out += inClass > 0 ? escaped : `(?:${escaped})`;
        i += match[0].length;
        continue;
      }
    }
    // `v` nests classes; without it the first `]` ends one.
    if (c === '[' && (inClass === 0 || flags.includes('v'))) inClass++;
    else if (c === ']' && inClass > 0) inClass--;
    out += c;
    i++;
  }
  return `/${out}/${flags}`;
}

/**
 * A source value. Equals and Contains compare text: the value as is. A wildcard's own stars stay
 * wildcards while a value's stars must be literal, which wildcard text cannot say: such a source is
 * written as the anchored regular expression the engine runs for a wildcard (match.ts), with the same
 * captures, the value's characters escaped.
 */
function resolveSource(value: string, operator: string, values: VariableValues): Written {
  const inserted: string[] = [];
  const plain = replaceIn(value, values, (v) => {
    inserted.push(v);
    return v;
  });
  if (operator !== 'Wildcard_Matches' || !inserted.some((v) => v.includes('*'))) return { value: plain };
  let regex = '';
  let last = 0;
  const written = (text: string) =>
    text
      .split('*')
      .map((part) => literalText(part, false))
      .join('(.*?)');
  for (const match of value.matchAll(REFERENCE)) {
    const v = values.get(match[1] as string);
    if (v === undefined) continue;
    regex += written(value.slice(last, match.index)) + literalText(v, false);
    last = (match.index as number) + match[0].length;
  }
  regex += written(value.slice(last));
  return { value: `/^${regex}$/s`, operator: 'Matches' };
}

/** A Replace `from`: a pattern keeps values literal; plain text stays plain text (a value ending up as `/…/` is not a pattern). */
function resolveFrom(from: string, values: VariableValues): string {
  if (isPatternLiteral(from)) return resolvePattern(from, values);
  const plain = replaceIn(from, values, (v) => v);
  return isPatternLiteral(plain) ? `/${literalText(plain, false)}/` : plain;
}

function resolveField(field: Field, values: VariableValues): Written | undefined {
  if (!hasReference(field.value, values)) return undefined;
  switch (field.kind) {
    case 'template':
      return { value: replaceIn(field.value, values, (v) => v.replaceAll('$', '$$$$')) };
    case 'source':
      return resolveSource(field.value, field.operator ?? 'Equals', values);
    case 'from':
      return { value: resolveFrom(field.value, values) };
    default:
      return { value: replaceIn(field.value, values, (v) => v) };
  }
}

/**
 * `rule` with every reference to a variable of `values` replaced, in the fields decision 20 lists;
 * references to other names stay as written. The same rule when nothing is replaced; never mutated.
 */
export function resolveRule<R extends ResolvableRule>(rule: R, values: VariableValues): R {
  if (values.size === 0) return rule;
  let pairs: unknown[] | undefined;
  rule.pairs.forEach((pair, index) => {
    const next = mapPair(rule.ruleType, pair, `/pairs/${index}`, (field) => resolveField(field, values));
    if (next !== pair) {
      pairs ??= [...rule.pairs];
      pairs[index] = next;
    }
  });
  return pairs ? { ...rule, pairs } : rule;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** An HTTP token: what a header name must be once resolved. */
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const WEB_SCHEMES = new Set(['http', 'https', 'ws', 'wss']);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a header line cannot hold.
const LINE_BREAK = /[\r\n\u0000]/;

/**
 * What resolving added that a written rule may not have, beyond what the rule types check: a value
 * that empties a source (it would match every request), gives a URL a scheme the rule did not write
 * (other than http(s) or ws(s)), or breaks a header line. Messages never hold a value.
 */
function resolvedProblems(written: ResolvableRule, resolved: ResolvableRule): ErrorDetail[] {
  const before = new Map<string, Field>();
  eachField(written, (field) => before.set(field.path, field));
  const problems: ErrorDetail[] = [];
  eachField(resolved, (field) => {
    // A header name still holding a reference (a variable this environment lacks) is no name at all.
    if (field.headerName && !HTTP_TOKEN.test(field.value)) {
      problems.push({
        path: field.path,
        message: 'is not an HTTP header name in this environment: a {{NAME}} in it has no value here',
      });
    }
    const was = before.get(field.path);
    if (!was || was.value === field.value) return;
    if (field.kind === 'source' && field.value === '' && was.value !== '') {
      problems.push({
        path: field.path,
        message: 'is empty in this environment, and an empty value would match every request',
      });
    }
    if (field.url) {
      const scheme = SCHEME.exec(field.value)?.[1]?.toLowerCase();
      const writtenScheme = SCHEME.exec(was.value)?.[1]?.toLowerCase();
      if (scheme && scheme !== writtenScheme && !WEB_SCHEMES.has(scheme)) {
        problems.push({
          path: field.path,
          message: 'a variable gives this URL a scheme other than http, https, ws or wss',
        });
      }
    }
    if (field.headerLine && LINE_BREAK.test(field.value) && !LINE_BREAK.test(was.value)) {
      problems.push({
        path: field.path,
        message: 'a variable puts a line break or NUL in this header line',
      });
    }
  });
  return problems;
}

/** A rule in one environment: resolved, the variables it used, and why it cannot act there (if so). */
export interface ResolvedRule<R> {
  rule: R;
  used: string[];
  /** Empty when the resolved rule passes every check a written rule passes. */
  problems: ErrorDetail[];
}

/**
 * `rule` in the environment of `values`, checked again as a written rule is checked (a header name
 * must still be a name, a pattern must still compile …) when a variable was replaced. A rule with
 * problems does not act in that environment; their messages hold no value (a value may be secret).
 */
export function resolveInEnvironment<R extends ResolvableRule>(
  rule: R,
  values: VariableValues,
  check: PairsCheck,
): ResolvedRule<R> {
  const used = variablesUsed(rule, values);
  if (used.length === 0) {
    // Nothing replaced: only a header name left with a reference can be wrong (it is no name).
    const problems = rule.ruleType === 'Headers' ? resolvedProblems(rule, rule) : [];
    return { rule, used, problems };
  }
  const resolved = resolveRule(rule, values);
  const problems = resolvedProblems(rule, resolved);
  problems.push(...check(rule.ruleType, [...resolved.pairs]));
  return { rule: resolved, used, problems: dedupe(problems) };
}

function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.path}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The problems of a rule in one environment as one sentence a person can read (no value in it). */
export function describeProblems(problems: readonly ErrorDetail[]): string {
  return `in this environment its variables make it invalid: ${problems
    .map((p) => `${p.path} ${p.message}`)
    .join('; ')}`;
}

/**
 * A workspace's rules in one environment, in their order: each resolved, with the problems that keep
 * it from acting there (`environmentProblems`, which the evaluation and the browser rules read), and
 * the variables each used, by rule id.
 */
export function inEnvironment<R extends ResolvableRule & { id: string }>(
  rules: readonly R[],
  values: VariableValues,
  check: PairsCheck,
): { rules: (R & { environmentProblems?: ErrorDetail[] })[]; used: Map<string, string[]> } {
  const used = new Map<string, string[]>();
  const resolved = rules.map((rule) => {
    const result = resolveInEnvironment(rule, values, check);
    if (result.used.length > 0) used.set(rule.id, result.used);
    else if (result.problems.length === 0) return rule;
    return result.problems.length > 0
      ? { ...result.rule, environmentProblems: result.problems }
      : result.rule;
  });
  return { rules: resolved, used };
}

/**
 * `text` (a finding's message, a check's detail) with each of `hidden`'s values shown as its reference
 * instead: as written, as a URL holds it (encoded, lower-cased), as a JSON string holds it, and cut
 * short where a detail cuts long text (`…`). For secrets: what explains a rule never shows one.
 */
export function hideValues(text: string, hidden: readonly (readonly [string, string])[]): string {
  let out = text;
  for (const [name, value] of hidden) {
    if (value === '') continue;
    const forms = new Set([
      value,
      encodeURIComponent(value),
      encodeURI(value),
      JSON.stringify(value).slice(1, -1),
    ]);
    for (const form of [...forms]) forms.add(form.toLowerCase());
    for (const form of [...forms].sort((a, b) => b.length - a.length))
      out = out.replaceAll(form, `{{${name}}}`);
    // A long text cut short ends with part of the value, then `…`.
    for (let n = value.length - 1; n >= 4 && out.includes('…'); n--) {
      out = out.replaceAll(`${value.slice(0, n)}…`, `{{${name}}}…`);
    }
  }
  return out;
}
