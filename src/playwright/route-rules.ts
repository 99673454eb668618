// applyRules: a Playwright browser context's requests go through a workspace's rules, as
// rulekeeper/runtime keeps them (a change acts on the next request), evaluated by the same engine as
// POST /v1/trace. Playwright is the caller's: only its types are used.
import type { BrowserContext, Request, Route } from '@playwright/test';
import type { Outcome } from '../engine/index.js';
import { changeResponseHeaders, injectScripts } from '../proxy/effects.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime/index.js';
import { requestInput } from './request-input.js';

export interface ApplyRulesOptions extends RuntimeOptions {
  /** Which requests go through the rules (a Playwright URL pattern); default all. */
  url?: string | RegExp;
}

export interface AppliedRules {
  /** The runtime that follows the workspace: `status()`, `reached(revision)`, `on('change')`, … */
  runtime: Runtime;
  /** Stops routing the context's requests through the rules, and stops following the workspace. */
  close(): Promise<void>;
}

type HeaderValues = Record<string, string | string[] | undefined>;

/** The request as the rules left it, for whoever answers it. */
export interface SentRequest {
  headers: Record<string, string>;
  postData?: string;
}

/** An upstream's answer, as act() reads it (a Playwright APIResponse is one). */
export interface UpstreamAnswer {
  status(): number;
  headers(): Record<string, string>;
  body(): Promise<Buffer>;
}

/** What runRuleTests needs from the routing besides the rules; applyRules uses none of it. */
export interface RouteHooks {
  /** Answers for the upstream instead of the network, for the requests act() fetches itself. */
  upstream?: (route: Route, request: Request, sent: SentRequest) => Promise<UpstreamAnswer>;
  /**
   * Answers a rule's redirect instead of the 307 (Playwright routes no request a redirect leads to,
   * so runRuleTests loads the destination itself, through the rules).
   */
  redirect?: (route: Route, request: Request, location: string) => Promise<void> | undefined;
  /** Told which rules acted on each routed request, cancelled ones included. */
  acted?: (request: Request, ruleIds: string[]) => void;
}

/** Headers as Playwright takes them: one string each (repeated values joined as HTTP joins them). */
function flat(headers: HeaderValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
  }
  return out;
}

/** What the rules did, applied to the routed request. */
async function act(
  route: Route,
  request: Request,
  outcome: Outcome,
  acted: string[],
  hooks: RouteHooks,
): Promise<void> {
  // A Redirect to a local file is served only by a proxy told to (--allow-files): passed through.
  if (outcome.url.startsWith('file:')) return route.fallback();
  if (outcome.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, outcome.delayMs));
  if (outcome.cancelled) return route.abort('blockedbyclient');
  const mark = { 'x-rulekeeper-rules': acted.join(' ') };
  // Redirect, Replace and QueryParam: a 307, as the proxy answers, so that the page sees the new URL.
  const redirected = outcome.redirected ? hooks.redirect?.(route, request, outcome.url) : undefined;
  if (redirected) return redirected;
  if (outcome.redirected) return route.fulfill({ status: 307, headers: { location: outcome.url, ...mark } });
  const body = outcome.requestBody?.type === 'static' ? outcome.requestBody.value : undefined;
  const sent: SentRequest = {
    headers: flat(outcome.requestHeaders),
    ...(body === undefined ? {} : { postData: body }),
  };
  // A `code` response is not run (as the proxy without --allow-code): the upstream answers.
  const response = outcome.response?.type === 'static' ? outcome.response : undefined;
  if (response?.serveWithoutRequest) {
    const headers = changeResponseHeaders({}, outcome.responseHeaders);
    return route.fulfill({
      status: response.statusCode,
      body: response.value,
      headers: { ...flat(headers), ...mark },
    });
  }
  const isDocument = request.resourceType() === 'document';
  const scripts = isDocument ? outcome.scripts : [];
  if (!response && outcome.responseHeaders.length === 0 && scripts.length === 0) return route.fallback(sent);

  // An upstream redirect goes to the browser as it is, not followed here: the page must see it.
  const upstream = hooks.upstream
    ? await hooks.upstream(route, request, sent)
    : await route.fetch({ ...sent, maxRedirects: 0 });
  const headers: HeaderValues = changeResponseHeaders(upstream.headers(), outcome.responseHeaders);
  // The body is given decoded: no encoding or length of the upstream's own.
  delete headers['content-encoding'];
  delete headers['content-length'];
  let text: string | Buffer = response ? response.value : await upstream.body();
  if (scripts.length > 0 && /text\/html/i.test(String(headers['content-type'] ?? ''))) {
    text = injectScripts(text.toString(), scripts);
    // As the proxy: a policy that would block the injected scripts is dropped, and the answer says so.
    if (headers['content-security-policy'] !== undefined) {
      delete headers['content-security-policy'];
      headers['x-rulekeeper-csp'] = 'removed: it would block the scripts the rules injected';
    }
  }
  return route.fulfill({
    status: response?.statusCode ?? upstream.status(),
    headers: { ...flat(headers), ...mark },
    body: text,
  });
}

/**
 * Routes the context's requests through the workspace's rules (Redirect, Cancel, Replace, QueryParam,
 * Headers, UserAgent, Delay, Request and Response static bodies, Script injection into HTML) and
 * follows its changes. Settles once the rules are loaded; rejects if the server refuses the key.
 */
export async function applyRules(context: BrowserContext, options: ApplyRulesOptions): Promise<AppliedRules> {
  return routeRules(context, options, {});
}

/** applyRules, with the hooks runRuleTests answers and observes the page's requests through. */
export async function routeRules(
  context: BrowserContext,
  options: ApplyRulesOptions,
  hooks: RouteHooks,
): Promise<AppliedRules> {
  const { url = '**/*', ...runtimeOptions } = options;
  const runtime = createRuntime(runtimeOptions);
  try {
    await runtime.ready;
  } catch (error) {
    runtime.close();
    throw error;
  }
  const handler = async (route: Route, request: Request) => {
    let result: ReturnType<Runtime['evaluate']>;
    try {
      result = runtime.evaluate(await requestInput(request), { explain: 'acted' });
    } catch {
      return route.fallback(); // a URL the engine does not take (data:, blob:, chrome:)
    }
    if (result.rules.length === 0) return route.fallback();
    const acted = result.rules.map((rule) => rule.ruleId);
    hooks.acted?.(request, acted);
    try {
      await act(route, request, result.outcome, acted, hooks);
    } catch {
      // The upstream could not be reached, or the page went away meanwhile: the request fails as the
      // browser's own would (a route already answered says so by throwing, and is left alone).
      await route.abort('failed').catch(() => {});
    }
  };
  await context.route(url, handler);
  return {
    runtime,
    async close() {
      await context.unroute(url, handler);
      runtime.close();
    },
  };
}
