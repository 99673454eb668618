// Does a pair's source match? The four operators on the URL component its key names, then every
// filter; each step explained as a check a person can read. Sources are compiled once per rule.
import { compileRegex, findMatch, requiredLiteral } from './regex.js';
import { type EngineRequest, urlComponent } from './request.js';
import type { Check } from './types.js';

type Key = 'Url' | 'host' | 'path';

interface Operand {
  operator: string;
  value: string;
}

/** One operator with its value, ready to test text: passed or not, with the captures it took. */
interface Matcher {
  test(text: string): string[] | undefined;
  /** Says what was compared; `passed` picks the sentence. */
  describe(subject: string, passed: boolean): string;
  /** Text every match must contain (for pre-filtering), when one can be told. */
  literal: string | undefined;
  /** The regular expression this matcher runs, when it runs one (to try many of them in one pass). */
  pattern?: { source: string; flags: string };
}

const MAX_SHOWN = 120;
/**
 * Text in a detail: quoted, and cut when long (URLs can be kilobytes). Shown as written, not as a JSON
 * string: a regular expression `^https?:\/\/` reads as the person typed it, not with each backslash
 * doubled. Only control characters are escaped, so that a detail stays one line.
 */
export function shown(text: string): string {
  const cut = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is escaped.
  return `"${cut.replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1))}"`;
}

function wildcardPattern(value: string) {
  const parts = value.split('*').map((part) => part.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'));
  // Lazy stars: each capture is the shortest that lets the rest match, leftmost first.
  return { source: `^${parts.join('(.*?)')}$`, flags: 's' };
}

function longestPart(value: string): string {
  return value.split('*').reduce((a, b) => (b.length > a.length ? b : a), '');
}

/** Requestly's extension and its browser rules read an empty value as "every request", whatever the operator. */
const EVERYTHING: Matcher = {
  test: () => [],
  describe: (subject) => `${subject}: an empty value matches every request`,
  literal: undefined,
};

export function compileMatcher({ operator, value }: Operand): Matcher {
  if (value === '') return EVERYTHING;
  switch (operator) {
    case 'Equals':
      return {
        test: (text) => (text === value ? [] : undefined),
        describe: (subject, passed) => `${subject} ${passed ? 'equals' : 'does not equal'} ${shown(value)}`,
        literal: value,
      };
    case 'Contains':
      return {
        test: (text) => (text.includes(value) ? [] : undefined),
        describe: (subject, passed) =>
          `${subject} ${passed ? 'contains' : 'does not contain'} ${shown(value)}`,
        literal: value,
      };
    case 'Wildcard_Matches': {
      const pattern = wildcardPattern(value);
      // Linear in the wildcard's text (limited by the schema), so not held to a pattern's program limit.
      const compiled = compileRegex(`/${pattern.source}/${pattern.flags}`, Number.POSITIVE_INFINITY);
      return {
        test: (text) => (compiled.ok ? findMatch(compiled.regex, text) : undefined),
        describe: (subject, passed) =>
          `${subject} ${passed ? 'matches' : 'does not match'} the wildcard ${shown(value)}`,
        literal: longestPart(value),
        ...(compiled.ok ? { pattern: { source: compiled.source, flags: compiled.flags } } : {}),
      };
    }
    default: {
      const compiled = compileRegex(value);
      if (!compiled.ok) {
        return {
          test: () => undefined,
          describe: () =>
            `the pattern ${shown(value)} cannot be used, so it never matches: ${compiled.problem}`,
          literal: undefined,
        };
      }
      return {
        test: (text) => findMatch(compiled.regex, text),
        describe: (subject, passed) =>
          `${subject} ${passed ? 'matches' : 'does not match'} the regular expression ${shown(value)}`,
        literal: requiredLiteral(value),
        // The RE2 text run (translated from JavaScript's), so that an alternation of many runs the same.
        pattern: { source: compiled.source, flags: compiled.flags },
      };
    }
  }
}

interface Filter {
  requestMethod?: string[];
  resourceType?: string[];
  URL?: Operand;
  pageDomains?: string[];
  requestPayload?: { key: string; value: string; operator?: string };
}

type FilterCheck = (request: EngineRequest) => { passed: boolean; detail: string };

const list = (values: string[]) => values.join(', ');

// The last body parsed: every requestPayload filter of a trace reads the same body, which may be a
// megabyte; parsing it once per pair took 30 s for one request. One entry bounds what is held.
let lastBody: string | undefined;
let lastParsed: { value: unknown } | undefined;

/** The body parsed as JSON (undefined when it is not JSON), parsed once however many filters ask. */
function parsedBody(body: string): { value: unknown } | undefined {
  if (body !== lastBody) {
    lastBody = body;
    try {
      lastParsed = { value: JSON.parse(body) };
    } catch {
      lastParsed = undefined;
    }
  }
  return lastParsed;
}

function payloadLeaf(body: string | undefined, path: string): { leaf?: string; problem?: string } {
  if (body === undefined) return { problem: 'the request has no body' };
  const parsed = parsedBody(body);
  if (!parsed) return { problem: 'the body is not JSON' };
  let value = parsed.value;
  for (const step of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) {
      return { problem: `the body has no field ${path}` };
    }
    value = (value as Record<string, unknown>)[step];
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return { leaf: String(value) };
  }
  return { problem: `body field ${path} is not a string, number or boolean` };
}

