// The helpers the rule types' effects share: URL changes, request header changes, query parameter
// changes, redirects to files, the document check of scripts.

import type { EngineRequest, HeaderMap } from '../request.js';
import { parseUrl, tryUrl } from '../request.js';
import type { Check, EvaluationState } from '../types.js';

/**
 * `fn` of two texts, with its last answer kept: rules that repeat one destination (copies of a rule,
 * evaluated one after another) ask the same and parse URLs once, not once each.
 */
function keepingLast<T>(fn: (a: string, b: string) => T): (a: string, b: string) => T {
  let last: { a: string; b: string; answer: T } | undefined;
  return (a, b) => {
    if (last?.a !== a || last.b !== b) last = { a, b, answer: fn(a, b) };
    return last.answer;
  };
}

/** `next` resolved against `base`, serialised, when it is a URL the engine can send the request to. */
const sendableHref = keepingLast((next: string, base: string): string | undefined => {
  const absolute = tryUrl(next, base);
  return absolute ? parseUrl(absolute.href)?.href : undefined;
});

/** Moves the request to `next` (resolved against the current URL); a URL that cannot be sent is not applied. */
export function changeUrl(state: EvaluationState, next: string): Record<string, unknown> {
  const href = sendableHref(next, state.url);
  if (href === undefined)
    return { error: `the new URL ${JSON.stringify(next)} is not an absolute http(s) or ws(s) URL` };
  if (href === state.url) return { url: state.url, unchanged: 'the new URL is the URL requested' };
  state.url = href;
  return { url: href };
}

export interface HeaderModification {
  header: string;
  type: string;
  value?: string;
}

/**
 * Add adds a value; Modify replaces the values of a present header (nothing otherwise); Remove removes
 * it. Answers whether the headers changed.
 */
export function modifyHeader(headers: HeaderMap, { header, type, value }: HeaderModification): boolean {
  const name = header.toLowerCase();
  if (type === 'Add') {
    headers.set(name, [...(headers.get(name) ?? []), value ?? '']);
    return true;
  }
  if (!headers.has(name)) return false;
  if (type === 'Remove') headers.delete(name);
  else headers.set(name, [value ?? '']);
  return true;
}

export interface QueryModification {
  param?: string;
  type: string;
  value?: string;
  actionWhenParamExists?: string;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * The URL with the modifications applied in order. Parameters are handled as written in the query,
 * so that the ones a modification does not touch keep their exact encoding.
 */
export function modifyQuery(url: string, modifications: readonly QueryModification[]): string {
  const parsed = new URL(url);
  const sent = parsed.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((raw) => ({ raw, name: decoded(raw.split('=')[0] as string) }));
  let params = [...sent];
  for (const { param = '', type, value = '', actionWhenParamExists } of modifications) {
    if (type === 'Remove All') params = [];
    else if (type === 'Remove') params = params.filter((p) => p.name !== param);
    else {
      const present = params.findIndex((p) => p.name === param);
      if (present >= 0 && actionWhenParamExists === 'Ignore') continue;
      const entry = { raw: `${encodeURIComponent(param)}=${encodeURIComponent(value)}`, name: param };
      if (present < 0) params.push(entry);
      else params = params.flatMap((p, i) => (p.name !== param ? [p] : i === present ? [entry] : []));
    }
  }
  const query = params.map((p) => p.raw).join('&');
  // Nothing changed (a Remove of an absent parameter, an Add ignored): the URL as it was, not
  // rewritten into another spelling of the same query (`?` or `&&` dropped), which would be a redirect.
  if (query === sent.map((p) => p.raw).join('&')) return url;
  parsed.search = query === '' ? '' : `?${query}`;
  return parsed.href;
}

/**
 * A local file as a file: URL, whatever its name: a path set on an empty file: URL is encoded as
 * needed (spaces, brackets, Windows back-slashes), where `file://NAME` would read NAME as a host
 * and throw on a space.
 */
function fileUrl(destination: string): string {
  const written = destination.startsWith('file:') ? tryUrl(destination) : undefined;
  if (written) return written.href;
  const url = new URL('file:///');
  url.pathname = destination;
  return url.href;
}

const isWebUrl = keepingLast((destination: string) => parseUrl(destination) !== undefined);

/**
 * A Redirect's destination: a URL (resolved against the current one), or for `map_local` a local file,
 * as a file: URL (served only by a runtime allowed to read files). URL changes stop after it.
 */
export function redirectTo(
  state: EvaluationState,
  type: string,
  destination: string,
): Record<string, unknown> {
  if (type === 'url' || isWebUrl(destination, '')) return changeUrl(state, destination);
  const file = fileUrl(destination);
  state.url = file;
  return { url: file, localFile: destination };
}

const DOCUMENT_TYPES = new Set(['main_frame', 'sub_frame']);

/** Scripts go into HTML documents: a main or sub frame, or a request whose type is unknown. */
export function isDocument({ resourceType }: EngineRequest): Check {
  const passed = resourceType === undefined || DOCUMENT_TYPES.has(resourceType);
  const detail = passed
    ? `a document (${resourceType ?? 'type unknown'}): scripts can be injected`
    : `a ${resourceType} request is not an HTML document: scripts go only into main_frame or sub_frame`;
  return { check: 'document', passed, detail };
}
