// POST /v1/trace: which rules (the workspace's, some of them, or unsaved ones), the engine's verdicts,
// and each workspace's rules compiled once per revision, for every trace until the next change.
import type { Config } from '../../config.js';
import type { Db } from '../../db/tables.js';
import {
  compileRuleSet,
  type EngineRequest,
  type EngineRule,
  type RequestInput,
  type RuleSet,
  type TraceResult,
  toEngineRequest,
} from '../../engine/index.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../../errors.js';
import type { Principal } from '../../model/principal.js';
import type { ChangesService } from '../changes/changes-service.js';
import type { GroupsStore } from '../groups/groups-store.js';
import { readRule } from '../rules/rules-input.js';
import type { RulesStore } from '../rules/rules-store.js';
import { referenced } from '../shared/checks.js';
import { isPlainObject, readPayload } from '../shared/payload.js';
import { convertOlderFormats } from '../transfer/older-formats.js';
import { checkTraceBody, MAX_TRACE_PAIRS, type TraceBody } from './trace-schemas.js';
import type { TraceStore } from './trace-store.js';

/** Workspaces whose compiled rules are kept; the least recently traced go first. */
const MAX_KEPT_WORKSPACES = 256;

export interface TraceData extends TraceResult {
  request: { url: string; method: string; resourceType?: string; pageUrl?: string };
  warnings?: ErrorDetail[];
}

interface Compiled {
  version: number;
  rules: EngineRule[];
  set: RuleSet;
}

function pairCount(rule: unknown): number {
  const pairs = isPlainObject(rule) ? rule.pairs : undefined;
  return Array.isArray(pairs) ? pairs.length : 0;
}

/** The body checked, its request turned into the engine's model; every problem in one answer. */
function readTraceBody(body: unknown): { payload: TraceBody; request: EngineRequest } {
  const payload = readPayload(body, checkTraceBody, 'INVALID_TRACE_REQUEST', new Set());
  const details: ErrorDetail[] = [];
  if (payload.request.method !== undefined && !/^[A-Za-z]+$/.test(payload.request.method)) {
    details.push({ path: '/request/method', message: 'must be an HTTP method: letters only' });
  }
  const pairs = (payload.rules ?? []).reduce<number>((sum, rule) => sum + pairCount(rule), 0);
  if (pairs > MAX_TRACE_PAIRS) {
    details.push({
      path: '/rules',
      message: `the unsaved rules hold ${pairs} pairs in all; a trace takes at most ${MAX_TRACE_PAIRS}`,
    });
  }
  if (payload.rules && payload.ruleIds) {
    details.push({
      path: '/ruleIds',
      message: 'give either ruleIds (saved rules) or rules (unsaved), not both',
    });
  }
  // The schema checked resourceType against the engine's list.
  const request = toEngineRequest(payload.request as RequestInput);
  if ('details' in request) {
    for (const detail of request.details) details.push({ ...detail, path: `/request${detail.path}` });
  }
  if (details.length > 0 || 'details' in request) throw new AppError('INVALID_TRACE_REQUEST', details);
  return { payload, request };
}

