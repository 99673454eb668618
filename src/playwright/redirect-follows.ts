// The requests a rule's redirect leads to, held in Chromium through the Fetch domain so that the rules
// act on them too.
//
// Why not Playwright's routes: Playwright never routes a request a redirect leads to. Chromium pauses
// it, but Playwright continues it itself ("the handler will only be called for the first url if the
// response is a redirect": microsoft/playwright#2617, #33882, #39480), so a 307 fulfilled by a route
// sends the browser to the destination straight over the network. What Playwright offers instead each
// breaks what a proxy and a real browser show: route.continue({url}) changes the URL "in a way that is
// not observable by the page" (the page stays on the old URL, and relative links resolve against it),
// and fulfilling the first request with the destination's answer (route.fetch) leaves page.url(),
// location and a fetch's response.url on the old URL too (#27776, #33893).
//
// So a rule's redirect is answered with a 307, as the proxy answers it (decisions.md section 14), and
// the browser follows it as its own: the page sees the new URL, `redirectedFrom()`, a fetch's
// `redirected`. Before the 307 is answered its destination joins the patterns of the browser's own CDP
// session (a second Fetch client, beside Playwright's: Chromium holds the request for each), and when
// the browser's request for it comes, the rules act on it as on a routed request, a redirect of theirs
// included: a chain of rules is followed hop by hop, as the proxy would see it. Chromium refuses the
// 21st redirect of a chain (net::ERR_TOO_MANY_REDIRECTS); MAX_REDIRECTS bounds the chain here as well,
// for requests Chromium would not count.
//
// Limits: without a Browser's CDP (Firefox, WebKit, a persistent context) the 307 is answered alone and
// its destination is not routed. A destination is known by its URL only (Chromium's browser-wide
// events name no context): a request of the browser made afresh to that same URL between the 307 and
// the browser's following it would be held in its place.
import type { BrowserContext, CDPSession, Request } from '@playwright/test';
import type { Answer, Exchange, SentRequest, UpstreamAnswer } from './act.js';

/** As Chromium and the Fetch standard: a chain that redirects more often fails. */
export const MAX_REDIRECTS = 20;

/** The browser's request a redirect led to, as Chromium paused it. */
export interface FollowedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  postData?: string;
  isDocument: boolean;
}

/** What the routing knew of the request that was redirected, handed back with the request it led to. */
export interface RedirectedFrom<Input> {
  /** The first request of the chain, as Playwright routed it (for its page and frame). */
  request: Request;
  /** The redirected request as the engine saw it. */
  input: Input;
  /** How many redirects of the chain were answered, this one included. */
  hops: number;
}

export type FollowHandler<Input> = (
  followed: FollowedRequest,
  from: RedirectedFrom<Input>,
  /** The paused request as an Exchange, for the engine's `input` of it (its redirect's next hop). */
  exchangeFor: (input: Input) => Exchange,
) => Promise<void>;

interface Paused {
  requestId: string;
  resourceType: string;
  request: { url: string; method: string; headers: Record<string, string>; postData?: string };
}

/** A URL as Chromium requests it: resolved, serialised, without fragment. */
function requested(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/** A URL as a Fetch pattern matches it exactly: its wildcards and escape character escaped. */
const exactPattern = (url: string) => url.replace(/[\\*?]/g, (c) => `\\${c}`);

/**
 * Keeps Chromium's interception in place while nothing is waited for: a request is held only by the
 * interception that existed when it started, so it must be enabled before the pages' requests begin.
 */
const NONE = { urlPattern: 'http://rulekeeper.invalid/waits-for-nothing' };

/** Request headers as Fetch.continueRequest takes them; the browser adds the cookies itself. */
function headerList(headers: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'cookie')
    .map(([name, value]) => ({ name, value }));
}

