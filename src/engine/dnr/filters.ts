// A source's filters as the other fields of a Chrome rule's condition. Every filter object must pass,
// so lists are intersected. Without a resourceType filter every type is listed: Chrome's rules leave
// out main_frame when no type is given, where the engine matches any request.
import { DNR_RESOURCE_TYPES } from '../../model/browser-rule.js';
import { canonicalDomain } from '../../model/rule-types/source.js';

interface Filter {
  requestMethod?: string[];
  resourceType?: string[];
  URL?: unknown;
  pageDomains?: string[];
  requestPayload?: unknown;
}

export interface FilterCondition {
  resourceTypes: string[];
  requestMethods?: string[];
  initiatorDomains?: string[];
}

export type FiltersTranslation =
  | { kind: 'condition'; condition: FilterCondition }
  | { kind: 'never'; reason: string }
  | { kind: 'refused'; reason: string };

/** Shared by every rule without a type filter (the answer is JSON: one array serves them all). */
const EVERY_TYPE: string[] = [...DNR_RESOURCE_TYPES];

const intersect = (a: string[] | undefined, b: string[]) =>
  a ? a.filter((x) => b.includes(x)) : [...new Set(b)];

/** A page domain as Chrome wants it: canonical, in punycode. */
function asciiDomain(domain: string): string | undefined {
  try {
    return new URL(`http://${canonicalDomain(domain)}/`).hostname;
  } catch {
    return undefined;
  }
}

export function filtersCondition(filters: Filter[] | undefined): FiltersTranslation {
  let methods: string[] | undefined;
  let types: string[] | undefined;
  let domains: string[] | undefined;
  for (const filter of filters ?? []) {
    if (filter.requestPayload !== undefined)
      return {
        kind: 'refused',
        reason: "Chrome's rules cannot read a request's body (requestPayload filter)",
      };
    if (filter.URL !== undefined)
      return {
        kind: 'refused',
        reason:
          "Chrome's rules know the page's domain, not its URL (URL filter; pageDomains can be expressed)",
      };
    if (filter.requestMethod)
      methods = intersect(
        methods,
        filter.requestMethod.map((m) => m.toLowerCase()),
      );
    if (filter.resourceType) types = intersect(types, filter.resourceType);
    if (filter.pageDomains) {
      if (domains)
        return { kind: 'refused', reason: 'several pageDomains filters in one source cannot be combined' };
      const ascii = filter.pageDomains.map(asciiDomain);
      if (ascii.some((d) => d === undefined))
        return { kind: 'never', reason: 'a page domain is not a host name, so no page matches it' };
      domains = [...new Set(ascii as string[])];
    }
  }
  if (methods?.length === 0) return { kind: 'never', reason: 'the filters allow no request method' };
  if (types?.length === 0) return { kind: 'never', reason: 'the filters allow no resource type' };
  return {
    kind: 'condition',
    condition: {
      resourceTypes: types ?? EVERY_TYPE,
      ...(methods ? { requestMethods: methods } : {}),
      ...(domains ? { initiatorDomains: domains } : {}),
    },
  };
}
