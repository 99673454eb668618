// A request's way decided from its head, before its body is read: most go upstream streamed, with what
// the rules decided applied on the way; only one whose body some rule reads, or that the proxy answers
// itself, goes to mockttp's hook (hooked-request.ts), which reads it whole.
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { OngoingRequest } from 'mockttp';
import { bodyNeedsChunks, stripFlat, stripObject } from './hop-by-hop.js';
import { needsUrlForUpstreamName } from './ip-tunnels.js';
import type { Exchange, ProxyContext } from './proxy-context.js';

/** Flat raw headers ([name, value, name, value...]) as pairs. */
export const pairs = (flat: string[]) => {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i] ?? '', flat[i + 1] ?? '']);
  return out;
};

/** The headers the rules see and the upstream gets: hop-by-hop ones dropped, the body's framing our own. */
export function forwardedHeaders(headers: Record<string, string | string[] | undefined>) {
  const stripped = stripObject(headers);
  return bodyNeedsChunks(headers) ? { ...stripped, 'transfer-encoding': 'chunked' } : stripped;
}

/** Decides from the head whether the request needs the hook; if not, applies what the rules said. */
async function route(ctx: ProxyContext, request: OngoingRequest, exchange: Exchange): Promise<boolean> {
  const { options, byId } = ctx;
  const chunked = bodyNeedsChunks(request.headers);
  const ownHop = (headers: Record<string, string | string[] | undefined>) =>
    chunked ? { ...headers, 'transfer-encoding': 'chunked' } : headers;
  request.headers = forwardedHeaders(request.headers) as OngoingRequest['headers'];
  request.rawHeaders = pairs(stripFlat(request.rawHeaders.flat()));
  if (chunked) request.rawHeaders.push(['Transfer-Encoding', 'chunked']);
  // mockttp copies every answer written for listeners of its events, which this proxy has none of:
  // the copy would hold a whole answer however large.
  Reflect.deleteProperty(exchange.response, 'write');
  Reflect.deleteProperty(exchange.response, 'end');
  exchange.request = request;
  byId.set(request.id, exchange);
  exchange.response.once('close', () => byId.delete(request.id));
  answerLate(exchange, options.upstreamTimeoutMs);
  const rules = options.feed.current();
  // HTTPS to an IPv6 address goes upstream through the hook, which alone can name the upstream right.
  if (rules.readsBodies || needsUrlForUpstreamName(request)) return true;
  const { decided } = exchange;
  const decision =
    decided && decided.rules === rules && decided.url === request.url && decided.method === request.method
      ? decided.decision
      : ctx.decide(rules, request.url, request.method, request.headers);
  if (decision && decision.acted.length > 0) {
    const { outcome } = decision;
    const answered = outcome.cancelled || outcome.redirected || outcome.response?.serveWithoutRequest;
    if (answered || outcome.requestBody) return true;
    // Counted where the rules are carried out: a request sent on to the hook is counted there.
    options.hits?.acted(decision.acted);
    if (outcome.delayMs > 0) await new Promise((done) => setTimeout(done, outcome.delayMs));
    const headers = ownHop(stripObject(outcome.requestHeaders));
    request.headers = headers as OngoingRequest['headers'];
    request.rawHeaders = Object.entries(headers).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value ?? '']).map((one): [string, string] => [name, one]),
    );
    exchange.plan = { rules: decision.acted.join(', '), method: request.method, url: request.url, outcome };
  }
  // Streamed as it comes: mockttp would otherwise keep a copy of the body as it forwards it.
  request.body.asStream = () => request as unknown as Readable;
  return false;
}

/** The head matcher's test: whether the request goes to the hook, decided once per request. */
export function needsHook(ctx: ProxyContext): (request: OngoingRequest) => Promise<boolean> {
  return (request) => {
    const exchange = ctx.exchanges.get(request as unknown as IncomingMessage);
    if (!exchange) return Promise.resolve(true);
    // A failure here would be answered by mockttp with its message: the hook's own handling says less.
    exchange.route ??= route(ctx, request, exchange).catch((error: Error) => {
      ctx.options.log(`a request to ${request.url} failed in the proxy: ${error.message}`);
      return true;
    });
    return exchange.route;
  };
}

/**
 * A 504 for a request whose answer has not begun after `ms`. mockttp has no upstream timeout, so the
 * answer is written to the client's response directly (past any wrapper), and the connection is closed
 * after it; mockttp's own late attempt to answer then fails harmlessly.
 */
function answerLate(exchange: Exchange, ms: number): void {
  const { response } = exchange;
  const timer = setTimeout(() => {
    if (exchange.headBegun || response.headersSent || response.writableEnded) return;
    ServerResponse.prototype.writeHead.call(response, 504, {
      'content-type': 'text/plain; charset=utf-8',
      connection: 'close',
    });
    ServerResponse.prototype.end.call(
      response,
      `the upstream server did not answer within ${ms} ms\n`,
      'utf8',
    );
  }, ms);
  timer.unref();
  response.once('close', () => clearTimeout(timer));
}
