// `redirect_loop`: requests the workspace's Redirects send round in circles. Found by running the
// engine itself: from a URL each Redirect's source matches (with what its filters ask for), the
// request is evaluated, redirected, evaluated again, as a browser would follow it. A loop found so is
// real for that request, whatever the patterns; a loop only some other request would enter is missed.
import { type CompiledRule, compileRule } from '../evaluate.js';
import type { MatcherCache } from '../match.js';
import { type EngineRequest, type RequestInput, toEngineRequest } from '../request.js';
import { type GrowingRuleSet, growingRuleSet } from '../rule-set.js';
import type { RuleVerdict } from '../types.js';
import { positionMapOf } from './positions.js';
import { sampleTexts } from './samples.js';
import type { Source } from './sources.js';
import type { Budget, Finding, LintRule } from './types.js';

const ROUTE_CHANGING = new Set(['Redirect', 'Replace', 'QueryParam', 'Cancel']);

/** Browsers give up after 20 redirects. */
const MAX_HOPS = 20;
/**
 * A redirect that puts the whole URL it matched into a relative destination (`{{API}}/api/$1` left
 * unresolved, say) doubles the URL at every hop: 20 hops would make a URL of megabytes, and matching
 * it took the lint seconds per start. Past this length the request is one no server takes, and its
 * growing is endless enough to say so.
 */
const MAX_FOLLOWED_URL_CHARS = 8192;
const STARTS_PER_PAIR = 3;

/** Requests the source matches: URLs from samples of its value, with what its first filter asks for. */
function startingRequests(source: Source): EngineRequest[] {
  const filter = source.filters?.[0] ?? {};
  const page =
    filter.URL?.operator === 'Equals'
      ? filter.URL.value
      : filter.pageDomains?.[0] && `https://${filter.pageDomains[0]}/`;
  const texts = sampleTexts(
    source.key,
    source.operator,
    source.value === '' ? 'https://example.com/' : source.value,
    12,
  );
  const urls = texts.map((text) =>
    source.key === 'host'
      ? `https://${text}/`
      : source.key === 'path'
        ? `https://example.com/${text.replace(/^\//, '')}`
        : text,
  );
  const requests: EngineRequest[] = [];
  for (const url of urls) {
    const input: RequestInput = {
      url,
      ...(filter.requestMethod?.[0] ? { method: filter.requestMethod[0] } : {}),
      ...(filter.resourceType?.[0]
        ? { resourceType: filter.resourceType[0] as RequestInput['resourceType'] }
        : {}),
      ...(page ? { pageUrl: page } : {}),
    };
    const request = toEngineRequest(input);
    if (!('details' in request)) requests.push(request);
    if (requests.length >= STARTS_PER_PAIR) break;
  }
  return requests;
}

/** A pair that redirected to the URL it was asked for. */
const isSameUrl = (pair: { effect: Record<string, unknown> | null }) =>
  pair.effect !== null && 'unchanged' in pair.effect && !('error' in pair.effect);

type Followed =
  | { kind: 'loop' | 'endless' | 'growing' | 'fixed'; ruleIds: string[]; urls: string[] }
  | undefined;

/**
 * Rules compiled, kept per rule object (the lint service hands the same, never changed, objects to
 * write after write): a write of a Redirect compiles its own rule, not again every rule that changes
 * a request's way. Each has matchers of its own, which the lint's few requests do not miss. The
 * least recently used go first: a compiled rule takes a few KB.
 */
const MAX_COMPILED = 10_000;
const compiled = new Map<LintRule, CompiledRule>();
/**
 * Their matchers, shared by source: rules that repeat a source (copies, the same host in twenty
 * rules) test a URL once, not once each. Begun again past the bound, as the rules are.
 */
let matchers: MatcherCache = new Map();

function compiledOf(rule: LintRule): CompiledRule {
  let made = compiled.get(rule);
  if (made) compiled.delete(rule);
  else {
    const { id, name, ruleType, status, pairs } = rule;
    if (matchers.size >= MAX_COMPILED) matchers = new Map();
    made = compileRule({ id, name, ruleType, status, pairs }, matchers);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as LintRule);
  }
  compiled.set(rule, made);
  return made;
}