export class RedirectFollows<Input> {
  /** The redirects answered whose request has not come yet, by URL without fragment. */
  private readonly waiting = new Map<string, RedirectedFrom<Input>[]>();
  /** Pattern updates, one at a time, so that the last one sent is the current list. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly context: BrowserContext,
    /** The browser's own CDP session, or none (not Chromium, or a persistent context without a Browser). */
    private readonly session: CDPSession | undefined,
    private readonly handle: FollowHandler<Input>,
    private readonly upstream?: (request: Request, sent: SentRequest) => Promise<UpstreamAnswer>,
  ) {
    session?.on('Fetch.requestPaused', (event) => {
      this.paused(session, event as Paused).catch(() => {});
    });
  }

  /**
   * Holds the requests a redirect leads to in the context's browser. The session is the browser's, not
   * a page's: a page's session would hold no request already under way when it was opened (a popup's
   * first load, a navigation that redirects at once), the browser's holds every page's from the start.
   * `upstream` answers instead of the network when the routing has one (runRuleTests).
   */
  static async open<Input>(
    context: BrowserContext,
    handle: FollowHandler<Input>,
    upstream?: (request: Request, sent: SentRequest) => Promise<UpstreamAnswer>,
  ): Promise<RedirectFollows<Input>> {
    let session: CDPSession | undefined;
    try {
      session = await context.browser()?.newBrowserCDPSession();
      await session?.send('Fetch.enable', { patterns: [NONE] });
    } catch {
      await session?.detach().catch(() => {});
      session = undefined; // not Chromium: a redirect is answered alone, its destination not routed
    }
    return new RedirectFollows(context, session, handle, upstream);
  }

  /**
   * Readies the browser's request to `location` to go through the rules; false when it cannot be held
   * (no CDP in this browser).
   */
  async expect(from: RedirectedFrom<Input>, location: string): Promise<boolean> {
    if (!this.session) return false;
    const url = requested(location);
    this.waiting.set(url, [...(this.waiting.get(url) ?? []), from]);
    await this.updatePatterns(this.session);
    return true;
  }

  async close(): Promise<void> {
    const session = this.session;
    this.waiting.clear();
    await session?.detach().catch(() => {});
  }

  private updatePatterns(session: CDPSession): Promise<void> {
    this.queue = this.queue.then(() => {
      const patterns = [...this.waiting.keys()].map((url) => ({ urlPattern: exactPattern(url) }));
      return session.send('Fetch.enable', { patterns: [NONE, ...patterns] });
    });
    // A closed browser's session fails: nothing is waited for there any more.
    return this.queue.then(
      () => {},
      () => {},
    );
  }

  private async paused(session: CDPSession, event: Paused): Promise<void> {
    const url = event.request.url;
    const waiting = this.waiting.get(url);
    // Another request (of this context or of another one of the browser): not the rules' to hold here.
    if (!waiting?.length) {
      await session.send('Fetch.continueRequest', { requestId: event.requestId });
      return;
    }
    const from = waiting.shift() as RedirectedFrom<Input>;
    if (waiting.length === 0) this.waiting.delete(url);
    void this.updatePatterns(session);
    const followed: FollowedRequest = {
      url,
      method: event.request.method,
      headers: event.request.headers,
      ...(event.request.postData === undefined ? {} : { postData: event.request.postData }),
      isDocument: event.resourceType === 'Document',
    };
    const { requestId } = event;
    try {
      await this.handle(followed, from, (input) => this.exchange(session, requestId, followed, from, input));
    } catch {
      // The upstream could not be reached, or the page went away meanwhile: the request fails as the
      // browser's own would (an answered request says so by throwing, and is left alone).
      await session.send('Fetch.failRequest', { requestId, errorReason: 'Failed' }).catch(() => {});
    }
  }

  /** The paused request as an Exchange. */
  private exchange(
    session: CDPSession,
    requestId: string,
    followed: FollowedRequest,
    from: RedirectedFrom<Input>,
    input: Input,
  ): Exchange {
    const answer = async ({ status, headers, body }: Answer) => {
      await session.send('Fetch.fulfillRequest', {
        requestId,
        responseCode: status,
        responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
        body: Buffer.from(body).toString('base64'),
      });
    };
    const upstream = this.upstream;
    const fetch = (sent: SentRequest): Promise<UpstreamAnswer> =>
      upstream
        ? upstream(from.request, sent)
        : this.context.request.fetch(followed.url, {
            method: followed.method,
            headers: sent.headers,
            data: sent.postData ?? followed.postData,
            maxRedirects: 0,
          });
    return {
      isDocument: followed.isDocument,
      async pass(sent) {
        if (upstream) {
          // The routing answers for the upstream (runRuleTests): the request goes to it, not the network.
          const got = await fetch(sent ?? { headers: followed.headers });
          return answer({ status: got.status(), headers: got.headers(), body: await got.body() });
        }
        await session.send('Fetch.continueRequest', {
          requestId,
          ...(sent ? { headers: headerList(sent.headers) } : {}),
          ...(sent?.postData === undefined
            ? {}
            : { postData: Buffer.from(sent.postData).toString('base64') }),
        });
      },
      async block() {
        await session.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
      },
      answer,
      fetch,
      redirect: async (location, headers) => {
        const next = { request: from.request, input, hops: from.hops + 1 };
        if (next.hops > MAX_REDIRECTS) {
          await session.send('Fetch.failRequest', { requestId, errorReason: 'Failed' });
          return;
        }
        await this.expect(next, location);
        await answer({ status: 307, headers: { location, ...headers }, body: '' });
      },
    };
  }
}
