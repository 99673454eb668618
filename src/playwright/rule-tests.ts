// runRuleTests: the cases of a `rulekeeper test` file run in real pages of a Playwright context, through
// the same routing as applyRules. Each case's request is made by a page, as its document's load or as
// a fetch (case-request.ts); the helper answers as the upstream itself (a case's hosts need not exist, and nothing leaves the machine), and
// what the browser observed is compared by `rulekeeper test`'s own code and reported in its words.
// What a page cannot show is reported as not checked, never passed.
import type { BrowserContext, Page, Request, Route } from '@playwright/test';
import type { CaseTrace } from '../rule-tests/compare-case.js';
import { type RuleTestCase, readCases } from '../rule-tests/rule-test-file.js';
import { CaseRefused, type CaseRun, type RuleTestsReport, runCases } from '../rule-tests/run-cases.js';
import type { Runtime, RuntimeOptions } from '../runtime/index.js';
import { type CasePlan, fetchIn, planOf, type Shown } from './case-request.js';
import { MAX_REDIRECTS } from './redirect-follows.js';
import { type AppliedRules, routeRules } from './route-rules.js';

export interface RunRuleTestsOptions extends RuntimeOptions {
  /** The cases, as a `rulekeeper test` file holds them… */
  cases?: RuleTestCase[];
  /** …or the file itself (JSON or YAML), read as `rulekeeper test` reads it. */
  file?: string;
  /** Each line of the report as `rulekeeper test` prints it (default: nowhere; the answer has it all). */
  out?: (line: string) => void;
}

/** What the helper's upstream answers every request that reaches it. */
const UPSTREAM_TITLE = '<title>rulekeeper test upstream</title>';
const UPSTREAM = {
  status: 200,
  // Readable by a fetch from any origin, as a rule's cross-origin redirect leads it elsewhere.
  headers: { 'content-type': 'text/html; charset=utf-8', 'access-control-allow-origin': '*' },
  body: `<!doctype html><html><head>${UPSTREAM_TITLE}</head><body></body></html>`,
};

/** Why an expectation cannot be seen in a page, by the outcome's key. */
const UNOBSERVABLE: Record<string, string> = {
  delayMs: "a Delay's exact time is not measured in a page",
  requestBody: 'the page sees the answer, not what the rules did to the body sent',
  responseHeaders: 'the page sees the headers, not the list of changes',
  scripts: 'the page runs the scripts, it does not list them',
};

/** The parts of `response` a page shows: the status and the body it got. */
const RESPONSE_SEEN = new Set(['statusCode', 'value']);

const unchecked = (path: string, why: string) => `not checked in a browser: ${path} (${why})`;

/** Header values as Playwright sends them: one string each. */
function headerStrings(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((headers ?? {}) as Record<string, unknown>))
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return out;
}

/** The active rules, as a trace lists them, each marked acted when a case's page load made it act. */
function activeRules(runtime: Runtime, acted: Set<string>): CaseTrace['rules'] {
  const inactiveGroups = new Set(
    runtime
      .groups()
      .filter((g) => g.status === 'Inactive')
      .map((g) => g.id),
  );
  return runtime
    .rules()
    .filter((rule) => rule.status === 'Active' && !(rule.groupId && inactiveGroups.has(rule.groupId)))
    .map((rule) => ({ ruleId: rule.id, name: rule.name, acted: acted.has(rule.id) }));
}

/** What the page showed of a case's request: its URLs, the rules that acted, what the upstream got. */
interface Observed {
  page: Page;
  /** Whether a request of the context is the case's own, or one its redirects led to. */
  isCase: (request: Request) => boolean;
  /** The blank page a fetch case is made from, answered by the helper. */
  blank?: string;
  chain: string[];
  acted: Set<string>;
  cancelled: boolean;
  reached?: Record<string, string>;
}

/** The page a fetch case is made from: empty, never seen by the rules. */
const BLANK = {
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: '<!doctype html><title></title>',
};