/** The rule sets the loops are followed through, built once per list of rules that act. */
interface Route {
  set: GrowingRuleSet;
  redirectsOnly: GrowingRuleSet;
  order: Map<string, number>;
}

/** What the check made of a list of rules that act: carried over to the list creates extend it to. */
interface Made {
  redirects: Map<string, LintRule>;
  route?: Route;
}

/**
 * Kept for the lists linted last only, and besides the list linted now for no more than
 * MAX_KEPT_COMPILED rules in all: a rule set holds its compiled rules (about 1.5 KB each), which a
 * worker keeping many large workspaces' inputs would otherwise keep all of between jobs.
 */
const MAX_MADE = 2;
const MAX_KEPT_COMPILED = 50_000;
const made = new Map<readonly LintRule[], Made>();

const compiledIn = ({ route }: Made) =>
  route ? route.set.rules.length + route.redirectsOnly.rules.length : 0;

function keepMade(active: readonly LintRule[], found: Made): void {
  made.delete(active);
  let [room, kept] = [MAX_KEPT_COMPILED, 1];
  for (const [list, other] of [...made].reverse()) {
    room -= compiledIn(other);
    if (room < 0 || kept >= MAX_MADE) made.delete(list);
    else kept++;
  }
  made.set(active, found);
}

function madeOf(active: readonly LintRule[]): Made {
  const found = made.get(active) ?? {
    redirects: new Map(active.filter((r) => r.ruleType === 'Redirect').map((r) => [r.id, r])),
  };
  keepMade(active, found);
  return found;
}

function routeOf(active: readonly LintRule[], redirects: Map<string, LintRule>): Route {
  // Only the rules that can change where a request goes (or stop it) decide where it is redirected.
  const routeChanging = active.filter((rule) => ROUTE_CHANGING.has(rule.ruleType));
  return {
    set: growingRuleSet(routeChanging.map(compiledOf)),
    // The Redirects alone, to tell which of them redirected to the very URL asked for (no_change):
    // a trace explains every rule it holds, and the others cannot be that one.
    redirectsOnly: growingRuleSet([...redirects.values()].map(compiledOf)),
    order: positionMapOf(active),
  };
}

/**
 * `active`: the rules that act, in list order. The answer finds the loops; with `focus`, only the
 * loops that rule's own pairs lead into (the ones it is part of). The rule sets are built once, when
 * first needed, for every focus of one lint (a batch of writes' rules), and grow with the list.
 */
export function redirectLoops(active: readonly LintRule[]): (budget: Budget, focus?: string) => Finding[] {
  const found = madeOf(active);
  return (budget, focus) => {
    const { redirects } = found;
    if (redirects.size === 0 || (focus !== undefined && !redirects.has(focus))) return [];
    found.route ??= routeOf(active, redirects);
    return loopsFound(found.route, redirects, budget, focus);
  };
}

/**
 * `longer` is `shorter` with rules added at its end: what was made for `shorter` is moved to it and
 * the new rules added, instead of every rule set made again (its positions are moved by extendPositions).
 */
export function extendLoops(shorter: readonly LintRule[], longer: readonly LintRule[]): void {
  const found = made.get(shorter);
  if (!found) return;
  made.delete(shorter);
  const added = longer.slice(shorter.length);
  const redirects = added.filter((rule) => rule.ruleType === 'Redirect');
  for (const rule of redirects) found.redirects.set(rule.id, rule);
  if (found.route) {
    found.route.set.add(added.filter((rule) => ROUTE_CHANGING.has(rule.ruleType)).map(compiledOf));
    found.route.redirectsOnly.add(redirects.map(compiledOf));
  }
  keepMade(longer, found);
}

