// What the lint knows about sources: which match every request, and whether every request one source
// matches is also matched by another. Exact where the operators allow it (Equals, Contains, wildcards,
// a regular expression against a fixed text); otherwise by sampling texts the narrower source matches,
// and then the answer says so.
import { compileMatcher as compileAnew } from '../match.js';
import { requiredLiteral } from '../regex.js';
import { urlComponent } from '../request.js';
import { sampleTexts } from './samples.js';

export interface Operand {
  operator: string;
  value: string;
}

interface Filter {
  requestMethod?: string[];
  resourceType?: string[];
  URL?: Operand;
  pageDomains?: string[];
  requestPayload?: { key: string; value: string; operator?: string };
}

export interface Source extends Operand {
  key: string;
  filters?: Filter[];
}

/** How a question was decided: exactly, or by trying generated texts. */
export type Decided = 'exact' | 'sampled';

// Matchers and samples kept per text: a lint compares every rule with many others.
const MAX_KEPT = 10_000;
const matchers = new Map<string, ReturnType<typeof compileAnew>>();
const sampled = new Map<string, string[]>();

function kept<T>(map: Map<string, T>, key: string, make: () => T): T {
  const found = map.get(key);
  if (found !== undefined) return found;
  if (map.size >= MAX_KEPT) map.clear();
  const made = make();
  map.set(key, made);
  return made;
}

const compileMatcher = (operand: Operand) =>
  kept(matchers, `${operand.operator}\0${operand.value}`, () => compileAnew(operand));

/** http(s) URLs of every shape traffic has: a source that matches all of them matches every request. */
const PROBE_URLS = [
  'https://example.com/',
  'http://localhost:3000/',
  'https://api.example.co.uk:8443/v1/users?id=7&x=y#top',
  'http://10.0.0.1/index.html',
  'https://xn--caf-dma.fr/menu',
  'https://sub.domain.test/path/to/file.js?v=123',
  'http://[::1]:8080/',
  'https://x.io/?q=%20a',
];
const probes = (key: string) => PROBE_URLS.map((url) => urlComponent(url, key as 'Url'));

/** The number of texts a sampled answer tried, for messages. */
export const SAMPLES = 48;

/** Whether the operator and value (on the key) match every URL; an empty value always does. */
export function textMatchesEverything(key: string, { operator, value }: Operand): boolean {
  if (value === '') return true;
  const matcher = compileMatcher({ operator, value });
  return probes(key).every((text) => matcher.test(text) !== undefined);
}

/** A source with no filter that matches every URL: it acts on every request. */
export function matchesEverything(source: Source): boolean {
  return (source.filters ?? []).length === 0 && textMatchesEverything(source.key, source);
}

const worst = (a: Decided | undefined, b: Decided | undefined): Decided | undefined =>
  a === undefined || b === undefined ? undefined : a === 'sampled' || b === 'sampled' ? 'sampled' : 'exact';

/** A wildcard's stars as a character no literal holds: what the text is whatever the stars stand for. */
const SENTINEL = '\u0000';
const withSentinels = (wildcard: string) => wildcard.replaceAll('*', SENTINEL);

/** Every text `narrow` matches is matched by `wide` (same key, or `wide` empty). */
export function textCovers(wide: Source, narrow: Source): Decided | undefined {
  if (wide.value === '') return 'exact';
  if (narrow.value === '') return textMatchesEverything(wide.key, wide) ? 'sampled' : undefined;
  if (wide.key !== narrow.key) return undefined;
  const matcher = compileMatcher(wide);
  const n = narrow.value;
  const fixed = narrow.operator === 'Equals' || (narrow.operator === 'Wildcard_Matches' && !n.includes('*'));
  if (fixed) return matcher.test(n) !== undefined ? 'exact' : undefined;
  switch (wide.operator) {
    case 'Equals':
      return undefined;
    case 'Contains':
      if (narrow.operator === 'Contains') return n.includes(wide.value) ? 'exact' : undefined;
      if (narrow.operator === 'Wildcard_Matches')
        return withSentinels(n).includes(wide.value) ? 'exact' : undefined;
      if (requiredLiteral(n)?.includes(wide.value)) return 'exact';
      break;
    case 'Wildcard_Matches': {
      const open = wide.value.startsWith('*') && wide.value.endsWith('*');
      if (narrow.operator === 'Contains') return open && matcher.test(n) ? 'exact' : undefined;
      if (narrow.operator === 'Wildcard_Matches') return matcher.test(withSentinels(n)) ? 'exact' : undefined;
      break;
    }
  }
  return sampledCover(wide, narrow);
}

function sampledCover(wide: Source, narrow: Source): Decided | undefined {
  const samples = kept(sampled, `${narrow.key}\0${narrow.operator}\0${narrow.value}`, () =>
    sampleTexts(narrow.key, narrow.operator, narrow.value, SAMPLES),
  );
  if (samples.length === 0) return undefined;
  const matcher = compileMatcher(wide);
  return samples.every((text) => matcher.test(text) !== undefined) ? 'sampled' : undefined;
}

const within = (narrow: string[] | undefined, wide: string[]) =>
  narrow?.every((item) => wide.includes(item)) === true;

/** Every request passing `narrow` (one filter object of the narrower source) passes `wide`. */
function filterImplied(wide: Filter, narrow: Filter): Decided | undefined {
  let decided: Decided | undefined = 'exact';
  if (wide.requestMethod && !within(narrow.requestMethod, wide.requestMethod)) return undefined;
  if (wide.resourceType && !within(narrow.resourceType, wide.resourceType)) return undefined;
  if (wide.pageDomains) {
    const domains = wide.pageDomains.map((d) => d.toLowerCase());
    const inside = (d: string) => domains.some((w) => d === w || d.endsWith(`.${w}`));
    if (!narrow.pageDomains?.every((d) => inside(d.toLowerCase()))) return undefined;
  }
  if (wide.URL) {
    if (!narrow.URL) return undefined;
    decided = textCovers({ key: 'Url', ...wide.URL }, { key: 'Url', ...narrow.URL });
  }
  if (wide.requestPayload) {
    const same = (p?: Filter['requestPayload']) =>
      JSON.stringify(p && [p.key, p.value, p.operator ?? 'Equals']);
    if (same(wide.requestPayload) !== same(narrow.requestPayload)) return undefined;
  }
  return decided;
}

/** Every filter object of `wide` is implied by one of `narrow`'s (all of which a request passes). */
function filtersImplied(wide: Filter[] = [], narrow: Filter[] = []): Decided | undefined {
  let decided: Decided | undefined = 'exact';
  for (const filter of wide) {
    const found = narrow.map((other) => filterImplied(filter, other)).find((d) => d !== undefined);
    decided = worst(decided, found);
    if (decided === undefined) return undefined;
  }
  return decided;
}

/** Every request `narrow` matches is matched by `wide`: how that was decided, or undefined. */
export function covers(wide: Source, narrow: Source): Decided | undefined {
  const filters = filtersImplied(wide.filters, narrow.filters);
  return filters && worst(filters, textCovers(wide, narrow));
}
