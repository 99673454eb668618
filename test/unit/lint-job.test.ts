// The lint worker's copy of a workspace, brought up to date with what changed: after creates (the list
// grows at its end, and what was made of it is carried over) and after other changes (merged into
// place), each job answers what a job sent the workspace whole answers.
import { describe, expect, it } from 'vitest';
import { createLintJobs, type LintJob, type LintOutcome } from '../../src/modules/lint/lint-job.js';
import { encodePage } from '../../src/modules/shared/job-pages.js';
import type { ListedRuleRow } from '../../src/modules/shared/listed-rules-store.js';

const W = 'ws_lintjob';

function cancel(id: string, host: string, creationDate: number, status = 'Active'): ListedRuleRow {
  const pairs = [{ source: { key: 'host', operator: 'Equals', value: host } }];
  return {
    id,
    name: `cancel ${id}`,
    ruleType: 'Cancel',
    status,
    groupId: null,
    groupStatus: null,
    pairs: JSON.stringify(pairs),
    creationDate,
  };
}

const page = (rules: ListedRuleRow[]) => encodePage({ rules });

/** The findings about `focus` of a job that is sent the workspace whole, in a worker of its own. */
function afresh(rules: ListedRuleRow[], focus: string[]): LintOutcome {
  const sorted = [...rules].sort((a, b) => a.creationDate - b.creationDate || (a.id < b.id ? -1 : 1));
  return createLintJobs()({ workspaceId: W, version: 1, focus, whole: [page(sorted)] });
}

describe('lint jobs kept up to date with changes', () => {
  const base = [cancel('Cancel_aaaa1', 'a.test', 1), cancel('Cancel_aaaa2', 'b.test', 2)];

  /** A worker holding `base` at version 1 that has answered a batch (so it made its maps). */
  function holding() {
    const run = createLintJobs();
    run({ workspaceId: W, version: 1, focus: base.map((r) => r.id), whole: [page(base)] });
    return run;
  }

  const changed = (version: number, rules: ListedRuleRow[], gone: string[] = []): LintJob => ({
    workspaceId: W,
    version,
    focus: [...rules.map((r) => r.id), 'Cancel_aaaa1', 'Cancel_aaaa2'].filter((id) => !gone.includes(id)),
    changes: { from: version - 1, pages: [page(rules)], gone },
  });

  it('after creates, answers each rule as a job sent the whole workspace does', () => {
    const run = holding();
    const first = [cancel('Cancel_copy1', 'a.test', 3), cancel('Cancel_new01', 'c.test', 4)];
    const second = [cancel('Cancel_copy2', 'a.test', 5), cancel('Cancel_copy3', 'c.test', 6)];
    expect(run(changed(2, first))).toEqual(afresh([...base, ...first], changed(2, first).focus ?? []));
    const all = [...base, ...first, ...second];
    const outcome = run(changed(3, second));
    expect(outcome).toEqual(afresh(all, changed(3, second).focus ?? []));
    // The copies are found against the first of each: the carried-over maps hold the new rules.
    expect('findings' in outcome && outcome.findings.map((f) => [f.code, f.ruleIds])).toEqual(
      expect.arrayContaining([
        ['duplicate', ['Cancel_copy2', 'Cancel_aaaa1']],
        ['duplicate', ['Cancel_copy3', 'Cancel_new01']],
      ]),
    );
  });

  it('after an update, a delete or a rule placed before others, merges them into place', () => {
    const run = holding();
    const created = [cancel('Cancel_new01', 'a.test', 3)];
    run(changed(2, created));
    // A rule imported with an earlier date, and an update of the first rule.
    const moved = [cancel('Cancel_early', 'a.test', 0), cancel('Cancel_aaaa1', 'z.test', 1)];
    const rules = [moved[0], moved[1], base[1], created[0]] as ListedRuleRow[];
    expect(run(changed(3, moved))).toEqual(afresh(rules, changed(3, moved).focus ?? []));
    const after = run(changed(4, [], ['Cancel_early']));
    expect(after).toEqual(
      afresh([moved[1], base[1], created[0]] as ListedRuleRow[], changed(4, []).focus ?? []),
    );
  });
});
