// `rulekeeper proxy`: an HTTP and HTTPS proxy (mockttp, from the HTTP Toolkit team) that applies a
// workspace's active rules through the same engine as POST /v1/trace, so the two never disagree.
//
// A request no rule acts on is forwarded by the proxy itself (passthrough.ts), off mockttp's way.
// What the rules decide from a request's head (most rules) is applied while the request and its answer
// stream through, with backpressure both ways. Only a request whose body some rule reads (a
// requestPayload filter, Request code) or that the proxy answers itself (Cancel, Redirect, a Response
// served without the request) goes through mockttp's hook, which reads the request whole, up to
// --max-body-bytes. Answers are changed as they are written to the client (answer-rewrite.ts).
//
// startProxy assembles the pieces: proxy-context.ts (what they share), head-route.ts (the way of a
// request decided from its head), hooked-request.ts (a request read whole by mockttp's hook).

import { readFile } from 'node:fs/promises';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:net';
import {
  completionCheckers,
  getLocal,
  type Mockttp,
  matchers,
  type OngoingRequest,
  requestSteps,
  webSocketSteps,
} from 'mockttp';
import { RULES_HEADER, rewriteAnswers } from './answer-rewrite.js';
import { createCodeRunner } from './code-runner.js';
import { forwardedHeaders, needsHook, pairs } from './head-route.js';
import { beforeRequest } from './hooked-request.js';
import { stripFlat } from './hop-by-hop.js';
import { interceptIpTunnels } from './ip-tunnels.js';
import { useExactLoopCheck } from './loop-check.js';
import { createPassthrough, type Passthrough, plainTarget } from './passthrough.js';
import { createProxyContext, type Exchange, type ProxyContext } from './proxy-context.js';
import type { ProxyOptions } from './proxy-options.js';
import { refuseRemote } from './remote-gate.js';

export { staticContentType } from './hooked-request.js';
export type { ProxyOptions } from './proxy-options.js';
export { RULES_HEADER };

/** A matcher that answers from the request's head, without waiting for its body. */
class HeadMatcher extends matchers.CallbackMatcher {
  constructor(private readonly test: (request: OngoingRequest) => boolean | Promise<boolean>) {
    super(() => true);
  }
  override async matches(request: OngoingRequest): Promise<boolean> {
    return this.test(request);
  }
}

export async function startProxy(options: ProxyOptions): Promise<{ port: number; stop(): Promise<void> }> {
  useExactLoopCheck();
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
  const ctx = createProxyContext(options, runner);
  const passthrough = createPassthrough(options);
  rewriteEveryAnswer(server, ctx, passthrough);
  await addRules(server, ctx);
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
      passthrough.close();
    },
  };
}

/**
 * Runs before mockttp sees a request: one no rule acts on takes the fast path (passthrough.ts), decided
 * here once; any other passes on to mockttp with its answer wrapped in the rules' plan for it.
 */
function rewriteEveryAnswer(server: Mockttp, ctx: ProxyContext, passthrough: Passthrough): void {
  const { options } = ctx;
  const app = (server as unknown as { app: { use(f: unknown): void; stack: unknown[] } }).app;
  app.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const exchange: Exchange = { response, headBegun: false };
    const target = plainTarget(request);
    const rules = target && options.feed.current();
    if (target && rules && !rules.readsBodies) {
      const method = request.method ?? 'GET';
      let decision: { value: ReturnType<ProxyContext['decide']> } | undefined;
      try {
        decision = { value: ctx.decide(rules, target.url, method, forwardedHeaders(request.headers)) };
      } catch {
        // Left to mockttp's way (head-route.ts), which asks again and logs what fails.
      }
      if (decision && (!decision.value || decision.value.acted.length === 0))
        return passthrough.forward(request, response, target);
      // head-route.ts uses it rather than ask the engine again.
      if (decision) exchange.decided = { rules, url: target.url, method, decision: decision.value };
    }
    ctx.exchanges.set(request, exchange);
    rewriteAnswers(
      response,
      () => exchange.plan,
      {
        maxBodyBytes: options.maxBodyBytes,
        runCode: (source, args) => ctx.code('Response', source, args),
        log: options.log,
      },
      () => {
        exchange.headBegun = true;
      },
    );
    next();
  });
  app.stack.unshift(app.stack.pop());
}

/** mockttp's rules: the hook for requests that need it, streaming for the rest, and WebSockets. */
async function addRules(server: Mockttp, ctx: ProxyContext): Promise<void> {
  const { options } = ctx;
  const connection = {
    ...(options.upstreamCas ? { additionalTrustedCAs: options.upstreamCas.map((cert) => ({ cert })) } : {}),
  };
  await server.addRequestRules(
    {
      matchers: [new HeadMatcher(needsHook(ctx))],
      steps: [new requestSteps.PassThroughStep({ ...connection, beforeRequest: beforeRequest(ctx) })],
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
}
