// POST /v1/trace: which rules (the workspace's, some of them, or unsaved ones), the engine's verdicts,
// and each workspace's rules compiled once per revision, for every trace until the next change.
import type { Config } from '../../config.js';
import type { Db } from '../../db/tables.js';
import {
  type EngineRequest,
  type RequestInput,
  type TraceResult,
  toEngineRequest,
} from '../../engine/index.js';
import { hideValues } from '../../engine/variables.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { referenced } from '../../http/checks.js';
import { isPlainObject, readPayload } from '../../http/payload.js';
import { encodePage, rulePages, transferOf } from '../../jobs/job-pages.js';
import { inProcessRunner, type JobRunner } from '../../jobs/worker-pool.js';
import type { Principal } from '../../model/principal.js';
import { schemaErrors } from '../../validation.js';
import type { ChangesService } from '../changes/changes-service.js';
import type { GroupsStore } from '../groups/groups-store.js';
import type { RulesStore } from '../rules/rules-store.js';
import {
  type EvaluationEnvironment,
  type EvaluationVariables,
  NO_VARIABLES,
} from '../shared/evaluation-environment.js';
import type { ListedRulesStore } from '../shared/listed-rules-store.js';
import { createTraceJobs, type GroupCheck, type TraceJob, type TraceOutcome } from './trace-job.js';
import {
  checkTraceBody,
  checkTraceQuery,
  MAX_TRACE_PAIRS,
  type TraceBody,
  type TraceExplain,
} from './trace-schemas.js';

/** Where traces run: the trace pool of jobs/job-kinds.ts, or this thread. */
export type TraceRunner = JobRunner<TraceJob, TraceOutcome>;

/** Workspaces whose compiled rules are kept; the least recently traced go first. */
const MAX_KEPT_WORKSPACES = 256;

/** A variable a trace's rules took: a secret one without its value. */
export interface VariableUsed {
  name: string;
  environment: string;
  secret: boolean;
  value?: string;
}

export interface TraceData extends TraceResult {
  request: { url: string; method: string; resourceType?: string; pageUrl?: string };
  /** The environment whose variables the rules took. */
  environment: string;
  variables: VariableUsed[];
  /** What was converted in unsaved rules, as an import converts it. */
  warnings?: ErrorDetail[];
}

function pairCount(rule: unknown): number {
  const pairs = isPlainObject(rule) ? rule.pairs : undefined;
  return Array.isArray(pairs) ? pairs.length : 0;
}

