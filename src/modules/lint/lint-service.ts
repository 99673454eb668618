// The rule lint of a workspace: its rules and groups read a page at a time and sent to a lint worker,
// which keeps them and is sent only what changed afterwards (lint-job.ts), linted there, and the
// answer kept until the workspace's revision moves (a CI job or the console asks again and again).
// Nothing of the lint runs on the event loop: a workspace of 100,000 rules takes seconds to lint.
import type { Db } from '../../db/tables.js';
import { boundsNeighbourhood } from '../../engine/lint/index.js';
import { AppError } from '../../errors.js';
import { encodePage, PAGE_SIZE, type RulesCursor, rulePages, transferOf } from '../../jobs/job-pages.js';
import { nextTurn } from '../../jobs/slices.js';
import { inProcessRunner, type JobRunner } from '../../jobs/worker-pool.js';
import type { Finding } from '../../model/finding.js';
import type { Principal } from '../../model/principal.js';
import type { RuleType } from '../../model/rule-types/index.js';
import { schemaErrors } from '../../validation.js';
import type { ChangesService } from '../changes/changes-service.js';
import {
  defaultEnvironmentOf,
  type EvaluationVariables,
  evaluationVariablesOn,
  NO_VARIABLES,
} from '../shared/evaluation-environment.js';
import {
  createListedRulesStore,
  type ListedRuleRow,
  type ListedRulesStore,
} from '../shared/listed-rules-store.js';
import { createLintJobs, type LintEnvironment, type LintJob, type LintOutcome } from './lint-job.js';
import { checkLintQuery, type LintData } from './lint-schemas.js';
import { createLintStore, type LintStore } from './lint-store.js';

export type LintRunner = JobRunner<LintJob, LintOutcome>;

/** Workspaces whose findings are kept; the least recently asked go first. */
const MAX_KEPT_WORKSPACES = 256;

/** How often a write's lint starts although the last took longer than a write waits (canEndInTime). */
const RECKON_AGAIN_MS = 1000;

/** Changes sent to bring a worker's copy up to date; past that, the workspace is sent again whole. */
const MAX_CHANGES_SENT = 200;

/** At most this many rules are read on each side of a written rule (bounded work per write, decision 15). */
const SCOPE_SIDE_RULES = 5_000;

/** The rules read first on each side of a written rule. */
const FIRST_SCOPE_PAGE = 16;

/** A workspace's rules are counted again once its revision has moved this far since. */
const RECOUNT_AFTER_REVISIONS = 100;

/** A rule that acts and bounds what a write's lint reads around its rule (boundsNeighbourhood). */
const boundsScope = (rule: ListedRuleRow) =>
  rule.status === 'Active' && rule.groupStatus !== 'Inactive' && boundsNeighbourhood(rule.ruleType);

/** `work`'s answer, or `instead` when it was refused (AppError): a lint adds to an answer, never fails it. */
async function unlessRefused<T, U>(work: Promise<T>, instead: U): Promise<T | U> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError) return instead;
    throw error;
  }
}

/** A `never_acted` finding and the rule it names (an Active one). */
export interface NeverActed {
  finding: Finding;
  rule: { id: string; name: string; ruleType: string };
}

/** Writes' rules whose findings one job answers, as of the newest revision among the writes. */
interface WritesBatch {
  ids: Set<string>;
  version: number;
  /** Writes still waiting for it; when none is left by its start, it does not run (no one would read it). */
  waiting: number;
  done: Promise<{ findings: Finding[] }>;
}

