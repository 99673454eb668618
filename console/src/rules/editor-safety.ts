// What the editor asks before saving a rule that would act on every request: a Cancel, Redirect,
// Response, Request, Delay or User agent rule (the first-one-wins types: one such pair with an empty
// source decides every request, and hides every rule of its type after it) or a Replace (it rewrites
// every URL holding its text), with a source that has no filter and matches every URL. The same
// shapes as the lint's `matches_everything` (an empty value, `*`, `.*`, `Contains "/"`), checked here
// as the person types, before anything is sent; the service's lint says the rest once saved.
import type { Schemas } from '../api.js';

type Finding = Schemas['LintFinding'];

/** What each type would do to every request, as the confirmation says it. */
const EVERY_REQUEST: Record<string, string> = {
  Cancel: 'cancel every request',
  Redirect: 'redirect every request',
  Response: 'answer every request with its response',
  Request: 'replace the body of every request',
  Delay: 'delay every request',
  UserAgent: 'change the user agent of every request',
  Replace: 'rewrite the URL of every request that contains its text',
};

/** Values that match any text, by operator (empty matches everything whatever the operator). */
const EVERYTHING: Record<string, RegExp> = {
  Contains: /^\/?$/,
  Wildcard_Matches: /^\**$/,
  Matches: /^(\/(\^?\.[*]\$?)?\/[a-z]*|\^?\.\*\$?)$/,
};

interface SourceLike {
  key?: unknown;
  operator?: unknown;
  value?: unknown;
  filters?: unknown;
}

/** Whether a filter narrows anything: one with no field set matches every request. */
function narrows(filter: unknown): boolean {
  if (!filter || typeof filter !== 'object') return false;
  return Object.values(filter).some((value) =>
    Array.isArray(value)
      ? value.length > 0
      : value && typeof value === 'object'
        ? String((value as { value?: unknown }).value ?? '') !== ''
        : value !== undefined && value !== '',
  );
}

/** Whether a pair's source, filters included, lets every request through. */
export function matchesEveryRequest(source: unknown): boolean {
  if (!source || typeof source !== 'object') return true;
  const { operator, value, filters } = source as SourceLike;
  if (Array.isArray(filters) && filters.some(narrows)) return false;
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') return true;
  return EVERYTHING[String(operator)]?.test(text) ?? false;
}

export interface UnsafePair {
  /** The pair's index in `pairs` (0-based, as its pointer). */
  index: number;
  /** The sentence the confirmation shows. */
  sentence: string;
}

/** The pairs of `draft` that would act on every request, with what each would do, in words. */
export function unsafePairs(draft: { ruleType: string; pairs: unknown[] }): UnsafePair[] {
  const does = EVERY_REQUEST[draft.ruleType];
  if (!does) return [];
  const many = draft.pairs.length > 1;
  return draft.pairs.flatMap((pair, index) => {
    const source = pair && typeof pair === 'object' ? (pair as { source?: unknown }).source : undefined;
    if (!matchesEveryRequest(source)) return [];
    const value = (source as SourceLike | undefined)?.value;
    const empty = typeof value !== 'string' || value.trim() === '';
    const whose = many ? `Pair ${index + 1} of this rule` : 'This rule';
    const sentence = empty
      ? `${whose} has no source: it will ${does}.`
      : `${whose} has a source that matches every URL (“${value}”, no filter): it will ${does}.`;
    return [{ index, sentence }];
  });
}

/**
 * The same, as findings beside the source's value in the form (the lint's shape and code), for a
 * rule not yet saved or changed since: shown while typing, before the service's lint can see it.
 */
export function draftFindings(draft: { ruleType: string; pairs: unknown[] }, ruleId: string): Finding[] {
  return unsafePairs(draft).map(({ index, sentence }) => ({
    code: 'matches_everything',
    severity: 'warning',
    ruleIds: [ruleId],
    pointers: [{ ruleId, path: `/pairs/${index}/source/value` }],
    message: sentence,
    hint: 'Give the source the host or path it is meant for, or add a filter (page domains, resource type).',
  }));
}