/** How much of the trace to explain (`explain`, default all); anything else is 400 Invalid query. */
function readTraceQuery(query: unknown): TraceExplain {
  const details = schemaErrors(checkTraceQuery, query);
  if (details.length > 0) throw new AppError('INVALID_QUERY', details);
  return (query as { explain?: TraceExplain }).explain ?? 'all';
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

/**
 * The verdicts with a secret's value shown as its reference in their checks' details: the outcome and
 * the effects act with it (decisions §20), the explanations need not show it.
 */
function withoutSecrets(
  rules: TraceResult['rules'],
  used: VariableUsed[],
  environment: EvaluationEnvironment,
): TraceResult['rules'] {
  const secrets = used.filter((variable) => variable.secret).map((variable) => variable.name);
  if (secrets.length === 0) return rules;
  return rules.map((verdict) => {
    const hidden = (verdict.variables ?? [])
      .filter((name) => secrets.includes(name))
      .map((name) => [name, environment.values.get(name) ?? ''] as const);
    if (hidden.length === 0) return verdict;
    return {
      ...verdict,
      pairs: verdict.pairs.map((pair) => ({
        ...pair,
        checks: pair.checks.map((check) => ({ ...check, detail: hideValues(check.detail, hidden) })),
      })),
    };
  });
}

export function createTraceService(deps: {
  db: Db;
  listedRules: ListedRulesStore;
  rulesStore: RulesStore;
  groupsStore: GroupsStore;
  changes: Pick<ChangesService, 'revision'>;
  config: Pick<Config, 'maxDelayMs'>;
  /** Where traces run: a pool of worker threads (the service); by default this thread (the CLI). */
  runner?: TraceRunner;
  /** The environment of each trace and its values (decisions §20); none wired: `default`, no values. */
  variables?: EvaluationVariables;
}) {
  const { db, listedRules, rulesStore, groupsStore, changes } = deps;
  const variables = deps.variables ?? NO_VARIABLES;
  const runner = deps.runner ?? inProcessRunner(createTraceJobs(MAX_KEPT_WORKSPACES));
  /** `ruleIds` as the workspace's rules, in list order, encoded; 404 or 403 naming the first that is not one. */
  async function selected(principal: Principal, ruleIds: string[]): Promise<Uint8Array[]> {
    const rules = await listedRules.someRules(principal.workspaceId, [...new Set(ruleIds)]);
    const mine = new Set(rules.map((rule) => rule.id));
    for (const [index, id] of ruleIds.entries()) {
      if (mine.has(id)) continue;
      const detail = { path: `/ruleIds/${index}`, message: `rule "${id}"` };
      referenced(await rulesStore.find(db, id), principal, 'RULE_NOT_FOUND', detail);
      // The workspace's, but created after its rules were read for this trace.
      throw new AppError('RULE_NOT_FOUND', [detail]);
    }
    return [encodePage({ rules })];
  }

  /** What each group the unsaved rules name is, for the job (which checks references last). */
  async function groupChecks(principal: Principal, bodies: unknown[]): Promise<Record<string, GroupCheck>> {
    const checks: Record<string, GroupCheck> = {};
    for (const body of bodies) {
      const groupId = isPlainObject(body) ? body.groupId : undefined;
      if (typeof groupId !== 'string' || groupId in checks) continue;
      try {
        const group = referenced(await groupsStore.find(db, groupId), principal, 'GROUP_NOT_FOUND', {
          path: '',
          message: '',
        });
        checks[groupId] = { status: group.status };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        checks[groupId] = { code: error.code };
      }
    }
    return checks;
  }

  /** The job of a trace: unsaved rules, some of the workspace's, or all of them (kept by the runner). */
  async function traceJob(
    principal: Principal,
    payload: TraceBody,
    request: EngineRequest,
    environment: EvaluationEnvironment,
  ): Promise<TraceJob> {
    const includeInactive = payload.includeInactive ?? false;
    const values = [...environment.values];
    if (payload.rules) {
      const groups = await groupChecks(principal, payload.rules);
      return {
        request,
        includeInactive,
        values,
        inline: { bodies: payload.rules, groups, maxDelayMs: deps.config.maxDelayMs },
      };
    }
    if (payload.ruleIds) {
      return {
        request,
        includeInactive,
        values,
        saved: { pages: await selected(principal, payload.ruleIds) },
      };
    }
    // The revision first, as for ruleSet: rules read after it may be newer, never older than the key says.
    // A variable's change moves the revision too, so a kept set resolved in an environment stays right
    // until then; each environment's set is kept apart. Values go only with the rules (when not kept).
    const version = await changes.revision(principal.workspaceId);
    const cacheKey = `${principal.workspaceId}@${version}#${environment.name}`;
    return { request, includeInactive, saved: { cacheKey } };
  }

  /** The variables the rules took, each with where its value came from; a secret's value never. */
  async function variablesUsed(
    principal: Principal,
    environment: EvaluationEnvironment,
    names: string[],
  ): Promise<VariableUsed[]> {
    const secrets = await variables.catalog.secretsAmong(principal.workspaceId, names);
    return names.map((name) => {
      const secret = secrets.has(name);
      const value = environment.values.get(name);
      return {
        name,
        environment: environment.name,
        secret,
        ...(secret || value === undefined ? {} : { value }),
      };
    });
  }

  return {
    async trace(principal: Principal, body: unknown, query: unknown = {}): Promise<TraceData> {
      const { payload, request } = readTraceBody(body);
      const explain = readTraceQuery(query);
      const environment = await variables.choose(principal, payload.environment, {
        body: { code: 'INVALID_TRACE_REQUEST', path: '/environment' },
      });
      const job = { ...(await traceJob(principal, payload, request, environment)), explain };
      // A workspace's traces go to the worker that compiled its rules last, when it is free.
      const affinity = principal.workspaceId;
      const pages = job.saved?.pages ?? [];
      let outcome = await runner.run(principal.keyId, job, { affinity, transfer: transferOf(pages) });
      if ('missing' in outcome && job.saved?.cacheKey) {
        const whole = await rulePages(listedRules, principal.workspaceId);
        const saved = { cacheKey: job.saved.cacheKey, pages: whole };
        outcome = await runner.run(
          principal.keyId,
          { ...job, saved, values: [...environment.values] },
          { affinity, transfer: transferOf(whole) },
        );
      }
      if ('missing' in outcome) throw new AppError('INTERNAL');
      if (!outcome.ok) throw new AppError(outcome.code, outcome.details);
      const { url, method, resourceType, pageUrl } = request;
      const { variables: names, ...result } = outcome.result;
      const used = await variablesUsed(principal, environment, names);
      return {
        request: { url, method, ...(resourceType ? { resourceType } : {}), ...(pageUrl ? { pageUrl } : {}) },
        environment: environment.name,
        variables: used,
        ...result,
        rules: withoutSecrets(result.rules, used, environment),
      };
    },
  };
}

export type TraceService = ReturnType<typeof createTraceService>;
