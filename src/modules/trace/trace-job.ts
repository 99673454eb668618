// One trace's work, where it runs (a worker thread of the pool, or this thread for the CLI): unsaved
// rules validated (compiling their patterns is the costly part of that), rules compiled, the request
// evaluated. Plain data in and out, so that it can cross to a worker and back.
import {
  compileRuleSet,
  type EngineRequest,
  type EngineRule,
  type RuleSet,
  type TraceResult,
} from '../../engine/index.js';
import { inEnvironment } from '../../engine/variables.js';
import { checkResolvedPairs } from '../../engine/variables-check.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../../errors.js';
import { isPlainObject } from '../../http/payload.js';
import { decodePage } from '../../jobs/job-pages.js';
import { convertOlderFormats } from '../../model/requestly-older-formats.js';
import { readRule } from '../rules/rules-input.js';
import type { ListedRuleRow } from '../shared/listed-rules-store.js';

/** A group an unsaved rule names: its status, or the error naming it deserves (404 or 403). */
export type GroupCheck = { status: string } | { code: ErrorCode };

export interface TraceJob {
  request: EngineRequest;
  includeInactive: boolean;
  /** How much to explain: every rule, the rules that acted, or none (the outcome alone). */
  explain?: 'all' | 'acted' | 'none';
  /** Unsaved rules as sent, with what each group they name is (looked up by the caller). */
  inline?: { bodies: unknown[]; groups: Record<string, GroupCheck>; maxDelayMs: number };
  /**
   * Saved rules: `pages` of them (job-pages.ts), kept compiled under `cacheKey` when one is given; only
   * the key when the runner may hold them already (it answers `missing` when it does not).
   */
  saved?: { cacheKey?: string; pages?: Uint8Array[] };
  /**
   * The values of the environment the rules are resolved in (decisions §20), by name; sent with the
   * rules (a kept set was resolved in the environment its cache key names).
   */
  values?: [string, string][];
}

/** The rules compiled in one environment, and the variables each took (by rule id). */
interface Compiled {
  set: RuleSet;
  used: Map<string, string[]>;
}

export type TraceOutcome =
  | { ok: true; result: TraceResult & { warnings?: ErrorDetail[]; variables: string[] } }
  | { ok: false; code: ErrorCode; details: ErrorDetail[] }
  | { missing: true };

/**
 * Unsaved rules validated as POST /v1/rules validates them, errors pointing into `/rules/N`, after the
 * conversions an import makes (older formats), so that a rule is tried as it will be imported; what
 * was converted goes into `warnings`.
 */
function inlineRules(
  { bodies, groups, maxDelayMs }: NonNullable<TraceJob['inline']>,
  warnings: ErrorDetail[],
): EngineRule[] {
  const rules: (EngineRule & { groupId?: string })[] = [];
  const details: ErrorDetail[] = [];
  let code: ErrorCode | undefined;
  for (const [index, sent] of bodies.entries()) {
    const converted = isPlainObject(sent) ? convertOlderFormats(sent) : undefined;
    const body = converted?.record ?? sent;
    for (const message of converted?.warnings ?? []) warnings.push({ path: `/rules/${index}`, message });
    try {
      const { write, pairs } = readRule(body, { creating: true, maxDelayMs });
      rules.push({
        id: `inline:${index}`,
        name: write.name ?? '',
        ruleType: write.ruleType as string,
        status: write.status ?? 'Inactive',
        pairs: pairs ?? [],
        ...(write.removeCSPHeader === undefined ? {} : { removeCSPHeader: write.removeCSPHeader }),
        ...(write.groupId ? { groupId: write.groupId } : {}),
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (code !== 'RULE_PAYLOAD_INVALID') code = error.code;
      for (const detail of error.details ?? []) {
        const path = converted ? converted.paths.toSent(detail.path) : detail.path;
        details.push({ ...detail, path: `/rules/${index}${path}` });
      }
    }
  }
  if (code) throw new AppError(code, details);
  // References last, as for POST /v1/rules: each rule's group, for its status.
  for (const [index, rule] of rules.entries()) {
    if (!rule.groupId) continue;
    const group = groups[rule.groupId] ?? { code: 'GROUP_NOT_FOUND' };
    const detail = { path: `/rules/${index}/groupId`, message: `group "${rule.groupId}"` };
    if ('code' in group) throw new AppError(group.code, [detail]);
    rule.groupStatus = group.status;
  }
  return rules;
}

/** A stored rule as the engine takes it. */
function engineRule(row: ListedRuleRow): EngineRule {
  const { id, name, ruleType, status, groupStatus, pairs, removeCSPHeader } = row;
  return {
    id,
    name,
    ruleType,
    status,
    ...(groupStatus ? { groupStatus } : {}),
    pairs: JSON.parse(pairs),
    ...(removeCSPHeader === undefined ? {} : { removeCSPHeader }),
  };
}

/** Runs jobs, keeping the rule sets compiled under a cache key (the least recently used go first). */
export function createTraceJobs(maxKept: number) {
  const kept = new Map<string, Compiled>();

  function compiled(rules: EngineRule[], values: Map<string, string>): Compiled {
    const resolved = inEnvironment(rules, values, checkResolvedPairs);
    return { set: compileRuleSet(resolved.rules), used: resolved.used };
  }

  function savedSet(
    { cacheKey, pages }: NonNullable<TraceJob['saved']>,
    values: Map<string, string>,
  ): Compiled | undefined {
    const hit = cacheKey === undefined ? undefined : kept.get(cacheKey);
    if (hit && cacheKey !== undefined) {
      kept.delete(cacheKey);
      kept.set(cacheKey, hit);
      return hit;
    }
    if (!pages) return undefined;
    const set = compiled(
      pages.flatMap((page) => decodePage<{ rules: ListedRuleRow[] }>(page).rules.map(engineRule)),
      values,
    );
    if (cacheKey !== undefined) {
      if (kept.size >= maxKept) kept.delete(kept.keys().next().value as string);
      kept.set(cacheKey, set);
    }
    return set;
  }

  return function run(job: TraceJob): TraceOutcome {
    try {
      const warnings: ErrorDetail[] = [];
      const values = new Map(job.values ?? []);
      const found = job.inline
        ? compiled(inlineRules(job.inline, warnings), values)
        : savedSet(job.saved ?? { pages: [] }, values);
      if (!found) return { missing: true };
      const { set, used } = found;
      let actedIds: string[] = [];
      const traced =
        job.explain === 'none'
          ? (() => {
              const { outcome, acted } = set.evaluate(job.request);
              actedIds = acted;
              return { outcome, rules: [] };
            })()
          : job.explain === 'acted'
            ? set.traceActed(job.request)
            : set.trace(job.request, job.includeInactive);
      // Each verdict names the variables its rule took; the answer lists them once.
      const rules = traced.rules.map((verdict) => {
        const names = used.get(verdict.ruleId);
        return names ? { ...verdict, variables: names } : verdict;
      });
      const variables = [
        ...new Set([...rules.map((r) => r.ruleId), ...actedIds].flatMap((id) => used.get(id) ?? [])),
      ];
      const result = { outcome: traced.outcome, rules, variables };
      return { ok: true, result: warnings.length > 0 ? { ...result, warnings } : result };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { ok: false, code: error.code, details: error.details ?? [] };
    }
  };
}
