// Where Chrome and the engine can part across rules, not within one rule, said in both rules' reports.
//
// The engine takes the rules in list order and matches each against the URL the URL-changing rules
// before it left, applying every URL change to the one request (spec/matching.md section 4). Chrome
// matches every rule against the URL as requested; the highest-priority redirect (or a block, above
// all) acts alone, and the browser sends the redirected request, which meets every rule again. Both
// then evaluate the request the browser sends, so what they do to it (headers, user agent) agrees.
// Two things can part them, for a rule E that changes the URL (Replace, QueryParam, Redirect) and a
// later rule L that can act on the same request:
//
// 1. L is a Cancel whose source reads the URL: Chrome blocks when L matches the URL as requested, the
//    engine only when L matches the URL E left. (A Cancel without a URL condition matches both; after
//    a QueryParam, which changes the query only, a host or path Cancel sees what Chrome sees.)
// 2. E is a Replace or QueryParam and L changes the URL too: the engine applies both to the request;
//    in Chrome E's redirect acts alone and the redirected request meets the rules before L first (E
//    itself included), and a change L undoes ends the engine at the URL as requested but makes the
//    browser loop. (After a Redirect, the engine makes no more URL changes, as Chrome would not.)
//
// Whether they actually part depends on the URLs a request has, which no rule's text fixes (E may leave
// a URL L still matches, or not): so each pair of rules that can meet is reported, on both rules, and
// only those. "Can meet": Chrome conditions that share a resource type and a method (neither changes
// with a redirect); a page domain condition is not compared, so that is where it errs, wider.
import { DNR_RESOURCE_TYPES, type DnrCondition } from '../../model/browser-rule.js';

/** One Chrome rule the compiler wrote, with the rule and the pair's source key it came from. */
export interface WrittenRule {
  ruleId: string;
  ruleType: string;
  key: string;
  actionType: string;
  condition: DnrCondition;
}

/** Rules named in a reason; past it, "and others". */
const NAMED = 3;
/** A method no rule names: stands for every such method in a condition that names none. */
const OTHER_METHOD = '';

const URL_CHANGES = new Set(['Replace', 'QueryParam', 'Redirect']);
const CHAINS = new Set(['Replace', 'QueryParam']);

const changesUrl = (r: WrittenRule) => r.actionType === 'redirect' && URL_CHANGES.has(r.ruleType);
const chains = (r: WrittenRule) => changesUrl(r) && CHAINS.has(r.ruleType);
const readsUrl = (r: WrittenRule) =>
  r.actionType === 'block' && (r.condition.urlFilter !== undefined || r.condition.regexFilter !== undefined);
/** A Cancel that a query change can turn: a host or path source reads no query. */
const readsQuery = (r: WrittenRule) => readsUrl(r) && r.key === 'Url';

/** The cells (resource type × method) a condition can match, numbered. */
function cellsOf(condition: DnrCondition, methods: Map<string, number>): number[] {
  const types = condition.resourceTypes ?? DNR_RESOURCE_TYPES;
  const named = condition.requestMethods;
  const methodIndexes = named ? named.map((m) => methods.get(m) as number) : [...methods.values()];
  const cells: number[] = [];
  for (const type of types) {
    const t = DNR_RESOURCE_TYPES.indexOf(type as (typeof DNR_RESOURCE_TYPES)[number]);
    for (const m of methodIndexes) cells.push(t * methods.size + m);
  }
  return cells;
}

/**
 * The rules in kinds by the requests they can match (their resource types and methods: a workspace
 * has a few such kinds), and for each kind the kinds that share a request with it.
 */
function kindsOf(written: readonly WrittenRule[]): { kinds: number[]; meets: number[][] } {
  const methods = new Map<string, number>();
  for (const { condition } of written)
    for (const m of condition.requestMethods ?? []) if (!methods.has(m)) methods.set(m, methods.size);
  methods.set(OTHER_METHOD, methods.size);
  const byKey = new Map<string, number>();
  const cells: number[][] = [];
  const kinds = written.map(({ condition }) => {
    const key = `${condition.resourceTypes?.join()}|${condition.requestMethods?.join()}`;
    let kind = byKey.get(key);
    if (kind === undefined) {
      kind = cells.length;
      byKey.set(key, kind);
      cells.push(cellsOf(condition, methods));
    }
    return kind;
  });
  const inCell = new Map<number, number[]>();
  cells.forEach((at, kind) => {
    for (const cell of at) inCell.set(cell, [...(inCell.get(cell) ?? []), kind]);
  });
  const meets = cells.map((at) => [...new Set(at.flatMap((cell) => inCell.get(cell) ?? []))]);
  return { kinds, meets };
}

/** Per kind, the rule ids most recently added (at most NAMED + 2, distinct), nearest first. */
class Buckets {
  readonly #kinds: (string[] | undefined)[] = [];

  constructor(readonly meets: readonly number[][]) {}

  add(kind: number, ruleId: string): void {
    const ids = this.#kinds[kind] ?? [];
    this.#kinds[kind] = ids;
    if (ids[0] === ruleId) return;
    const at = ids.indexOf(ruleId);
    if (at >= 0) ids.splice(at, 1);
    ids.unshift(ruleId);
    // One more than named, to tell "and others"; one more again for the rule asking (its own pairs).
    if (ids.length > NAMED + 2) ids.pop();
  }

