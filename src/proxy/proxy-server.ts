// `rulekeeper proxy`: an HTTP and HTTPS proxy (mockttp, from the HTTP Toolkit team) that applies a
// workspace's active rules through the same engine as POST /v1/trace, so the two never disagree.
//
// What the rules decide from a request's head (most rules) is applied while the request and its answer
// stream through, with backpressure both ways. Only a request whose body some rule reads (a
// requestPayload filter, Request code) or that the proxy answers itself (Cancel, Redirect, a Response
// served without the request) goes through mockttp's hook, which reads the request whole, up to
// --max-body-bytes. Answers are changed as they are written to the client (answer-rewrite.ts).

import { readFile } from 'node:fs/promises';
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import { ServerResponse, STATUS_CODES } from 'node:http';
import type { Server } from 'node:net';
import type { Readable } from 'node:stream';
import {
  type CompletedRequest,
  completionCheckers,
  getLocal,
  type Mockttp,
  matchers,
  type OngoingRequest,
  requestSteps,
  webSocketSteps,
} from 'mockttp';
import { type RuleSet, toEngineRequest } from '../engine/index.js';
import { type AnswerPlan, RULES_HEADER, rewriteAnswers } from './answer-rewrite.js';
import { CodeError, createCodeRunner } from './code-runner.js';
import { engineInput } from './effects.js';
import { bodyNeedsChunks, stripFlat, stripObject } from './hop-by-hop.js';
import { interceptIpTunnels, needsUrlForUpstreamName } from './ip-tunnels.js';
import { localFile } from './local-files.js';
import { refuseRemote } from './remote-gate.js';
import type { RuleFeed } from './rule-feed.js';

export { RULES_HEADER };

export interface ProxyOptions {
  /** 0: any free port. mockttp listens on every interface (it takes no address): see allowRemote. */
  port: number;
  ca: { keyPath: string; certPath: string };
  feed: Pick<RuleFeed, 'current'>;
  /** Run rules' `code` (Response and Request) in a worker, each call limited in time and memory. */
  allowCode: boolean;
  codeTimeoutMs: number;
  /** The code worker's heap limit (default 64 MB). */
  codeMemoryMb?: number;
  /** An upstream that has not begun to answer by then gets the client a 504. */
  upstreamTimeoutMs: number;
  /** The most of a body a rule may need whole (request or answer); past it the body streams unchanged. */
  maxBodyBytes: number;
  /** Serve Redirects to local files from this directory (and nowhere else). */
  allowFilesDir?: string;
  /** Serve clients of other machines too (default: loopback clients only). */
  allowRemote?: boolean;
  /** Certificates to trust for upstream HTTPS besides the system's (PEM text). */
  upstreamCas?: string[];
  log: (message: string) => void;
}

type CallbackRequestResult = requestSteps.CallbackRequestResult;
type CallbackResponseResult = requestSteps.CallbackResponseResult;

/** One request and its answer, from mockttp's first sight of them. */
interface Exchange {
  response: ServerResponse;
  request?: OngoingRequest;
  /** What the rules do to the answer, once the request goes upstream. */
  plan?: AnswerPlan;
  /** Whether the answer's head has been begun (a rule may hold it while it reads the body). */
  headBegun: boolean;
  /** Whether the request needs mockttp's hook (it is read whole), decided once. */
  route?: Promise<boolean>;
}

/** A matcher that answers from the request's head, without waiting for its body. */
class HeadMatcher extends matchers.CallbackMatcher {
  constructor(private readonly test: (request: OngoingRequest) => boolean | Promise<boolean>) {
    super(() => true);
  }
  override async matches(request: OngoingRequest): Promise<boolean> {
    return this.test(request);
  }
}

const pairs = (flat: string[]) => {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i] ?? '', flat[i + 1] ?? '']);
  return out;
};

/** The ids of the active rules that filter on request bodies (named when a body is too large). */
function bodyReaders(rules: RuleSet): string {
  return rules.rules
    .filter((rule) => !rule.inactive && JSON.stringify(rule.rule.pairs).includes('"requestPayload"'))
    .map((rule) => rule.rule.id)
    .join(', ');
}

