// The browser rules service compiles a workspace once per revision: the answer is kept until the
// revision moves, and requests that ask together share one compile. Counted at the runner (where the
// compile runs), over the real database and the real change log.
import { describe, expect, it } from 'vitest';
import { inProcessRunner, type JobRunner } from '../../src/jobs/worker-pool.js';
import {
  type BrowserRulesJob,
  type BrowserRulesOutcome,
  createBrowserRulesJobs,
} from '../../src/modules/browser-rules/browser-rules-job.js';
import { createBrowserRulesService } from '../../src/modules/browser-rules/browser-rules-service.js';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import { createChangesStore } from '../../src/modules/changes/changes-store.js';
import { createListedRulesStore } from '../../src/modules/shared/listed-rules-store.js';
import { createRule } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  describe('GET /v1/browser-rules, compiled once per revision', () => {
    const t = useTestApp({ db });

    function service() {
      const jobs: BrowserRulesJob[] = [];
      const inner = inProcessRunner(createBrowserRulesJobs());
      const runner: JobRunner<BrowserRulesJob, BrowserRulesOutcome> = {
        run: (key, job, options) => {
          jobs.push(job);
          return inner.run(key, job, options);
        },
        close: () => inner.close(),
      };
      const changes = createChangesService({
        store: createChangesStore(t.database.db),
        dataVersion: t.database.dataVersion,
        signals: t.database.signals,
      });
      const browserRules = createBrowserRulesService({
        listedRules: createListedRulesStore(t.database.db),
        changes,
        runner,
      });
      return { browserRules, jobs };
    }

    it('answers an unchanged revision from what it kept, and compiles again after a change', async () => {
      const { browserRules, jobs } = service();
      const principal = { ...t.owner, via: 'key' as const, ownerUserId: t.owner.userId };
      const first = await createRule(t, { status: 'Active' });
      const answer = JSON.parse((await browserRules.browserRules(principal)).toString());
      expect(answer.data.report.map((entry: { ruleId: string }) => entry.ruleId)).toEqual([first.id]);
      expect(jobs).toHaveLength(1);

      // Asked again, and by two at once: the kept answer, byte for byte.
      const again = await Promise.all([
        browserRules.browserRules(principal),
        browserRules.browserRules(principal),
      ]);
      for (const kept of again) expect(JSON.parse(kept.toString())).toEqual(answer);
      expect(jobs).toHaveLength(1);

      const second = await createRule(t, { status: 'Active' });
      const together = await Promise.all([
        browserRules.browserRules(principal),
        browserRules.browserRules(principal),
      ]);
      for (const changed of together)
        expect(
          JSON.parse(changed.toString()).data.report.map((entry: { ruleId: string }) => entry.ruleId),
        ).toEqual([first.id, second.id]);
      // One compile for the new revision, shared by both.
      expect(jobs).toHaveLength(2);
    });
  });
});
