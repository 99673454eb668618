// GET /v1/browser-rules: the workspace's active rules compiled to Chrome's declarativeNetRequest rules,
// built once per revision and kept (as the answer's UTF-8 JSON) until the workspace changes. The
// compile runs where the runner runs it (a pool of worker threads, for the service): the event loop
// only reads the rules a page at a time and sends them on, so a workspace of 100,000 rules does not
// hold up everyone else's requests.

import { AppError } from '../../errors.js';
import { rulePages, transferOf } from '../../jobs/job-pages.js';
import { inProcessRunner, type JobRunner } from '../../jobs/worker-pool.js';
import type { Principal } from '../../model/principal.js';
import { schemaErrors } from '../../validation.js';
import type { ChangesService } from '../changes/changes-service.js';
import {
  type EvaluationEnvironment,
  type EvaluationVariables,
  NO_VARIABLES,
} from '../shared/evaluation-environment.js';
import type { ListedRulesStore } from '../shared/listed-rules-store.js';
import { createReadCache } from '../shared/read-cache.js';
import {
  type BrowserRulesJob,
  type BrowserRulesOutcome,
  createBrowserRulesJobs,
} from './browser-rules-job.js';
import { checkBrowserRulesQuery } from './browser-rules-schemas.js';

/** Where compiles run: the browserRules pool of jobs/job-kinds.ts, or this thread. */
export type BrowserRulesRunner = JobRunner<BrowserRulesJob, BrowserRulesOutcome>;

/** Memory the kept answers may hold: a 30,000-rule answer is a few megabytes. */
const KEPT_BYTES = 64 * 1024 * 1024;

export function createBrowserRulesService(deps: {
  listedRules: ListedRulesStore;
  changes: Pick<ChangesService, 'revision'>;
  /** Where compiles run: a pool of worker threads (the service); by default this thread (the CLI). */
  runner?: BrowserRulesRunner;
  /** The environment of each compile and its values (decisions §20); none wired: `default`, no values. */
  variables?: EvaluationVariables;
}) {
  const { listedRules, changes } = deps;
  const variables = deps.variables ?? NO_VARIABLES;
  const runner = deps.runner ?? inProcessRunner(createBrowserRulesJobs());
  const kept = createReadCache<Buffer>(KEPT_BYTES, (json) => json.byteLength);
  const building = new Map<string, Promise<Buffer>>();

  /** The answer's JSON, from the rules as they are now; `key`: whose share of the pool it takes. */
  async function build(
    key: string,
    workspaceId: string,
    environment: EvaluationEnvironment,
  ): Promise<Buffer> {
    const pages = await rulePages(listedRules, workspaceId);
    // The workspace's compiles go to the worker that keeps its translations, when it is free.
    const { json } = await runner.run(
      key,
      { workspaceId, pages, values: [...environment.values] },
      { affinity: workspaceId, transfer: transferOf(pages) },
    );
    return Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  }

  /**
   * One build per workspace and revision: clients that ask together share it (a build begun at an
   * older revision may have read older rules, so it is never shared with a newer one). Not abandoned
   * with one client: the others wait for it. A build refused (past its limits) is kept by no one.
   */
  function shared(
    key: string,
    workspaceId: string,
    revision: number,
    environment: EvaluationEnvironment,
  ): Promise<Buffer> {
    const buildKey = `${workspaceId}@${revision}#${environment.name}`;
    const running = building.get(buildKey);
    if (running) return running;
    const made = build(key, workspaceId, environment).finally(() => building.delete(buildKey));
    building.set(buildKey, made);
    return made;
  }

  return {
    /**
     * The answer of GET /v1/browser-rules as UTF-8 JSON, in the environment `?environment=` names (else
     * the key's, else `default`). Each environment's answer is kept apart; a variable's change moves the
     * revision, which they are kept by.
     */
    async browserRules(principal: Principal, query: unknown = {}): Promise<Buffer> {
      const details = schemaErrors(checkBrowserRulesQuery, query);
      if (details.length > 0) throw new AppError('INVALID_QUERY', details);
      const { workspaceId } = principal;
      const revision = await changes.revision(workspaceId);
      const explicit = (query as { environment?: string }).environment;
      const environment = await variables.choose(principal, explicit, { query: true });
      const json = await kept.read(`${workspaceId}\n${environment.name}`, revision, () =>
        shared(principal.keyId, workspaceId, revision, environment),
      );
      return json as Buffer;
    },
  };
}

export type BrowserRulesService = ReturnType<typeof createBrowserRulesService>;
