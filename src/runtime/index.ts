// `import { createRuntime } from 'rulekeeper/runtime'`: a workspace's rules kept current on this
// machine (see workspace-copy.ts) and compiled by the engine, so that a request is evaluated locally
// exactly as POST /v1/trace would evaluate it on the server. Runs in Node 20+ and in a browser service
// worker (fetch streams only, no Node modules).
import {
  compileRuleSet,
  type EngineRule,
  type RequestInput,
  type RuleSet,
  type TraceResult,
  toEngineRequest,
} from '../engine/index.js';
import { type FollowSettings, followWorkspace, type WorkspaceCopy } from './workspace-copy.js';

export type { Outcome, RequestInput, RuleSet, RuleVerdict, TraceResult } from '../engine/index.js';
export { KeyRefusedError, type RuntimeGroup, type RuntimeRule } from './server-reads.js';
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
export type RuntimeOptions = Omit<FollowSettings, 'keepCopy'> & { key: string };

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
  /** The compiled rules in force now (compiled once per change, on first use). */
  ruleSet(): RuleSet;
}

/** Follows the workspace of `options.key` on `options.server`; see README "rulekeeper/runtime". */
export function createRuntime(options: RuntimeOptions): Runtime {
  const copy = followWorkspace({ ...options, keepCopy: true });
  let compiled: RuleSet | undefined;
  copy.on('change', () => {
    compiled = undefined;
  });

  function ruleSet(): RuleSet {
    if (compiled) return compiled;
    const groupStatus = new Map(copy.groups().map((group) => [group.id, group.status]));
    compiled = compileRuleSet(
      copy.rules().map((rule): EngineRule => {
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
      if (explain === 'none') return { outcome: set.evaluate(request).outcome, rules: [] };
      if (explain === 'acted') return set.traceActed(request);
      return set.trace(request, includeInactive);
    },
  };
}
