// `import { createRuntime } from 'rulekeeper/runtime'`: a workspace's rules kept current on this
// machine (see workspace-copy.ts), their `{{NAME}}` resolved with the values of its environment's
// variables, and compiled by the engine, so that a request is evaluated locally exactly as
// POST /v1/trace would evaluate it on the server in that environment. Runs in Node 20+ and in a browser service
// worker (fetch streams only, no Node modules).
import {
  compileRuleSet,
  type EngineRule,
  type RequestInput,
  type RuleSet,
  type TraceResult,
  toEngineRequest,
} from '../engine/index.js';
import { inEnvironment, type PairsCheck } from '../engine/variables.js';
import { createHitReporter, type HitSource } from './hit-reporter.js';
import { type FollowSettings, followWorkspace, type WorkspaceCopy } from './workspace-copy.js';

export type { Outcome, RequestInput, RuleSet, RuleVerdict, TraceResult } from '../engine/index.js';
export {
  createHitReporter,
  type HitReporter,
  type HitReporterOptions,
  type HitSource,
} from './hit-reporter.js';
export {
  EnvironmentNotFoundError,
  KeyRefusedError,
  type RuntimeGroup,
  type RuntimeRule,
} from './server-reads.js';
export type {
  FollowOptions,
  RuntimeChange,
  RuntimeEvents,
  RuntimeState,
  RuntimeStatus,
  WorkspaceCopy,
} from './workspace-copy.js';
export { followWorkspace } from './workspace-copy.js';

/** The follower's options; a runtime always keeps its copy (it evaluates against it). */
/** A runtime follows with an API key: it runs where people do not sign in (tests, proxies, CI). */
export type RuntimeOptions = Omit<FollowSettings, 'keepCopy'> & {
  key: string;
  /**
   * Tell the service which rules acted and how often (rule ids and counts only, at most every 10 s,
   * `POST /v1/hits`): default true; false sends nothing.
   */
  reportHits?: boolean;
  /** How often reports may go, in ms (default and most 10 s). */
  hitsIntervalMs?: number;
  /** Who reports (the Playwright fixture says `playwright`); `runtime` by default. */
  hitsSource?: HitSource;
  /**
   * The rule types' own checks, run on a rule its variables resolved (a header name must still be a
   * name): the proxy and the Playwright fixture pass them, as the server runs them. Without them only
   * what resolving itself can break is checked (a URL given another scheme, a line break in a header,
   * an emptied source): they compile schemas, which a browser service worker cannot.
   */
  pairsCheck?: PairsCheck;
};

/** No rule type checks: only what resolving breaks (see RuntimeOptions.pairsCheck). */
const noPairsCheck: PairsCheck = () => [];

export interface EvaluateOptions {
  /** `all` (the default, as the trace): every rule explained; `acted`: only those that acted (fast); `none`: the outcome alone. */
  explain?: 'all' | 'acted' | 'none';
  /** With `explain: 'all'`, inactive rules are explained too. */
  includeInactive?: boolean;
}

export interface Runtime extends WorkspaceCopy {
  /**
   * What the rules do to `request`, as `POST /v1/trace` answers it (`outcome` and `rules`). Throws a
   * TypeError naming the problem when the request is not one the engine takes (a relative URL).
   */
  evaluate(request: RequestInput, options?: EvaluateOptions): TraceResult;
  /** The compiled rules in force now, variables resolved (compiled once per change, on first use). */
  ruleSet(): RuleSet;
  /** Sends the hits counted so far now (they go every 10 s anyway, and on close). */
  flushHits(): Promise<void>;
}

/** Follows the workspace of `options.key` on `options.server`; see README "rulekeeper/runtime". */
export function createRuntime(options: RuntimeOptions): Runtime {
  const {
    reportHits = true,
    hitsIntervalMs,
    hitsSource = 'runtime',
    pairsCheck = noPairsCheck,
    ...follow
  } = options;
  const copy = followWorkspace({ ...follow, keepCopy: true });
  const hits =
    reportHits &&
    createHitReporter({
      server: options.server,
      key: options.key,
      source: hitsSource,
      ...(hitsIntervalMs === undefined ? {} : { intervalMs: hitsIntervalMs }),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  let compiled: RuleSet | undefined;
  /** The variables each rule took in the environment, by rule id (the trace's `variables` of a verdict). */
  let used = new Map<string, string[]>();
  copy.on('change', () => {
    compiled = undefined;
  });

  function ruleSet(): RuleSet {
    if (compiled) return compiled;
    const groupStatus = new Map(copy.groups().map((group) => [group.id, group.status]));
    // `{{API}}` in a destination acts as the environment's value of API, as the trace does there; a
    // rule its values make invalid does not act, and says why.
    const resolved = inEnvironment(copy.rules(), copy.values(), pairsCheck);
    used = resolved.used;
    compiled = compileRuleSet(
      resolved.rules.map((rule): EngineRule => {
        const status = rule.groupId ? groupStatus.get(rule.groupId) : undefined;
        return {
          id: rule.id,
          name: rule.name,
          ruleType: rule.ruleType,
          status: rule.status,
          pairs: rule.pairs as unknown as Record<string, unknown>[],
          // A Script rule's (absent from a server older than the field: Requestly's default applies).
          ...('removeCSPHeader' in rule ? { removeCSPHeader: rule.removeCSPHeader } : {}),
          ...(status ? { groupStatus: status } : {}),
          ...(rule.environmentProblems ? { environmentProblems: rule.environmentProblems } : {}),
        };
      }),
    );
    return compiled;
  }

  return {
    ...copy,
    ruleSet,
    evaluate(input, { explain = 'all', includeInactive = false } = {}) {
      const request = toEngineRequest(input);
      if ('details' in request) {
        const detail = request.details[0];
        throw new TypeError(`request${detail?.path ?? ''} ${detail?.message ?? 'is invalid'}`);
      }
      const set = ruleSet();
      if (explain === 'none') {
        const { outcome, acted } = set.evaluate(request);
        if (hits && acted.length > 0) hits.acted(acted);
        return { outcome, rules: [] };
      }
      const traced = explain === 'acted' ? set.traceActed(request) : set.trace(request, includeInactive);
      // Each verdict names the variables its rule took, as the trace's do.
      const result =
        used.size === 0
          ? traced
          : {
              ...traced,
              rules: traced.rules.map((verdict) => {
                const names = used.get(verdict.ruleId);
                return names ? { ...verdict, variables: names } : verdict;
              }),
            };
      if (hits) {
        const acted = result.rules.filter((rule) => rule.acted).map((rule) => rule.ruleId);
        if (acted.length > 0) hits.acted(acted);
      }
      return result;
    },
    flushHits: () => (hits ? hits.flush() : Promise.resolve()),
    close() {
      copy.close();
      if (hits) void hits.close();
    },
  };
}
