// `rulekeeper proxy`: an HTTP and HTTPS proxy (mockttp, from the HTTP Toolkit team) that applies a
// workspace's active rules through the same engine as POST /v1/trace, so the two never disagree.
//
// A request no rule acts on is passed through untouched and streamed both ways. A request some rule
// acts on (or any request, while an active rule filters on request bodies) goes through hooks that
// see the whole request and answer, which mockttp buffers.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { type Outcome, toEngineRequest } from '../engine/index.js';
import { CodeError, changeResponseHeaders, engineInput, injectScripts, runCode } from './effects.js';
import type { RuleFeed } from './rule-feed.js';

export interface ProxyOptions {
  /** 0: any free port. mockttp listens on every interface (it takes no address): see allowRemote. */
  port: number;
  ca: { keyPath: string; certPath: string };
  feed: Pick<RuleFeed, 'current'>;
  /** Run rules' `code` (Response and Request), each call limited to `codeTimeoutMs`. */
  allowCode: boolean;
  codeTimeoutMs: number;
  /** An upstream that has not begun to answer by then gets the client a 504. */
  upstreamTimeoutMs: number;
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
type PassThroughResponse = requestSteps.PassThroughResponse;

interface Decision {
  outcome: Outcome;
  acted: string[];
}

/** The header that lists the rules that acted on an answer. */
export const RULES_HEADER = 'x-rulekeeper-rules';

/** A callback matcher that answers from the request's head, without waiting for its body. */
class HeadMatcher extends matchers.CallbackMatcher {
  constructor(private readonly test: (request: OngoingRequest) => boolean) {
    super(() => true);
  }
  override async matches(request: OngoingRequest): Promise<boolean> {
    return this.test(request);
  }
}

export async function startProxy(options: ProxyOptions): Promise<{ port: number; stop(): Promise<void> }> {
  const server: Mockttp = getLocal({ https: options.ca, recordTraffic: false, http2: false });
  // What the rules decided for a request on its way upstream, until its answer comes back. An answer
  // that never comes (an upstream error) leaves its entry; the oldest go beyond a bound.
  const decisions = new Map<string, Decision>();
  const remember = (id: string, decision: Decision) => {
    if (decisions.size >= 10_000) decisions.delete(decisions.keys().next().value as string);
    decisions.set(id, decision);
  };
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    options.log(message);
  };

  function decide(url: string, method: string, headers: OngoingRequest['headers'], body?: string) {
    const request = toEngineRequest(engineInput(url, method, headers, body));
    if ('details' in request) return undefined; // not a URL the engine handles (e.g. ftp:)
    return options.feed.current().evaluate(request);
  }

  const acts = (request: OngoingRequest): boolean => {
    answerLate(request, options.upstreamTimeoutMs);
    if (options.feed.current().readsBodies) return true;
    return (decide(request.url, request.method, request.headers)?.acted.length ?? 0) > 0;
  };

  async function localFile(url: string, rules: string): Promise<CallbackResponseResult | undefined> {
    const dir = options.allowFilesDir;
    if (!dir) {
      warnOnce(
        'files',
        'a Redirect to a local file was passed through: start with --allow-files DIR to serve files',
      );
      return undefined;
    }
    const path = resolve(dir, fileURLToPath(url).replace(/^\/+/, ''));
    const inside = relative(resolve(dir), path);
    if (inside.split(sep)[0] === '..' || isAbsolute(inside))
      return textAnswer(403, `${path} is outside ${dir}`, rules);
    try {
      return { statusCode: 200, headers: { [RULES_HEADER]: rules }, body: await readFile(path) };
    } catch (error) {
      return textAnswer(404, `cannot read ${path}: ${(error as Error).message}`, rules);
    }
  }

  function code(kind: string, source: string, args: Record<string, unknown>): string | undefined {
    if (!options.allowCode) {
      warnOnce(kind, `a ${kind} rule's code was not run: start with --allow-code to run it`);
      return undefined;
    }
    return runCode(source, args, options.codeTimeoutMs);
  }

  async function beforeRequest(request: CompletedRequest): Promise<CallbackRequestResult> {
    const body = request.body.buffer.length > 0 ? await request.body.getText() : undefined;
    const decision = decide(request.url, request.method, request.headers, body);
    if (!decision || decision.acted.length === 0) return {};
    const { outcome } = decision;
    const rules = decision.acted.join(', ');
    if (outcome.cancelled) return { response: 'close' };
    if (outcome.delayMs > 0) await new Promise((done) => setTimeout(done, outcome.delayMs));
    if (outcome.redirected) {
      if (!outcome.url.startsWith('file:'))
        return {
          response: { statusCode: 307, headers: { location: outcome.url, [RULES_HEADER]: rules }, body: '' },
        };
      const file = await localFile(outcome.url, rules);
      if (file) return { response: file };
    }
    try {
      const mock = outcome.response;
      if (mock?.serveWithoutRequest) {
        const value =
          mock.type === 'code'
            ? code('Response', mock.value, { method: request.method, url: request.url })
            : mock.value;
        if (value !== undefined)
          return {
            response: { statusCode: mock.statusCode, headers: { [RULES_HEADER]: rules }, body: value },
          };
      }
      let newBody: string | undefined;
      const sent = outcome.requestBody;
      if (sent?.type === 'code')
        newBody = code('Request', sent.value, { method: request.method, url: request.url, body });
      else if (sent) newBody = sent.value;
      remember(request.id, decision);
      return { headers: outcome.requestHeaders, ...(newBody !== undefined ? { body: newBody } : {}) };
    } catch (error) {
      if (error instanceof CodeError) return { response: textAnswer(500, error.message, rules) };
      throw error;
    }
  }