export async function startProxy(options: ProxyOptions): Promise<{ port: number; stop(): Promise<void> }> {
  // mockttp buffers a request it hands to a hook up to this size (a larger one streams on unread).
  const server: Mockttp = getLocal({
    https: options.ca,
    recordTraffic: false,
    http2: false,
    maxBodySize: options.maxBodyBytes,
  });
  const runner = options.allowCode
    ? createCodeRunner({ timeoutMs: options.codeTimeoutMs, memoryMb: options.codeMemoryMb ?? 64 })
    : undefined;
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const byId = new Map<string, Exchange>();
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    options.log(message);
  };

  function code(kind: string, source: string, args: Record<string, unknown>): string | undefined {
    if (!runner) {
      warnOnce(kind, `a ${kind} rule's code was not run: start with --allow-code to run it`);
      return undefined;
    }
    return runner.run(source, args);
  }

  // Every answer passes through the rules' plan for it; this runs before mockttp sees the request.
  const app = (server as unknown as { app: { use(f: unknown): void; stack: unknown[] } }).app;
  app.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const exchange: Exchange = { response, headBegun: false };
    exchanges.set(request, exchange);
    rewriteAnswers(
      response,
      () => exchange.plan,
      {
        maxBodyBytes: options.maxBodyBytes,
        runCode: (source, args) => code('Response', source, args),
        log: options.log,
      },
      () => {
        exchange.headBegun = true;
      },
    );
    next();
  });
  app.stack.unshift(app.stack.pop());

  function decide(
    rules: RuleSet,
    url: string,
    method: string,
    headers: OngoingRequest['headers'],
    body?: string,
  ) {
    const request = toEngineRequest(engineInput(url, method, headers, body));
    if ('details' in request) return undefined; // not a URL the engine handles (e.g. ftp:)
    return rules.evaluate(request);
  }

  /** Decides from the head whether the request needs the hook; if not, applies what the rules said. */
  async function route(request: OngoingRequest, exchange: Exchange): Promise<boolean> {
    const chunked = bodyNeedsChunks(request.headers);
    const ownHop = (headers: Record<string, string | string[] | undefined>) =>
      chunked ? { ...headers, 'transfer-encoding': 'chunked' } : headers;
    request.headers = ownHop(stripObject(request.headers)) as OngoingRequest['headers'];
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
    const decision = decide(rules, request.url, request.method, request.headers);
    if (decision && decision.acted.length > 0) {
      const { outcome } = decision;
      const answered = outcome.cancelled || outcome.redirected || outcome.response?.serveWithoutRequest;
      if (answered || outcome.requestBody) return true;
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

  const needsHook = (request: OngoingRequest): Promise<boolean> => {
    const exchange = exchanges.get(request as unknown as IncomingMessage);
    if (!exchange) return Promise.resolve(true);
    // A failure here would be answered by mockttp with its message: the hook's own handling says less.
    exchange.route ??= route(request, exchange).catch((error: Error) => {
      options.log(`a request to ${request.url} failed in the proxy: ${error.message}`);
      return true;
    });
    return exchange.route;
  };

  async function fileAnswer(url: string, rules: string): Promise<CallbackResponseResult | undefined> {
    if (!options.allowFilesDir) {
      warnOnce(
        'files',
        'a Redirect to a local file was passed through: start with --allow-files DIR to serve files',
      );
      return undefined;
    }
    const file = await localFile(options.allowFilesDir, url, options.maxBodyBytes);
    if (file.status === 200) return { statusCode: 200, headers: { [RULES_HEADER]: rules }, body: file.body };
    return textAnswer(file.status, file.message, rules);
  }

  async function beforeRequest(request: CompletedRequest): Promise<CallbackRequestResult> {
    const exchange = byId.get(request.id);
    const rules = options.feed.current();
    const length = Number(request.headers['content-length'] ?? 0);
    // mockttp hands an empty body to the hook when the body went past its limit (it then streams).
    const truncated =
      request.body.buffer.length === 0 &&
      (length > options.maxBodyBytes || (exchange?.request !== undefined && !exchange.request.readableEnded));
    const limit = `its body is larger than --max-body-bytes (${options.maxBodyBytes})`;
    if (truncated && rules.readsBodies)
      options.log(`rules ${bodyReaders(rules)} skipped for ${request.method} ${request.url}: ${limit}`);
    const body = !truncated && request.body.buffer.length > 0 ? await request.body.getText() : undefined;
    const upstream = needsUrlForUpstreamName(request) ? { url: request.url } : {};
    const decision = decide(rules, request.url, request.method, request.headers, body);
    if (!decision || decision.acted.length === 0) return upstream;
    const { outcome } = decision;
    const rules_ = decision.acted.join(', ');
    try {
      if (outcome.cancelled) return { response: 'close' };
      if (outcome.delayMs > 0) await new Promise((done) => setTimeout(done, outcome.delayMs));
      if (outcome.redirected) {
        if (!outcome.url.startsWith('file:'))
          return {
            response: {
              statusCode: 307,
              headers: { location: outcome.url, [RULES_HEADER]: rules_ },
              body: '',
            },
          };
        const file = await fileAnswer(outcome.url, rules_);
        if (file) return { response: file };
      }
      const mock = outcome.response;
      if (mock?.serveWithoutRequest) {
        const value =
          mock.type === 'code'
            ? code('Response', mock.value, { method: request.method, url: request.url })
            : mock.value;
        if (value !== undefined)
          return {
            response: {
              statusCode: mock.statusCode,
              // The reason phrase of its status ("201 Created", never "201 OK"), and a content type.
              statusMessage: mock.statusText ?? STATUS_CODES[mock.statusCode] ?? '',
              headers: { 'content-type': staticContentType(value), [RULES_HEADER]: rules_ },
              body: value,
            },
          };
      }
      let newBody: string | undefined;
      const sent = outcome.requestBody;
      if (sent?.type === 'code') {
        if (truncated)
          options.log(`rules ${sent.ruleId} skipped for ${request.method} ${request.url}: ${limit}`);
        else newBody = code('Request', sent.value, { method: request.method, url: request.url, body });
      } else if (sent) newBody = sent.value;
      if (exchange) exchange.plan = { rules: rules_, method: request.method, url: request.url, outcome };
      const headers = stripObject(outcome.requestHeaders);
      if (truncated && newBody === undefined) {
        // The body streams on after what mockttp read: it cannot have a length computed from it.
        delete headers['content-length'];
        headers['transfer-encoding'] = 'chunked';
      }
      return { ...upstream, headers, ...(newBody !== undefined ? { body: newBody } : {}) };
    } catch (error) {
      if (error instanceof CodeError) return { response: textAnswer(500, error.message, rules_) };
      // Whatever failed, the client is told nothing of this machine (no paths, no stack).
      options.log(`a request to ${request.url} failed in the proxy: ${(error as Error).message}`);
      return { response: textAnswer(500, 'the proxy could not apply the rules to this request', rules_) };
    }
  }

  const connection = {
    ...(options.upstreamCas ? { additionalTrustedCAs: options.upstreamCas.map((cert) => ({ cert })) } : {}),
  };
  await server.addRequestRules(
    {
      matchers: [new HeadMatcher(needsHook)],
      steps: [new requestSteps.PassThroughStep({ ...connection, beforeRequest })],
      completionChecker: new completionCheckers.Always(),
    },
    {
      matchers: [new matchers.WildcardMatcher()],
      steps: [new requestSteps.PassThroughStep(connection)],
      completionChecker: new completionCheckers.Always(),
    },
  );
  await server.addWebSocketRules({
    // A genuine upgrade keeps Connection: Upgrade and Upgrade; the other hop-by-hop headers go.
    matchers: [
      new HeadMatcher((request) => {
        request.rawHeaders = pairs(stripFlat(request.rawHeaders.flat(), true));
        return true;
      }),
    ],
    steps: [new webSocketSteps.PassThroughWebSocketStep(connection)],
    completionChecker: new completionCheckers.Always(),
  });
  const ca = {
    key: await readFile(options.ca.keyPath, 'utf8'),
    cert: await readFile(options.ca.certPath, 'utf8'),
  };
  await server.start(options.port);
  // HTTPS to an IP address needs a certificate naming the address, which mockttp cannot make.
  interceptIpTunnels(server, ca, options.log);
  if (!options.allowRemote) refuseRemote((server as unknown as { server: Server | HttpServer }).server);
  return {
    port: server.port,
    stop: async () => {
      await runner?.stop();
      await server.stop();
    },
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

/** What a body the proxy answers by itself is: JSON when it parses as JSON, else text. */
export function staticContentType(value: string): string {
  try {
    JSON.parse(value);
    return 'application/json; charset=utf-8';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

function textAnswer(statusCode: number, message: string, rules: string): CallbackResponseResult {
  return {
    statusCode,
    headers: { 'content-type': 'text/plain; charset=utf-8', [RULES_HEADER]: rules },
    body: `${message}\n`,
  };
}