/** `work`'s answer, or undefined once `ms` have passed without it (the work goes on). */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms === Number.POSITIVE_INFINITY) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function createLintService(deps: {
  lintStore: LintStore;
  listedRules: ListedRulesStore;
  changes: Pick<ChangesService, 'revision' | 'streamBatch' | 'sweptRevision'>;
  /** Where lints run: a pool of worker threads (the service); by default this thread (the CLI). */
  runner?: LintRunner;
  /**
   * The `never_acted` findings of a workspace, from what its runtimes reported (the hits); they change
   * with time and reports, not with the revision, so they are asked for on every lint, not kept.
   */
  neverActed?(workspaceId: string): Promise<NeverActed[]>;
  /** What the `never_acted` findings depend on besides the revision, named cheaply (for the ETag). */
  neverActedMark?(workspaceId: string): Promise<string>;
  /** The environment of each lint and the workspace's variables (decisions §20); none: as written. */
  variables?: EvaluationVariables;
  /**
   * Past this many rules (LINT_SCOPED_FROM_RULES), a write's lint neither sends a worker the workspace
   * whole nor has one keep it: a worker holding 1,000,000 rules took gigabytes, and each write waited
   * for all of them to be read, sent and parsed. The written rule is linted among the rules around it
   * (scopeOf), read from the database along the list's index; GET /v1/lint stays the whole workspace's.
   */
  scopedFromRules?: number;
  /**
   * How long a write's answer waits for its findings (LINT_WRITE_WAIT_MS); by default as long as the
   * lint takes (the CLI). Past it the write is answered without them; GET /v1/lint has them.
   */
  writeWaitMs?: number;
}) {
  const { lintStore, listedRules, changes } = deps;
  const variables = deps.variables ?? NO_VARIABLES;
  const runner = deps.runner ?? inProcessRunner(createLintJobs());
  const kept = new Map<string, { version: number; data: LintData }>();
  /** The revision each workspace was last sent to a worker as (its worker holds it, most likely). */
  const sent = new Map<string, number>();
  const remember = (workspaceId: string, version: number) => {
    // A job that finishes late, for an older revision, does not take back what a newer one sent.
    const newest = Math.max(version, sent.get(workspaceId) ?? version);
    sent.delete(workspaceId);
    if (sent.size >= MAX_KEPT_WORKSPACES) sent.delete(sent.keys().next().value as string);
    sent.set(workspaceId, newest);
  };
  /**
   * The job bringing each workspace's worker up to date, while one runs: writes that arrive together
   * (a group commit's) wait for it and find their revision sent, instead of each reading and sending
   * the same changes (and, past the worker's copy, the whole workspace) again.
   */
  const catchingUp = new Map<string, Promise<unknown>>();
  /** Per workspace, the writes' lint waiting to start, and the one running or last started. */
  const openBatches = new Map<string, WritesBatch>();
  const lastBatches = new Map<string, Promise<unknown>>();
  const writeWaitMs = deps.writeWaitMs ?? Number.POSITIVE_INFINITY;
  /** Per workspace, when its writes' lint running now started (performance.now()), and the last one: when, how long. */
  const runningSince = new Map<string, number>();
  const lastRun = new Map<string, { began: number; took: number }>();

  /** Each workspace's rule count and the revision it was counted at (which lint a write gets). */
  const counted = new Map<string, { rules: number; revision: number }>();

  async function isLarge(workspaceId: string, version: number): Promise<boolean> {
    let count = counted.get(workspaceId);
    counted.delete(workspaceId);
    if (!count || Math.abs(version - count.revision) >= RECOUNT_AFTER_REVISIONS)
      count = { rules: await listedRules.ruleCount(workspaceId), revision: version };
    if (counted.size >= MAX_KEPT_WORKSPACES) counted.delete(counted.keys().next().value as string);
    counted.set(workspaceId, count);
    return count.rules > (deps.scopedFromRules ?? 50_000);
  }

  /**
   * What a write's lint of `ruleId` reads in a large workspace, as one page with their groups: the rule,
   * and the rules around it in list order, back to the last rule that acts and bounds it (see
   * boundsNeighbourhood) and on to the first after it, each included, at most SCOPE_SIDE_RULES a side.
   * Undefined when the rule is gone.
   */
  async function scopeOf(workspaceId: string, ruleId: string): Promise<Uint8Array[] | undefined> {
    const [written] = await listedRules.someRules(workspaceId, [ruleId]);
    if (!written) return undefined;
    // A few rules first (a workspace's bounds are most often near), more while none is found.
    const side = async (read: (from: RulesCursor, limit: number) => Promise<ListedRuleRow[]>) => {
      const rules: ListedRuleRow[] = [];
      let from: RulesCursor = written;
      for (
        let limit = FIRST_SCOPE_PAGE;
        rules.length < SCOPE_SIDE_RULES;
        limit = Math.min(4 * limit, PAGE_SIZE)
      ) {
        const page = await read(from, limit);
        for (const rule of page) {
          rules.push(rule);
          if (boundsScope(rule)) return rules;
        }
        if (page.length < limit) return rules;
        from = page[page.length - 1] as ListedRuleRow;
      }
      return rules;
    };
    const before = await side((from, limit) => listedRules.rulesBefore(workspaceId, limit, from));
    const after = await side((from, limit) => listedRules.rulesPage(workspaceId, limit, from));
    const rules = [...before.reverse(), written, ...after];
    const groupIds = [...new Set(rules.flatMap((rule) => (rule.groupId ? [rule.groupId] : [])))];
    return [encodePage({ rules, groups: await lintStore.someGroups(workspaceId, groupIds) })];
  }

  /** The findings about the written rules `ids` of a large workspace, each among the rules around it. */
  async function runScoped(key: string, workspaceId: string, version: number, ids: string[]) {
    const scoped: NonNullable<LintJob['scoped']> = [];
    for (const focus of ids) {
      const pages = await scopeOf(workspaceId, focus);
      if (pages) scoped.push({ focus, pages });
    }
    if (scoped.length === 0) return { findings: [] };
    const outcome = await runner.run(
      key,
      { workspaceId, version, scoped },
      { transfer: transferOf(scoped.flatMap(({ pages }) => pages)) },
    );
    if ('missing' in outcome) throw new AppError('INTERNAL'); // a scoped job holds all it needs
    return outcome;
  }

  /** Every rule and group of the workspace, encoded a page at a time. */
  async function wholeWorkspace(workspaceId: string): Promise<Uint8Array[]> {
    const pages = await rulePages(listedRules, workspaceId);
    let after: string | undefined;
    for (;;) {
      const groups = await lintStore.groups(workspaceId, PAGE_SIZE, after);
      if (groups.length > 0) pages.push(encodePage({ groups }));
      if (groups.length < PAGE_SIZE) return pages;
      after = groups[groups.length - 1]?.id;
      await nextTurn();
    }
  }

  /**
   * What changed after revision `held`, as the job takes it, with the revision it brings the copy to
   * (at least `version`); undefined when there is too much, or the log no longer holds all of it.
   */
  async function changesSince(
    workspaceId: string,
    held: number,
    version: number,
  ): Promise<{ version: number; changes: NonNullable<LintJob['changes']> } | undefined> {
    if (held < (await changes.sweptRevision(workspaceId))) return undefined;
    const batch = await changes.streamBatch(workspaceId, held, MAX_CHANGES_SENT);
    if (!('rows' in batch) || batch.rows.length === 0) return undefined;
    const reached = Number(batch.rows[batch.rows.length - 1]?.revision);
    if (reached < version) return undefined;
    const ids = (type: 'rule' | 'group') => [
      ...new Set(batch.rows.filter((row) => row.object_type === type).map((row) => row.object_id)),
    ];
    const [ruleIds, groupIds] = [ids('rule'), ids('group')];
    const now = {
      rules: await listedRules.someRules(workspaceId, ruleIds),
      groups: await lintStore.someGroups(workspaceId, groupIds),
    };
    const present = new Set([...now.rules, ...now.groups].map((object) => object.id));
    const gone = [...ruleIds, ...groupIds].filter((id) => !present.has(id));
    return { version: reached, changes: { from: held, pages: [encodePage(now)], gone } };
  }

  /**
   * The lint of the workspace as of `version` (or later), run where the runner runs it. The worker
   * says which revision it holds; it is sent what changed since, or everything when it holds nothing.
   */
  async function run(
    key: string,
    workspaceId: string,
    version: number,
    focus?: string[],
    environment?: LintEnvironment,
  ) {
    const job: LintJob = {
      workspaceId,
      version,
      ...(focus === undefined ? {} : { focus }),
      ...(environment === undefined ? {} : { environment }),
    };
    const send = async (extra: Partial<LintJob>, pages: Uint8Array[] = []) => {
      const outcome = await runner.run(
        key,
        { ...job, ...extra },
        { affinity: workspaceId, transfer: transferOf(pages) },
      );
      if (!('missing' in outcome)) remember(workspaceId, extra.version ?? version);
      return outcome;
    };
    /** The changes since `held`, sent; undefined when there are too many to send. */
    const sendChanges = async (held: number) => {
      const since = await changesSince(workspaceId, held, version);
      return since && send({ version: since.version, changes: since.changes }, since.changes.pages);
    };
    // The worker most likely holds what it was sent last (its jobs go to it): the changes since then
    // come with the first job, and a worker that holds something else says so.
    let last = sent.get(workspaceId);
    const running = last !== undefined && last < version ? catchingUp.get(workspaceId) : undefined;
    if (running) {
      await running.catch(() => {});
      last = sent.get(workspaceId);
    }
    let caughtUp: Awaited<ReturnType<typeof sendChanges>>;
    if (last !== undefined && last < version) {
      const catching = sendChanges(last);
      catchingUp.set(workspaceId, catching);
      try {
        caughtUp = await catching;
      } finally {
        if (catchingUp.get(workspaceId) === catching) catchingUp.delete(workspaceId);
      }
    }
    let outcome = caughtUp ?? (await send({}));
    if ('missing' in outcome && outcome.held !== undefined && outcome.held < version && outcome.held !== last)
      outcome = (await sendChanges(outcome.held)) ?? outcome;
    if ('missing' in outcome) {
      const whole = await wholeWorkspace(workspaceId);
      outcome = await send({ whole }, whole);
    }
    if ('missing' in outcome) throw new AppError('INTERNAL'); // a whole workspace is never missing
    return outcome;
  }

  /**
   * The findings about `ruleId` among others': writes to one workspace that arrive while its lint runs
   * wait for the next job together, one job for them all (each its own rule against the others), so
   * that a burst of writes is never turned away by the key's share of the pool and goes without
   * warnings. None when the lint could not run (past its limits): the writes stand.
   */
  function focusBatch(key: string, workspaceId: string, version: number, ruleId: string): WritesBatch {
    const open = openBatches.get(workspaceId);
    if (open) {
      open.ids.add(ruleId);
      open.version = Math.max(open.version, version);
      return open;
    }
    const before = lastBatches.get(workspaceId);
    const wanted = { ids: new Set([ruleId]), version, waiting: 0 };
    const done = (async () => {
      await before?.catch(() => {});
      openBatches.delete(workspaceId); // from here, writes wait for the next batch
      if (wanted.waiting === 0) return { findings: [] };
      const began = performance.now();
      runningSince.set(workspaceId, began);
      try {
        const ids = [...wanted.ids];
        const work = (await isLarge(workspaceId, wanted.version))
          ? runScoped(key, workspaceId, wanted.version, ids)
          : run(key, workspaceId, wanted.version, ids);
        return await unlessRefused(work, { findings: [] });
      } finally {
        runningSince.delete(workspaceId);
        lastRun.delete(workspaceId); // the newest last, so that the oldest goes first past the bound
        if (lastRun.size >= MAX_KEPT_WORKSPACES) lastRun.delete(lastRun.keys().next().value as string);
        lastRun.set(workspaceId, { began, took: performance.now() - began });
      }
    })();
    const batch: WritesBatch = Object.assign(wanted, { done });
    openBatches.set(workspaceId, batch);
    lastBatches.set(workspaceId, batch.done);
    void batch.done.then(() => {
      if (lastBatches.get(workspaceId) === batch.done) lastBatches.delete(workspaceId);
    });
    return batch;
  }

  /**
   * Whether a write's lint, queued now behind the one running for its workspace (if any), would end
   * within the wait, reckoned by how long the last one took: when not, the write neither waits for it
   * nor queues one, and the lint workers are left to other work. Once a second one starts anyway, so
   * that the reckoning follows a workspace that became quicker to lint.
   */
  function canEndInTime(workspaceId: string): boolean {
    if (writeWaitMs === Number.POSITIVE_INFINITY) return true;
    const last = lastRun.get(workspaceId);
    if (!last) return true;
    const now = performance.now();
    const since = runningSince.get(workspaceId);
    if (since === undefined) return last.took <= writeWaitMs || now - last.began >= RECKON_AGAIN_MS;
    return Math.max(0, since + last.took - now) + last.took <= writeWaitMs;
  }

  /**
   * The revision is read before the rules, so a change landing meanwhile leaves an entry already
   * stale: rebuilt on the next read, never served as current.
   */
  /** The kept lint, with the `never_acted` findings of now after the others (they are `info`, the last). */
  async function lint(principal: Principal, query: unknown = {}): Promise<LintData> {
    const details = schemaErrors(checkLintQuery, query);
    if (details.length > 0) throw new AppError('INVALID_QUERY', details);
    const explicit = (query as { environment?: string }).environment;
    const [data, neverActed] = await Promise.all([
      lintOfRevision(principal, explicit),
      deps.neverActed?.(principal.workspaceId) ?? [],
    ]);
    if (neverActed.length === 0) return data;
    const named = new Set(data.rules.map((rule) => rule.id));
    return {
      ...data,
      findings: [...data.findings, ...neverActed.map((n) => n.finding)],
      rules: [
        ...data.rules,
        ...neverActed
          .filter((n) => !named.has(n.rule.id))
          .map((n) => ({ ...n.rule, ruleType: n.rule.ruleType as RuleType, status: 'Active' as const })),
      ],
      counts: { ...data.counts, info: data.counts.info + neverActed.length },
    };
  }

  /** The lint kept per workspace and environment (a variable's change moves the revision too). */
  const keptKey = (workspaceId: string, environment: string) => `${workspaceId}\n${environment}`;

  /** The environment a lint is of, with what the job needs of the workspace's variables. */
  async function lintEnvironment(
    principal: Principal,
    explicit: string | undefined,
  ): Promise<LintEnvironment> {
    const [environment, catalog] = await Promise.all([
      variables.choose(principal, explicit, { query: true }),
      variables.catalog.catalog(principal.workspaceId),
    ]);
    return {
      name: environment.name,
      values: [...environment.values],
      secrets: [...catalog.secrets],
      environments: catalog.environments,
      defined: [...catalog.defined].map(([name, where]) => [name, [...where]]),
    };
  }

  async function lintOfRevision(principal: Principal, explicit?: string): Promise<LintData> {
    const { workspaceId } = principal;
    const version = await changes.revision(workspaceId);
    const environment = await lintEnvironment(principal, explicit);
    const key = keptKey(workspaceId, environment.name);
    const hit = kept.get(key);
    kept.delete(key);
    if (hit?.version === version) {
      kept.set(key, hit);
      return hit.data;
    }
    const { findings, complete, named } = await run(
      principal.keyId,
      workspaceId,
      version,
      undefined,
      environment,
    );
    const counts = { error: 0, warning: 0, info: 0 };
    for (const finding of findings) counts[finding.severity]++;
    const data: LintData = {
      findings,
      rules: named.map((rule) => ({
        ...rule,
        ruleType: rule.ruleType as RuleType,
        status: rule.status as LintData['rules'][number]['status'],
      })),
      counts,
      complete,
    };
    if (kept.size >= MAX_KEPT_WORKSPACES) kept.delete(kept.keys().next().value as string);
    kept.set(key, { version, data });
    return data;
  }

  return {
    /** Every finding about the workspace's rules and groups. */
    lint,

    /**
     * What the lint depends on besides the revision (the `never_acted` findings' hour and reports),
     * for its ETag; empty when nothing else.
     */
    async etagPart(principal: Principal, query: unknown = {}): Promise<string> {
      // The environment a key is bound to is not in the URL: the ETag names it.
      const explicit = (query as { environment?: unknown }).environment;
      const environment = typeof explicit === 'string' ? explicit : defaultEnvironmentOf(principal);
      const mark = (await deps.neverActedMark?.(principal.workspaceId)) ?? '';
      return `${environment}\n${mark}`;
    },

    /**
     * The findings that concern one rule, in the workspace as it is now (after a write of it): from the
     * kept lint when it is current, else that rule against the others (not all against all). None when
     * the lint could not run (past its limits, or the key's share of the pool): the write stands.
     * None either when they are not ready within `writeWaitMs`, or could not be (a lint of the
     * workspace still running, and the last one took about as long as the wait): a write's answer is
     * not held up by the lint; GET /v1/lint, asked after the write's change (the change stream tells
     * when), has them.
     * `recorded`: the revision the write recorded, when the caller has it: the rules are then as of
     * that revision or later (it need not be read again).
     */
    async findingsOfRule(principal: Principal, ruleId: string, recorded?: number): Promise<Finding[]> {
      const { workspaceId } = principal;
      const version = recorded ?? (await changes.revision(workspaceId));
      // The kept lint of the key's environment, when it is current.
      const hit = kept.get(keptKey(workspaceId, defaultEnvironmentOf(principal)));
      if (hit?.version === version) return hit.data.findings.filter((f) => f.ruleIds.includes(ruleId));
      if (writeWaitMs === 0 || !canEndInTime(workspaceId)) return [];
      const batch = focusBatch(principal.keyId, workspaceId, version, ruleId);
      batch.waiting++;
      const outcome = await within(batch.done, writeWaitMs);
      if (outcome === undefined) {
        batch.waiting--;
        return [];
      }
      return outcome.findings.filter((finding) => finding.ruleIds.includes(ruleId));
    },

    /** Every finding, for an import's report; none when the lint could not run (the import stands). */
    findingsAfterImport: (principal: Principal) => unlessRefused(lint(principal), { findings: [] }),
  };
}

export type LintService = ReturnType<typeof createLintService>;

/** The lint over `db`, run on this thread: for the CLI, which serves no one else. */
export function lintOnThisThread(
  db: Db,
  changes: Parameters<typeof createLintService>[0]['changes'],
): LintService {
  return createLintService({
    lintStore: createLintStore(db),
    listedRules: createListedRulesStore(db),
    changes,
    variables: evaluationVariablesOn(db),
  });
}
