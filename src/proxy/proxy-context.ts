// What the proxy's pieces share while it runs: its options, each request's exchange (from mockttp's first
// sight of it to its answer), the rules' `code` runner, and the engine's decision for a request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OngoingRequest } from 'mockttp';
import { type RuleSet, toEngineRequest } from '../engine/index.js';
import type { AnswerPlan } from './answer-rewrite.js';
import type { CodeRunner } from './code-runner.js';
import { engineInput } from './effects.js';
import type { ProxyOptions } from './proxy-options.js';

/** One request and its answer, from mockttp's first sight of them. */
export interface Exchange {
  response: ServerResponse;
  request?: OngoingRequest;
  /** What the rules do to the answer, once the request goes upstream. */
  plan?: AnswerPlan;
  /** Whether the answer's head has been begun (a rule may hold it while it reads the body). */
  headBegun: boolean;
  /** The engine's decision made from the head before mockttp saw the request (proxy-server.ts). */
  decided?: {
    rules: RuleSet;
    url: string;
    method: string;
    decision: ReturnType<RuleSet['evaluate']> | undefined;
  };
  /** Whether the request needs mockttp's hook (it is read whole), decided once. */
  route?: Promise<boolean>;
}

export interface ProxyContext {
  options: ProxyOptions;
  /** By the request Node parsed (set before mockttp sees it), and by mockttp's id once it has. */
  exchanges: WeakMap<IncomingMessage, Exchange>;
  byId: Map<string, Exchange>;
  /** Runs a rule's code, or says once per kind that it was not run (no --allow-code). */
  code(kind: string, source: string, args: Record<string, unknown>): string | undefined;
  /** Logs a message once for the proxy's life. */
  warnOnce(key: string, message: string): void;
  /** What the rules do to a request; undefined for a URL the engine does not handle (e.g. ftp:). */
  decide(
    rules: RuleSet,
    url: string,
    method: string,
    headers: OngoingRequest['headers'],
    body?: string,
  ): ReturnType<RuleSet['evaluate']> | undefined;
}

export function createProxyContext(options: ProxyOptions, runner: CodeRunner | undefined): ProxyContext {
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    options.log(message);
  };
  return {
    options,
    exchanges: new WeakMap(),
    byId: new Map(),
    warnOnce,
    code(kind, source, args) {
      if (!runner) {
        warnOnce(kind, `a ${kind} rule's code was not run: start with --allow-code to run it`);
        return undefined;
      }
      return runner.run(source, args);
    },
    decide(rules, url, method, headers, body) {
      const request = toEngineRequest(engineInput(url, method, headers, body));
      if ('details' in request) return undefined; // not a URL the engine handles (e.g. ftp:)
      return rules.evaluate(request);
    },
  };
}