function loopsFound(
  { set, redirectsOnly, order }: Route,
  redirects: Map<string, LintRule>,
  budget: Budget,
  focus: string | undefined,
): Finding[] {
  /** A Redirect that redirected to the very URL it was asked for, and so did not act. */
  const isFixed = (verdict: RuleVerdict) =>
    verdict.reason === 'no_change' && redirects.has(verdict.ruleId) && verdict.pairs.some(isSameUrl);

  /** Follows the request from redirect to redirect until it stops, comes back, or never ends. */
  function follow(start: EngineRequest): Followed {
    const urls = [start.url];
    const ruleIds: string[] = [];
    let request = start;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const { outcome, acted } = set.evaluate(request);
      const by = acted.find((id) => redirects.has(id));
      if (by === undefined && !outcome.cancelled && outcome.url === request.url) {
        // A redirect to the very URL requested does not act (no_change): the trace still names it.
        // Only a Redirect the URL can match can have redirected to it: the others are not explained,
        // nor those after the first that did (copies of a rule would each be).
        const fixed =
          budget.spend(redirects.size) && redirectsOnly.traceMatching(request, isFixed).rules.find(isFixed);
        if (fixed) return { kind: 'fixed', ruleIds: [fixed.ruleId], urls: [request.url] };
      }
      if (outcome.cancelled || by === undefined || !/^(https?|wss?):/.test(outcome.url)) return undefined;
      ruleIds.push(by);
      if (outcome.url === request.url) return { kind: 'fixed', ruleIds: [by], urls: [request.url] };
      const back = urls.indexOf(outcome.url);
      urls.push(outcome.url);
      if (back >= 0) return rotated(ruleIds.slice(back), urls.slice(back, -1));
      if (outcome.url.length > MAX_FOLLOWED_URL_CHARS) return { kind: 'growing', ruleIds, urls };
      request = { ...request, url: outcome.url };
    }
    return { kind: 'endless', ruleIds, urls };
  }

  /** A loop told from its rule earliest in the list, wherever it was entered: the same finding each time. */
  function rotated(ids: string[], nodes: string[]): Followed {
    const at = (id: string) => order.get(id) ?? 0;
    const r = ids.reduce((best, id, k) => (at(id) < at(ids[best] as string) ? k : best), 0);
    const turn = <T>(list: T[]) => [...list.slice(r), ...list.slice(0, r)];
    const urls = turn(nodes);
    return { kind: 'loop', ruleIds: turn(ids), urls: [...urls, urls[0] as string] };
  }

  const found = new Map<string, Finding>();
  const followed = focus === undefined ? [...redirects.values()] : [redirects.get(focus) as LintRule];
  for (const rule of followed) {
    for (const pair of rule.pairs) {
      for (const start of startingRequests(pair.source as Source)) {
        // Each hop evaluates the request with the rule index: about as costly as one comparison.
        if (!budget.spend(MAX_HOPS)) return [...found.values()];
        const result = follow(start);
        if (!result) continue;
        const ids = [...new Set(result.ruleIds)];
        const key = `${result.kind} ${[...ids].sort().join(' ')}`;
        if (!found.has(key)) found.set(key, finding(result, ids, redirects));
        break;
      }
    }
  }
  return [...found.values()];
}

function finding(result: NonNullable<Followed>, ids: string[], redirects: Map<string, LintRule>): Finding {
  const names = ids.map((id) => `"${redirects.get(id)?.name}"`).join(' → ');
  const pointers = ids.map((ruleId) => ({ ruleId, path: '/pairs' }));
  const shown = result.urls.slice(0, 4).join(' → ') + (result.urls.length > 4 ? ' → …' : '');
  if (result.kind === 'fixed') {
    return {
      code: 'redirect_loop',
      severity: 'warning',
      ruleIds: ids,
      pointers,
      message: `${names} redirects to a URL its own source matches again (${shown}). Redirected there, the request is left alone only because a redirect to the very URL requested does nothing; a runtime without that guard loops.`,
      hint: 'Narrow the source so that it does not match the destination (an Equals, an anchored pattern, or a filter).',
    };
  }
  return {
    code: 'redirect_loop',
    severity: 'error',
    ruleIds: ids,
    pointers,
    message:
      result.kind === 'loop'
        ? `${names} send requests round in a loop: ${shown}.`
        : result.kind === 'growing'
          ? `${names} redirect a request to ever longer URLs, past ${MAX_FOLLOWED_URL_CHARS} characters after ${result.urls.length - 1} redirects, without end: ${shown}.`
          : `${names} redirect a request ${MAX_HOPS} times without end (browsers give up there): ${shown}.`,
    hint: 'Make one of these sources stop matching the URL the other redirects to.',
  };
}