  /** Adds the ids of the kinds `kind` meets to `into`, distinct, but `skip`, until one more than named. */
  collect(kind: number, into: string[], skip?: string): void {
    for (const other of this.meets[kind] as number[]) {
      for (const id of this.#kinds[other] ?? []) {
        if (id === skip || into.includes(id)) continue;
        into.push(id);
        if (into.length > NAMED) return;
      }
    }
  }
}

/** The ids, the first few by name; `self` (the rule reported on) read as `selfName`. */
function named(ids: readonly string[], self?: string, selfName?: string): string {
  const names = ids.slice(0, NAMED).map((id) => (id === self ? selfName : id));
  return ids.length > NAMED ? `${names.join(', ')} and others` : names.join(', ');
}

type Met = 'laterCancels' | 'laterChanges' | 'earlierChanges' | 'earlierChains';

/**
 * The reasons each rule gets for the rules it can meet across (see above), by rule id; `written` in
 * the compiler's order (list order, each rule's pairs in order). Linear in the rules: a rule is asked
 * against the few nearest rules of each kind it meets, not against every other rule.
 */
export function interactionReasons(written: readonly WrittenRule[]): Map<string, string[]> {
  const { kinds, meets } = kindsOf(written);

  const found = new Map<string, Partial<Record<Met, string[]>>>();
  const note = (ruleId: string, met: Met, buckets: Buckets, kind: number, skip?: string) => {
    const entry = found.get(ruleId);
    const ids = entry?.[met] ?? [];
    if (ids.length > NAMED) return;
    buckets.collect(kind, ids, skip);
    if (ids.length === 0) return;
    if (entry) entry[met] = ids;
    else found.set(ruleId, { [met]: ids });
  };

  // Later rules, seen from a URL-changing rule: from the end back.
  const laterCancels = new Buckets(meets);
  const laterQueryCancels = new Buckets(meets);
  const laterChanges = new Buckets(meets);
  for (let i = written.length - 1; i >= 0; i--) {
    const rule = written[i] as WrittenRule;
    const at = kinds[i] as number;
    if (changesUrl(rule)) {
      const cancels = rule.ruleType === 'QueryParam' ? laterQueryCancels : laterCancels;
      note(rule.ruleId, 'laterCancels', cancels, at);
      if (chains(rule)) note(rule.ruleId, 'laterChanges', laterChanges, at);
      laterChanges.add(at, rule.ruleId);
    }
    if (readsUrl(rule)) laterCancels.add(at, rule.ruleId);
    if (readsQuery(rule)) laterQueryCancels.add(at, rule.ruleId);
  }

  // Earlier URL-changing rules, seen from a later Cancel or URL change: from the start on.
  const earlierChanges = new Buckets(meets);
  const earlierQueryChanges = new Buckets(meets);
  const earlierChains = new Buckets(meets);
  for (let i = 0; i < written.length; i++) {
    const rule = written[i] as WrittenRule;
    const at = kinds[i] as number;
    if (readsUrl(rule)) {
      note(rule.ruleId, 'earlierChanges', earlierChanges, at);
      if (readsQuery(rule)) note(rule.ruleId, 'earlierChanges', earlierQueryChanges, at);
    }
    if (changesUrl(rule)) {
      // Its own earlier pairs are skipped: that is said on it already, as their later pairs.
      note(rule.ruleId, 'earlierChains', earlierChains, at, rule.ruleId);
      (rule.ruleType === 'QueryParam' ? earlierQueryChanges : earlierChanges).add(at, rule.ruleId);
      if (chains(rule)) earlierChains.add(at, rule.ruleId);
    }
  }

  const reasons = new Map<string, string[]>();
  for (const [id, met] of found) {
    const said: string[] = [];
    if (met.laterCancels)
      said.push(
        `in Chrome every rule sees the URL as requested: a later Cancel (${named(met.laterCancels)}) that matches ` +
          'the URL as requested blocks the request, where the engine matches that Cancel against the URL this rule changed',
      );
    if (met.laterChanges)
      said.push(
        "in Chrome one URL change applies per request: this rule's redirect acts alone, and the redirected request meets " +
          'every rule again, this one and the ones before it first; the engine applies the later URL changes ' +
          `(${named(met.laterChanges, id, "this rule's later pairs")}) to the changed URL in the same request, so the two ` +
          'can end at different URLs (a change a later rule undoes makes Chrome loop)',
      );
    if (met.earlierChanges)
      said.push(
        'in Chrome it sees the URL as requested, not as the URL-changing rules before it ' +
          `(${named(met.earlierChanges)}) leave it: it may block a request the engine lets through`,
      );
    if (met.earlierChains)
      said.push(
        'in Chrome one URL change applies per request: after the change of a rule before it ' +
          `(${named(met.earlierChains)}), it acts only on the redirected request, where ` +
          'the rules before it are matched first; the engine applies it to the changed URL in the same request',
      );
    if (said.length > 0) reasons.set(id, said);
  }
  return reasons;
}