/** A request's frame, or none (a service worker's request has no frame). */
function frameOf(request: Request) {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

/**
 * Runs `rulekeeper test` cases in real pages of `context` through the workspace's rules, and answers
 * the report `rulekeeper test` would print (see README "Run the cases in a browser").
 */
export async function runRuleTests(
  context: BrowserContext,
  options: RunRuleTestsOptions,
): Promise<RuleTestsReport> {
  const { cases, file, out = () => {}, ...runtimeOptions } = options;
  if ((cases === undefined) === (file === undefined))
    throw new TypeError('runRuleTests takes either cases or file');
  const list = cases ?? readCases(file as string);

  let watched: Observed | undefined;
  const isCase = (request: Request) => watched?.isCase(request) === true;
  const answerAsUpstream = (request: Request, headers: Record<string, string>) => {
    if (watched && isCase(request)) watched.reached = headers;
    return UPSTREAM;
  };
  // Registered before the rules' route, so that it answers what they pass on (Playwright runs the
  // latest route first; a fallback goes to the one before, with the rules' changes to the request).
  const upstreamRoute = async (route: Route, request: Request) => {
    await route.fulfill(answerAsUpstream(request, await request.allHeaders()));
  };
  // Registered after it: the blank page of a fetch case is the helper's, not a request of the case.
  const blankRoute = async (route: Route, request: Request) => {
    if (request.url() === watched?.blank && request.isNavigationRequest()) return route.fulfill(BLANK);
    return route.fallback();
  };
  await context.route('**/*', upstreamRoute);
  let applied: AppliedRules;
  try {
    // A case's request is made up by its file, not traffic: it says nothing of which rules are used.
    applied = await routeRules(
      context,
      { reportHits: false, ...runtimeOptions },
      {
        upstream: async (request, sent) => {
          const answer = answerAsUpstream(request, sent.headers);
          return {
            status: () => answer.status,
            headers: () => answer.headers,
            body: async () => Buffer.from(answer.body),
          };
        },
        acted: (request, ruleIds) => {
          if (watched && isCase(request)) for (const id of ruleIds) watched.acted.add(id);
        },
        cancelled: (request) => {
          if (watched && isCase(request)) watched.cancelled = true;
        },
      },
    );
    await context.route('**/*', blankRoute);
  } catch (error) {
    await context.unroute('**/*', upstreamRoute);
    throw error;
  }

  /** The case's request made in a new page, and what the page showed of it. */
  async function make(
    testCase: RuleTestCase,
    plan: Exclude<CasePlan, { as: 'skip' }>,
  ): Promise<{ shown: Shown; observed: Observed }> {
    const page = await context.newPage();
    const observed: Observed = { page, isCase: () => false, chain: [], acted: new Set(), cancelled: false };
    watched = observed;
    page.on('request', (request) => {
      if (observed.isCase(request)) observed.chain.push(request.url());
    });
    const { url, headers } = testCase.request;
    if (headers !== undefined) await page.setExtraHTTPHeaders(headerStrings(headers));
    if (plan.as === 'fetch') {
      observed.blank = plan.from;
      await page.goto(plan.from).catch((error: Error) => {
        throw new CaseRefused(`the page to fetch from did not load: ${error.message.split('\n')[0]}`);
      });
      observed.isCase = (request) =>
        request.resourceType() === 'fetch' && frameOf(request) === page.mainFrame();
      const got = await fetchIn(page, String(url), plan);
      if (!('error' in got)) return { shown: { ...got, cancelled: false }, observed };
      // Cancel fails the fetch as the browser's own blocking does; anything else is the case's problem.
      if (observed.cancelled)
        return { shown: { redirected: observed.chain.length > 1, cancelled: true }, observed };
      throw new CaseRefused(`the fetch failed: ${got.error}`);
    }
    observed.isCase = (request) => request.isNavigationRequest() && frameOf(request) === page.mainFrame();
    try {
      // A rule's redirect is followed by the browser itself, through the rules (see redirect-follows.ts).
      const response = await page.goto(String(url), plan.referer ? { referer: plan.referer } : {});
      const shown: Shown = {
        url: page.url(),
        // The helper's upstream never redirects: a redirect is a rule's.
        redirected: observed.chain.length > 1,
        cancelled: false,
        ...(response ? { status: response.status(), body: await response.text() } : {}),
      };
      return { shown, observed };
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? '';
      if (/net::ERR_BLOCKED_BY_CLIENT/.test(message))
        return { shown: { redirected: observed.chain.length > 1, cancelled: true }, observed };
      if (/net::ERR_TOO_MANY_REDIRECTS/.test(message))
        throw new CaseRefused(`the page load failed: more than ${MAX_REDIRECTS} redirects`);
      throw new CaseRefused(`the page load failed: ${message}`);
    }
  }

  async function runCase(testCase: RuleTestCase): Promise<CaseRun> {
    const plan = planOf(testCase.request);
    if (plan.as === 'skip') {
      return {
        trace: { outcome: {}, rules: activeRules(applied.runtime, new Set()) },
        expect: {},
        unchecked: [unchecked('the whole case', plan.why)],
      };
    }
    let made: { shown: Shown; observed: Observed };
    try {
      made = await make(testCase, plan);
    } finally {
      await watched?.page.close();
      watched = undefined;
    }
    const { shown, observed } = made;
    const { cancelled } = shown;
    const outcome: Record<string, unknown> = {
      url: shown.url ?? observed.chain.at(-1) ?? testCase.request.url,
      redirected: shown.redirected,
      cancelled,
      requestHeaders: observed.reached ?? {},
      response:
        shown.status === undefined ||
        (shown.status === UPSTREAM.status && (shown.body ?? '').includes(UPSTREAM_TITLE))
          ? null
          : { statusCode: shown.status, value: shown.body ?? '' },
    };
    const expect: Record<string, unknown> = {};
    const notes: string[] = [];
    for (const [key, value] of Object.entries(testCase.expect)) {
      if (key in UNOBSERVABLE) notes.push(unchecked(`outcome.${key}`, UNOBSERVABLE[key] as string));
      else if ((key === 'requestHeaders' || key === 'response') && cancelled)
        notes.push(unchecked(`outcome.${key}`, 'the request was cancelled'));
      else if (key === 'requestHeaders' && !observed.reached)
        notes.push(unchecked(`outcome.${key}`, 'a rule answered without the upstream'));
      else if (key === 'response' && typeof value === 'object' && value !== null) {
        const seen = Object.entries(value).filter(([part]) => RESPONSE_SEEN.has(part));
        for (const [part] of Object.entries(value).filter(([part]) => !RESPONSE_SEEN.has(part)))
          notes.push(unchecked(`outcome.response.${part}`, 'the page sees the status and the body'));
        if (seen.length > 0) expect[key] = Object.fromEntries(seen);
      } else expect[key] = value;
    }
    return {
      trace: { outcome, rules: activeRules(applied.runtime, observed.acted) },
      expect,
      unchecked: notes,
    };
  }

  try {
    return await runCases(list, runCase, out);
  } finally {
    await applied.close();
    await context.unroute('**/*', blankRoute);
    await context.unroute('**/*', upstreamRoute);
  }
}