  async function beforeResponse(
    response: PassThroughResponse,
    request: CompletedRequest,
  ): Promise<CallbackResponseResult> {
    const decision = decisions.get(request.id);
    decisions.delete(request.id);
    if (!decision) return {};
    const { outcome } = decision;
    const headers = changeResponseHeaders(response.headers, outcome.responseHeaders);
    headers[RULES_HEADER] = decision.acted.join(', ');
    let statusCode = response.statusCode;
    let body: string | undefined;
    const mock = outcome.response;
    try {
      if (mock && !mock.serveWithoutRequest) {
        const value =
          mock.type === 'code'
            ? code('Response', mock.value, {
                method: request.method,
                url: request.url,
                response: await response.body.getText(),
                responseType: response.headers['content-type'],
                statusCode: response.statusCode,
              })
            : mock.value;
        if (value !== undefined) {
          body = value;
          statusCode = mock.statusCode;
        }
      }
    } catch (error) {
      if (error instanceof CodeError) return textAnswer(500, error.message, headers[RULES_HEADER]);
      throw error;
    }
    const html = /text\/html/i.test(String(headers['content-type'] ?? ''));
    if (outcome.scripts.length > 0 && html) {
      body = injectScripts(body ?? (await response.body.getText()) ?? '', outcome.scripts);
      if (headers['content-security-policy'] !== undefined) {
        delete headers['content-security-policy'];
        headers['x-rulekeeper-csp'] = 'removed: it would block the scripts the rules injected';
      }
    }
    return { statusCode, headers, ...(body !== undefined ? { body } : {}) };
  }

  const connection = {
    ...(options.upstreamCas ? { additionalTrustedCAs: options.upstreamCas.map((cert) => ({ cert })) } : {}),
  };
  await server.addRequestRules(
    {
      // mockttp listens on every interface: clients of other machines are refused unless allowed,
      // so that a proxy started on a laptop is not an open proxy of its network.
      matchers: [new HeadMatcher((request) => !options.allowRemote && !isLoopback(request.remoteIpAddress))],
      steps: [
        new requestSteps.FixedResponseStep(
          403,
          undefined,
          'rulekeeper proxy serves this machine only; start it with --allow-remote to serve others\n',
          { 'content-type': 'text/plain; charset=utf-8' },
        ),
      ],
      completionChecker: new completionCheckers.Always(),
    },
    {
      matchers: [new HeadMatcher(acts)],
      steps: [new requestSteps.PassThroughStep({ ...connection, beforeRequest, beforeResponse })],
      completionChecker: new completionCheckers.Always(),
    },
    {
      matchers: [new matchers.WildcardMatcher()],
      steps: [new requestSteps.PassThroughStep(connection)],
      completionChecker: new completionCheckers.Always(),
    },
  );
  await server.addWebSocketRules({
    matchers: [new matchers.WildcardMatcher()],
    steps: [new webSocketSteps.PassThroughWebSocketStep(connection)],
    completionChecker: new completionCheckers.Always(),
  });
  // A request that ended without an answer from upstream leaves no decision behind.
  await server.on('abort', (request) => decisions.delete(request.id));
  await server.start(options.port);
  return { port: server.port, stop: () => server.stop() };
}

/**
 * A 504 for a request whose answer has not begun after `ms`. mockttp has no upstream timeout, so the
 * answer is written to the client's response (the one its HTTP/1.1 connection is serving) directly,
 * and the connection is closed after it; mockttp's own late attempt to answer then fails harmlessly.
 */
function answerLate(request: OngoingRequest, ms: number): void {
  // The raw IncomingMessage under mockttp's request: its socket knows the response it is serving.
  const { socket } = request as unknown as { socket?: { _httpMessage?: ServerResponse } };
  const response = socket?._httpMessage;
  if (!response) return;
  const timer = setTimeout(() => {
    if (response.headersSent || response.writableEnded) return;
    response.writeHead(504, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    response.end(`the upstream server did not answer within ${ms} ms\n`);
  }, ms);
  timer.unref();
  response.once('close', () => clearTimeout(timer));
}

function isLoopback(address: string | undefined): boolean {
  return !!address && /^(127\.|::1$|::ffff:127\.)/.test(address);
}

function textAnswer(statusCode: number, message: string, rules: string): CallbackResponseResult {
  return {
    statusCode,
    headers: { 'content-type': 'text/plain; charset=utf-8', [RULES_HEADER]: rules },
    body: `${message}\n`,
  };
}
