// runRuleTests: the cases of a `rulekeeper test` file run in real pages of a Playwright context, through
// the same routing as applyRules. Each case's request is loaded as a page's document; the helper
// answers as the upstream itself (a case's hosts need not exist, and nothing leaves the machine), and
// what the browser observed is compared by `rulekeeper test`'s own code and reported in its words.
// What a page cannot show is reported as not checked, never passed.
import type { BrowserContext, Page, Request, Response, Route } from '@playwright/test';
import {
  CaseRefused,
  type CaseRun,
  type CaseTrace,
  type RuleTestCase,
  type RuleTestsReport,
  readCases,
  runCases,
} from '../cli/rule-tests.js';
import type { Runtime, RuntimeOptions } from '../runtime/index.js';
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
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html><head>${UPSTREAM_TITLE}</head><body></body></html>`,
};

/** Why an expectation cannot be seen in a page, by the outcome's key. */
const UNOBSERVABLE: Record<string, string> = {
  delayMs: "a Delay's exact time is not measured in a page",
  requestBody: 'a page load sends no body to compare',
  responseHeaders: 'the page sees the headers, not the list of changes',
  scripts: 'the page runs the scripts, it does not list them',
};

/** The parts of `response` a page shows: the status and the body it got. */
const RESPONSE_SEEN = new Set(['statusCode', 'value']);

const unchecked = (path: string, why: string) => `not checked in a browser: ${path} (${why})`;

/** Why a case's request cannot be made as a page load, or nothing when it can. */
function notAPageLoad(request: Record<string, unknown>): string | undefined {
  const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
  if (method !== 'GET') return `a page load is a GET, the case's request is a ${method}`;
  if (request.body !== undefined) return 'a page load sends no body';
  if (request.resourceType !== undefined && request.resourceType !== 'main_frame')
    return `the page loads the URL as its document (main_frame), not as ${String(request.resourceType)}`;
  if (request.pageUrl !== undefined) return 'a new page loading its document has no page URL';
  return undefined;
}

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

/** What one page load showed: the chain of document URLs, the rules that acted, what the upstream got. */
interface Observed {
  page: Page;
  chain: string[];
  acted: Set<string>;
  reached?: Record<string, string>;
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
  /** The watched page's document requests (its own subresources and other pages are not the case's). */
  const watchedDocument = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame() === watched?.page.mainFrame();
    } catch {
      return false; // a service worker's request has no frame
    }
  };
  const answerAsUpstream = (request: Request, headers: Record<string, string>) => {
    if (watched && watchedDocument(request)) watched.reached = headers;
    return UPSTREAM;
  };
  // Registered before the rules' route, so that it answers what they pass on (Playwright runs the
  // latest route first; a fallback goes to the one before, with the rules' changes to the request).
  const upstreamRoute = async (route: Route, request: Request) => {
    await route.fulfill(answerAsUpstream(request, await request.allHeaders()));
  };
  await context.route('**/*', upstreamRoute);
  let applied: AppliedRules;
  try {
    applied = await routeRules(context, runtimeOptions, {
      upstream: async (request, sent) => {
        const answer = answerAsUpstream(request, sent.headers);
        return {
          status: () => answer.status,
          headers: () => answer.headers,
          body: async () => Buffer.from(answer.body),
        };
      },
      acted: (request, ruleIds) => {
        if (watched && watchedDocument(request)) for (const id of ruleIds) watched.acted.add(id);
      },
    });
  } catch (error) {
    await context.unroute('**/*', upstreamRoute);
    throw error;
  }

  async function load(testCase: RuleTestCase): Promise<{ observed: Observed; response?: Response | null }> {
    const page = await context.newPage();
    const observed: Observed = { page, chain: [], acted: new Set() };
    watched = observed;
    page.on('request', (request) => {
      if (watchedDocument(request)) observed.chain.push(request.url());
    });
    const { url, headers } = testCase.request;
    if (headers !== undefined) await page.setExtraHTTPHeaders(headerStrings(headers));
    try {
      // A rule's redirect is followed by the browser itself, through the rules (see redirect-follows.ts).
      return { observed, response: await page.goto(String(url)) };
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? '';
      // Cancel fails the load as the browser's own blocking does; anything else is the case's problem.
      if (/net::ERR_BLOCKED_BY_CLIENT/.test(message)) return { observed };
      if (/net::ERR_TOO_MANY_REDIRECTS/.test(message))
        throw new CaseRefused(`the page load failed: more than ${MAX_REDIRECTS} redirects`);
      throw new CaseRefused(`the page load failed: ${message}`);
    }
  }

  async function runCase(testCase: RuleTestCase): Promise<CaseRun> {
    const why = notAPageLoad(testCase.request);
    if (why) {
      return {
        trace: { outcome: {}, rules: activeRules(applied.runtime, new Set()) },
        expect: {},
        unchecked: [unchecked('the whole case', why)],
      };
    }
    let observed: Observed;
    let response: Response | null | undefined;
    let body = '';
    try {
      ({ observed, response } = await load(testCase));
      body = response ? await response.text() : '';
    } finally {
      await watched?.page.close();
      watched = undefined;
    }
    const cancelled = response === undefined;
    const outcome: Record<string, unknown> = {
      url: cancelled ? (observed.chain.at(-1) ?? testCase.request.url) : observed.page.url(),
      // The helper's upstream never redirects: a redirect is a rule's.
      redirected: observed.chain.length > 1,
      cancelled,
      requestHeaders: observed.reached ?? {},
      response:
        !response || (response.status() === UPSTREAM.status && body.includes(UPSTREAM_TITLE))
          ? null
          : { statusCode: response.status(), value: body },
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
    await context.unroute('**/*', upstreamRoute);
  }
}
