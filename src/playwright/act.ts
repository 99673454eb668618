// What the rules decided for one request, carried out on it. The request is held either by a Playwright
// route (route-rules.ts) or, for a request a rule's redirect led to, by Chromium's Fetch domain
// (redirect-follows.ts): both are an Exchange, so that every request is acted on by the same code.
import type { Outcome } from '../engine/index.js';
import { CSP_NOTE_HEADER, changeResponseHeaders, cspNote, injectScripts } from '../proxy/effects.js';

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

/** An answer given in the upstream's place. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A request held until the rules' decision is carried out. */
export interface Exchange {
  /** Whether the request loads a frame's document (Script rules act only on those). */
  isDocument: boolean;
  /** Lets the request go on (to the network), changed as the rules say. */
  pass(sent?: SentRequest): Promise<void>;
  /** Fails the request as the browser's own blocking does (net::ERR_BLOCKED_BY_CLIENT). */
  block(): Promise<void>;
  /** Answers the request in the upstream's place. */
  answer(answer: Answer): Promise<void>;
  /** Sends the request, changed as the rules say, and hands back the upstream's answer unfollowed. */
  fetch(sent: SentRequest): Promise<UpstreamAnswer>;
  /**
   * Answers a rule's redirect: a 307 to `location`, and the browser's request to `location` goes through
   * the rules in its turn.
   */
  redirect(location: string, headers: Record<string, string>): Promise<void>;
}

/** Headers as Playwright and Chromium take them: one string each (repeated values joined as HTTP joins them). */
export function flat(headers: HeaderValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
  }
  return out;
}

/** What the rules did (`outcome`, by the rules `acted`), carried out on the held request. */
export async function act(exchange: Exchange, outcome: Outcome, acted: string[]): Promise<void> {
  // A Redirect to a local file is served only by a proxy told to (--allow-files): passed through.
  if (outcome.url.startsWith('file:')) return exchange.pass();
  if (outcome.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, outcome.delayMs));
  if (outcome.cancelled) return exchange.block();
  const mark = { 'x-rulekeeper-rules': acted.join(' ') };
  // Redirect, Replace and QueryParam: a 307, as the proxy answers, so that the page sees the new URL.
  if (outcome.redirected) return exchange.redirect(outcome.url, mark);
  const body = outcome.requestBody?.type === 'static' ? outcome.requestBody.value : undefined;
  const sent: SentRequest = {
    headers: flat(outcome.requestHeaders),
    ...(body === undefined ? {} : { postData: body }),
  };
  // A `code` response is not run (as the proxy without --allow-code): the upstream answers.
  const response = outcome.response?.type === 'static' ? outcome.response : undefined;
  if (response?.serveWithoutRequest) {
    const headers = changeResponseHeaders({}, outcome.responseHeaders);
    return exchange.answer({
      status: response.statusCode,
      body: response.value,
      headers: { ...flat(headers), ...mark },
    });
  }
  const scripts = exchange.isDocument ? outcome.scripts : [];
  if (!response && outcome.responseHeaders.length === 0 && scripts.length === 0) return exchange.pass(sent);

  // An upstream redirect goes to the browser as it is, not followed here: the page must see it.
  const upstream = await exchange.fetch(sent);
  const headers: HeaderValues = changeResponseHeaders(upstream.headers(), outcome.responseHeaders);
  // As the proxy: a policy a Script rule removed (removeCSPHeader) is said.
  const note = cspNote(upstream.headers(), headers, outcome);
  if (note) headers[CSP_NOTE_HEADER] = note;
  // The body is given decoded: no encoding or length of the upstream's own.
  delete headers['content-encoding'];
  delete headers['content-length'];
  let text: string | Buffer = response ? response.value : await upstream.body();
  if (scripts.length > 0 && /text\/html/i.test(String(headers['content-type'] ?? '')))
    text = injectScripts(text.toString(), scripts);
  return exchange.answer({
    status: response?.statusCode ?? upstream.status(),
    headers: { ...flat(headers), ...mark },
    body: text,
  });
}