/** Each field of one filter object as a check, in the order the fields are written. */
function compileFilter(filter: Filter, at: string): { name: string; run: FilterCheck }[] {
  const checks: { name: string; run: FilterCheck }[] = [];
  const { requestMethod, resourceType, URL: pageUrl, pageDomains, requestPayload } = filter;
  if (requestMethod) {
    checks.push({
      name: `${at}.requestMethod`,
      run: ({ method }) => {
        const passed = requestMethod.includes(method);
        return { passed, detail: `method ${method} is ${passed ? '' : 'not '}one of ${list(requestMethod)}` };
      },
    });
  }
  if (resourceType) {
    checks.push({
      name: `${at}.resourceType`,
      run: ({ resourceType: type }) => {
        if (type === undefined) {
          return {
            passed: false,
            detail: `the resource type is unknown, so not one of ${list(resourceType)}`,
          };
        }
        const passed = resourceType.includes(type);
        return {
          passed,
          detail: `resource type ${type} is ${passed ? '' : 'not '}one of ${list(resourceType)}`,
        };
      },
    });
  }
  if (pageUrl) {
    const matcher = compileMatcher(pageUrl);
    checks.push({
      name: `${at}.URL`,
      run: (request) => {
        if (request.pageUrl === undefined) return { passed: false, detail: 'the page URL is unknown' };
        const passed = matcher.test(request.pageUrl) !== undefined;
        return { passed, detail: matcher.describe(`page URL ${shown(request.pageUrl)}`, passed) };
      },
    });
  }
  if (pageDomains) {
    // As stored they are already so; rules evaluated as written (a draft) are read the same way.
    const domains = pageDomains.map((domain) => domain.toLowerCase().replace(/^\./, ''));
    checks.push({
      name: `${at}.pageDomains`,
      run: ({ pageHost }) => {
        if (pageHost === undefined) return { passed: false, detail: 'the page is unknown' };
        const passed = domains.some((d) => pageHost === d || pageHost.endsWith(`.${d}`));
        return {
          passed,
          detail: `page host ${shown(pageHost)} is ${passed ? '' : 'not '}one of ${list(domains)} or a subdomain of one`,
        };
      },
    });
  }
  if (requestPayload) {
    const { key, value, operator = 'Equals' } = requestPayload;
    checks.push({
      name: `${at}.requestPayload`,
      run: ({ body }) => {
        const { leaf, problem } = payloadLeaf(body, key);
        if (leaf === undefined) return { passed: false, detail: problem as string };
        const passed = operator === 'Contains' ? leaf.includes(value) : leaf === value;
        const verb = operator === 'Contains' ? 'contains' : 'equals';
        return {
          passed,
          detail: `body field ${key} is ${shown(leaf)}, which ${passed ? verb : `does not ${verb.replace(/s$/, '')}`} ${shown(value)}`,
        };
      },
    });
  }
  return checks;
}

export interface CompiledSource {
  key: Key;
  matcher: Matcher;
  filters: { name: string; run: FilterCheck }[];
}

/**
 * Matchers shared by the rules of one set: rules often repeat an operator and value (the same pattern
 * in twenty rules), and each such matcher runs once per text however many rules ask.
 */
export type MatcherCache = Map<string, Matcher>;

function remembering(matcher: Matcher): Matcher {
  let lastText: string | undefined;
  let lastResult: string[] | undefined;
  return {
    ...matcher,
    test(text) {
      if (text !== lastText) {
        lastResult = matcher.test(text);
        lastText = text;
      }
      return lastResult;
    },
  };
}

function sharedMatcher(operand: Operand, cache: MatcherCache | undefined): Matcher {
  if (!cache) return compileMatcher(operand);
  const id = `${operand.operator}\u0000${operand.value}`;
  let matcher = cache.get(id);
  if (!matcher) {
    matcher = remembering(compileMatcher(operand));
    cache.set(id, matcher);
  }
  return matcher;
}

export function compileSource(source: Record<string, unknown>, cache?: MatcherCache): CompiledSource {
  const filters = (source.filters as Filter[] | undefined) ?? [];
  return {
    key: source.key as Key,
    matcher: sharedMatcher(source as unknown as Operand, cache),
    filters: filters.flatMap((filter, index) => compileFilter(filter, `filters[${index}]`)),
  };
}

export interface SourceResult {
  matched: boolean;
  captures: string[];
  checks: Check[];
}

/**
 * The source against the request at `url` (the URL as earlier rules left it). Checks stop at the
 * first that fails; details are written only when `explain` (the fast path needs the verdict alone).
 */
export function matchSource(
  source: CompiledSource,
  url: string,
  request: EngineRequest,
  explain: boolean,
): SourceResult {
  const checks: Check[] = [];
  const text = urlComponent(url, source.key);
  const captures = source.matcher.test(text);
  if (explain) {
    const detail = source.matcher.describe(`${source.key} ${shown(text)}`, captures !== undefined);
    checks.push({ check: 'source', passed: captures !== undefined, detail });
  }
  if (captures === undefined) return { matched: false, captures: [], checks };
  for (const filter of source.filters) {
    const { passed, detail } = filter.run(request);
    if (explain) checks.push({ check: filter.name, passed, detail });
    if (!passed) return { matched: false, captures: [], checks };
  }
  return { matched: true, captures, checks };
}
