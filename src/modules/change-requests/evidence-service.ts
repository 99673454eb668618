// Evidence of what a change request would do (decisions §19), computed off the event loop: the
// workspace's rules read a page at a time and moved to a worker of the evidence pool with the change's
// effects and the stored suites, where evidence-job.ts lints, compiles and traces both sides. Bounded as
// the lint is (its workers, time limit and heap: LINT_WORKERS, LINT_TIME_LIMIT_MS), and the suites'
// cases by MAX_EVIDENCE_CASES.
import { rulePages, transferOf } from '../../jobs/job-pages.js';
import { inProcessRunner, type JobRunner } from '../../jobs/worker-pool.js';
import type { Principal } from '../../model/principal.js';
import type { ChangesService } from '../changes/changes-service.js';
import type { EvaluationVariables } from '../shared/evaluation-environment.js';
import type { ListedRulesStore } from '../shared/listed-rules-store.js';
import type { Effect } from './change-requests-input.js';
import type { Evidence } from './change-requests-schemas.js';
import type { ChangeRequestsStore } from './change-requests-store.js';
import { type EvidenceJob, runEvidence, type Suite } from './evidence-job.js';

/** Cases of all the stored suites an evidence runs, twice each (before and after), at most. */
export const MAX_EVIDENCE_CASES = 10_000;

/** The workspace's stored suites (modules/test-suites, wired at landing). */
export type SuitesOf = (workspaceId: string) => Promise<Suite[]>;

export function createEvidence(deps: {
  store: Pick<ChangeRequestsStore, 'groups'>;
  listedRules: Pick<ListedRulesStore, 'rulesPage'>;
  changes: Pick<ChangesService, 'revision'>;
  suites?: SuitesOf;
  /** Where evidence is computed: a pool of worker threads (the service); by default this thread. */
  runner?: JobRunner<EvidenceJob, Evidence>;
  /**
   * The environment the sides are traced and compiled in: the requester key's, else `default`
   * (decisions §20); none wired: no values, every `{{NAME}}` as written.
   */
  variables?: EvaluationVariables;
}) {
  const runner = deps.runner ?? inProcessRunner(runEvidence);
  return async (principal: Principal, effects: Effect[]): Promise<Evidence> => {
    const { workspaceId } = principal;
    const revision = await deps.changes.revision(workspaceId);
    const suites = deps.suites ? await deps.suites(workspaceId) : [];
    const cases = suites.reduce((sum, suite) => sum + suite.cases.length, 0);
    if (cases > MAX_EVIDENCE_CASES)
      return {
        status: 'failed',
        revision,
        reason: `the stored suites hold ${cases} cases; the evidence runs at most ${MAX_EVIDENCE_CASES}`,
      };
    const pages = await rulePages(deps.listedRules, workspaceId);
    const groups = await deps.store.groups(workspaceId);
    const environment = deps.variables
      ? await deps.variables.choose(principal, undefined, { query: true })
      : undefined;
    const values = environment ? [...environment.values] : [];
    const job: EvidenceJob = { revision, pages, groups, effects, suites, values };
    return runner.run(principal.keyId || workspaceId, job, { transfer: transferOf(pages) });
  };
}
