// The request the engine evaluates: an absolute URL parsed once as a browser would send it, and what
// the filters look at (method, resource type, the page that sent it, headers, body).
import type { ErrorDetail } from '../errors.js';
import type { ResourceType } from '../model/rule-types/source.js';

/** A request as a caller describes it (POST /v1/trace, a `rulekeeper test` case, the proxy). */
export interface RequestInput {
  url: string;
  method?: string;
  resourceType?: ResourceType;
  pageUrl?: string;
  headers?: Record<string, string | string[]>;
  body?: string;
}

/** Header values by lower-case name, in the order they were set. */
export type HeaderMap = Map<string, string[]>;

export interface EngineRequest {
  /** The serialised WHATWG URL. */
  url: string;
  method: string;
  resourceType: ResourceType | undefined;
  /** The page that sent the request, serialised like `url`. */
  pageUrl: string | undefined;
  /** The page's host name, lower-case, without a port. */
  pageHost: string | undefined;
  headers: HeaderMap;
  body: string | undefined;
}

const SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

/**
 * `text` parsed as a URL (against `base`), or undefined. `new URL`, never `URL.canParse`: Node 20's
 * canParse turns false for Latin-1 hosts (`münchen.de`) once the code is optimised, while `new URL`
 * parses them.
 */
export function tryUrl(text: string, base?: string): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

/** The URL parsed, when it is absolute and of a scheme the engine handles. */
export function parseUrl(url: string): URL | undefined {
  const parsed = tryUrl(url);
  return parsed && SCHEMES.has(parsed.protocol) ? parsed : undefined;
}

/** The request model of `input`, or the problems with it (paths relative to the request object). */
export function toEngineRequest(input: RequestInput): EngineRequest | { details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const url = parseUrl(input.url);
  if (!url) details.push({ path: '/url', message: 'must be an absolute http, https, ws or wss URL' });
  // Serialised like the URL, so that a URL filter compares it as a browser would send it.
  const page = input.pageUrl !== undefined ? tryUrl(input.pageUrl) : undefined;
  if (input.pageUrl !== undefined && !page)
    details.push({ path: '/pageUrl', message: 'must be an absolute URL' });
  if (!url || details.length > 0) return { details };
  const headers: HeaderMap = new Map();
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    headers.set(name.toLowerCase(), [...(headers.get(name.toLowerCase()) ?? []), ...values]);
  }
  return {
    url: url.href,
    method: (input.method ?? 'GET').toUpperCase(),
    resourceType: input.resourceType,
    pageUrl: page?.href,
    pageHost: page?.hostname.toLowerCase(),
    headers,
    body: input.body,
  };
}

/** The parts of a URL a source's `key` compares: the whole URL, host (with a non-default port), path. */
/** The part of `url` each key names, each worked out once however often it is asked for. */
export function urlParts(url: string): (key: 'Url' | 'host' | 'path') => string {
  const parts = new Map<string, string>();
  return (key) => {
    let part = parts.get(key);
    if (part === undefined) {
      part = urlComponent(url, key);
      parts.set(key, part);
    }
    return part;
  };
}

export function urlComponent(url: string, key: 'Url' | 'host' | 'path'): string {
  if (key === 'Url') return url;
  const parsed = new URL(url);
  return key === 'host' ? parsed.host : parsed.pathname;
}
