// applyRules: a Playwright browser context's requests go through a workspace's rules, as
// rulekeeper/runtime keeps them (a change acts on the next request), evaluated by the same engine as
// POST /v1/trace. Playwright is the caller's: only its types are used.
import type { BrowserContext, Request, Route } from '@playwright/test';
import type { RequestInput } from '../engine/index.js';
import { checkResolvedPairs } from '../engine/variables-check.js';
import { engineInput } from '../proxy/effects.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime/index.js';
import { act, type Exchange, type SentRequest, type UpstreamAnswer } from './act.js';
import { type FollowedRequest, type RedirectedFrom, RedirectFollows } from './redirect-follows.js';
import { requestInput } from './request-input.js';

export interface ApplyRulesOptions extends RuntimeOptions {
  /**
   * Which requests go through the rules (a Playwright URL pattern); default all. The request a rule's
   * redirect leads to goes through them whatever its URL, as it would through the proxy.
   */
  url?: string | RegExp;
}

export interface AppliedRules {
  /** The runtime that follows the workspace: `status()`, `reached(revision)`, `flushHits()`, … */
  runtime: Runtime;
  /**
   * Stops routing the context's requests through the rules, and stops following the workspace, after
   * reporting the rules that acted (unless `reportHits: false`).
   */
  close(): Promise<void>;
}

/** What runRuleTests needs from the routing besides the rules; applyRules uses none of it. */
export interface RouteHooks {
  /**
   * Answers for the upstream instead of the network, for the requests the rules hand on: those act()
   * fetches itself, and those a rule's redirect led to (the others fall back to the caller's route).
   */
  upstream?: (request: Request, sent: SentRequest) => Promise<UpstreamAnswer>;
  /** Told which rules acted on each request, cancelled ones included (a redirect's, by its first). */
  acted?: (request: Request, ruleIds: string[]) => void;
  /** Told of each request the rules cancel (a redirect's, by its first). */
  cancelled?: (request: Request) => void;
}

/** The request a redirect led to, as the engine sees it: the redirected one's type and page. */
function followedInput(followed: FollowedRequest, from: RequestInput): RequestInput {
  const input = engineInput(followed.url, followed.method, followed.headers, followed.postData);
  return {
    ...input,
    ...(from.resourceType ? { resourceType: from.resourceType } : {}),
    ...(from.pageUrl ? { pageUrl: from.pageUrl } : {}),
  };
}

/**
 * Routes the context's requests through the workspace's rules (Redirect, Cancel, Replace, QueryParam,
 * Headers, UserAgent, Delay, Request and Response static bodies, Script injection into HTML) and
 * follows its changes; in Chromium, the request a rule's redirect leads to goes through them too
 * (redirect-follows.ts). Settles once the rules are loaded; rejects if the server refuses the key, or
 * gives no copy of them within `readyTimeoutMs` (default 10 s: the runtime's, naming what was tried).
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
  // Its hits are reported as the fixture's (`reportHits: false` stops them); sent on close too.
  // A rule its variables make invalid in the environment does not act, as the server's trace says.
  const runtime = createRuntime({
    hitsSource: 'playwright',
    pairsCheck: checkResolvedPairs,
    ...runtimeOptions,
  });
  try {
    await runtime.ready;
  } catch (error) {
    runtime.close();
    throw error;
  }
  /** The rules' outcome for `input`, or none when no rule acts or the engine takes no such URL. */
  const evaluate = (input: RequestInput, request: Request) => {
    let result: ReturnType<Runtime['evaluate']>;
    try {
      result = runtime.evaluate(input, { explain: 'acted' });
    } catch {
      return undefined; // a URL the engine does not take (data:, blob:, chrome:)
    }
    if (result.rules.length === 0) return undefined;
    const acted = result.rules.map((rule) => rule.ruleId);
    hooks.acted?.(request, acted);
    return { outcome: result.outcome, acted };
  };

  /** The exchange, telling the hooks when the rules cancel it. */
  const told = (exchange: Exchange, request: Request): Exchange => ({
    ...exchange,
    block: () => {
      hooks.cancelled?.(request);
      return exchange.block();
    },
  });

  // The request a rule's redirect led to, held by Chromium (see redirect-follows.ts).
  const follows = await RedirectFollows.open<RequestInput>(
    context,
    async (followed, from, exchangeFor) => {
      const input = followedInput(followed, from.input);
      const exchange = told(exchangeFor(input), from.request);
      const decided = evaluate(input, from.request);
      await (decided ? act(exchange, decided.outcome, decided.acted) : exchange.pass());
    },
    hooks.upstream,
  );

  const handler = async (route: Route, request: Request) => {
    let input: RequestInput;
    try {
      input = await requestInput(request);
    } catch {
      return route.fallback(); // the page went away meanwhile
    }
    const decided = evaluate(input, request);
    if (!decided) return route.fallback();
    const upstream = hooks.upstream;
    const exchange: Exchange = {
      isDocument: request.resourceType() === 'document',
      pass: (sent) => route.fallback(sent),
      block: () => {
        hooks.cancelled?.(request);
        return route.abort('blockedbyclient');
      },
      answer: (answer) => route.fulfill(answer),
      fetch: (sent) => (upstream ? upstream(request, sent) : route.fetch({ ...sent, maxRedirects: 0 })),
      async redirect(location, headers) {
        const from: RedirectedFrom<RequestInput> = { request, input, hops: 1 };
        await follows.expect(from, location);
        await route.fulfill({ status: 307, headers: { location, ...headers } });
      },
    };
    try {
      await act(exchange, decided.outcome, decided.acted);
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
      await follows.close();
      await runtime.flushHits();
      runtime.close();
    },
  };
}