export function createTraceService(deps: {
  db: Db;
  traceStore: TraceStore;
  rulesStore: RulesStore;
  groupsStore: GroupsStore;
  changes: Pick<ChangesService, 'revision'>;
  config: Pick<Config, 'maxDelayMs'>;
}) {
  const { db, traceStore, rulesStore, groupsStore, changes } = deps;
  const kept = new Map<string, Compiled>();

  /**
   * The workspace's rules, compiled, as of now: kept until the workspace's revision moves (a change
   * elsewhere does not cost a recompile). The revision is read before the rules, so a change landing
   * meanwhile leaves an entry already stale: rebuilt on the next trace, never served as current.
   */
  async function workspaceRules(workspaceId: string): Promise<Compiled> {
    const version = await changes.revision(workspaceId);
    const hit = kept.get(workspaceId);
    kept.delete(workspaceId);
    if (hit?.version === version) {
      kept.set(workspaceId, hit);
      return hit;
    }
    const rules = await traceStore.workspaceRules(workspaceId);
    const compiled = { version, rules, set: compileRuleSet(rules) };
    if (kept.size >= MAX_KEPT_WORKSPACES) kept.delete(kept.keys().next().value as string);
    kept.set(workspaceId, compiled);
    return compiled;
  }

  /** `ruleIds` as the workspace's rules, in list order; 404 or 403 naming the first that is not one. */
  async function selected(principal: Principal, ruleIds: string[], all: EngineRule[]): Promise<EngineRule[]> {
    const wanted = new Set(ruleIds);
    const mine = new Set(all.map((rule) => rule.id));
    for (const [index, id] of ruleIds.entries()) {
      if (mine.has(id)) continue;
      const detail = { path: `/ruleIds/${index}`, message: `rule "${id}"` };
      referenced(await rulesStore.find(db, id), principal, 'RULE_NOT_FOUND', detail);
      // The workspace's, but created after its rules were read for this trace.
      throw new AppError('RULE_NOT_FOUND', [detail]);
    }
    return all.filter((rule) => wanted.has(rule.id));
  }

  /** Unsaved rules validated as POST /v1/rules validates them, errors pointing into `/rules/N`. */
  async function inline(
    principal: Principal,
    bodies: unknown[],
    warnings: ErrorDetail[],
  ): Promise<EngineRule[]> {
    const rules: EngineRule[] = [];
    const details: ErrorDetail[] = [];
    let code: ErrorCode | undefined;
    for (const [index, sent] of bodies.entries()) {
      // The conversions an import makes (older formats), so that a rule is tried as it will be imported.
      const converted = isPlainObject(sent) ? convertOlderFormats(sent) : undefined;
      const body = converted?.record ?? sent;
      for (const message of converted?.warnings ?? []) warnings.push({ path: `/rules/${index}`, message });
      try {
        const { write, pairs } = readRule(body, { creating: true, maxDelayMs: deps.config.maxDelayMs });
        rules.push({
          id: `inline:${index}`,
          name: write.name ?? '',
          ruleType: write.ruleType as string,
          status: write.status ?? 'Inactive',
          pairs: pairs ?? [],
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
    // References last (step 8 of shared/checks.ts), as for POST /v1/rules: each rule's group, for its status.
    for (const [index, rule] of rules.entries()) {
      const groupId = (rule as EngineRule & { groupId?: string }).groupId;
      if (!groupId) continue;
      const detail = { path: `/rules/${index}/groupId`, message: `group "${groupId}"` };
      const group = referenced(await groupsStore.find(db, groupId), principal, 'GROUP_NOT_FOUND', detail);
      rule.groupStatus = group.status;
    }
    return rules;
  }

  return {
    /** The workspace's rules compiled (for `rulekeeper test` and the proxy). */
    async ruleSet(workspaceId: string): Promise<RuleSet> {
      return (await workspaceRules(workspaceId)).set;
    },

    async trace(principal: Principal, body: unknown): Promise<TraceData> {
      const { payload, request } = readTraceBody(body);
      let set: RuleSet;
      const warnings: ErrorDetail[] = [];
      if (payload.rules) set = compileRuleSet(await inline(principal, payload.rules, warnings));
      else {
        const workspace = await workspaceRules(principal.workspaceId);
        set = payload.ruleIds
          ? compileRuleSet(await selected(principal, payload.ruleIds, workspace.rules))
          : workspace.set;
      }
      const { url, method, resourceType, pageUrl } = request;
      return {
        request: { url, method, ...(resourceType ? { resourceType } : {}), ...(pageUrl ? { pageUrl } : {}) },
        ...set.trace(request, payload.includeInactive ?? false),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
  };
}

export type TraceService = ReturnType<typeof createTraceService>;
