// The lint worker's copy of a workspace, brought up to date with what changed: after creates (the list
// grows at its end, and what was made of it is carried over) and after other changes (merged into
// place), each job answers what a job sent the workspace whole answers.
import { describe, expect, it } from 'vitest';
import { encodePage } from '../../src/jobs/job-pages.js';
import { createLintJobs, type LintJob, type LintOutcome } from '../../src/modules/lint/lint-job.js';
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

  it('after creates of Redirects, finds the loops they close with the rules before them', () => {
    const run = holding();
    const redirect = (id: string, from: string, to: string, creationDate: number): ListedRuleRow => ({
      ...cancel(id, from, creationDate),
      ruleType: 'Redirect',
      pairs: JSON.stringify([
        {
          source: { key: 'host', operator: 'Equals', value: from },
          destinationType: 'url',
          destination: `https://${to}/`,
        },
      ]),
    });
    const first = [redirect('Redirect_xtoy1', 'x.test', 'y.test', 3)];
    run(changed(2, first)); // a Redirect's lint: the rule sets loops are followed through are made
    const second = [
      redirect('Redirect_ytox1', 'y.test', 'x.test', 4),
      redirect('Redirect_zself', 'z.test', 'z.test', 5),
    ];
    const outcome = run(changed(3, second));
    expect(outcome).toEqual(afresh([...base, ...first, ...second], changed(3, second).focus ?? []));
    expect('findings' in outcome && outcome.findings.map((f) => [f.code, f.severity, f.ruleIds])).toEqual([
      ['redirect_loop', 'error', ['Redirect_xtoy1', 'Redirect_ytox1']],
      ['redirect_loop', 'warning', ['Redirect_zself']],
    ]);
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

describe('lint jobs after a stream of writes of every kind the checks look at', () => {
  const LETTERS = 'abcdefghijklmnopqrst';
  const HOSTS = [...LETTERS].map((letter) => `${letter}.io`);
  const GROUPS = [
    { id: 'Group_act01', name: 'on', status: 'Active' },
    { id: 'Group_off01', name: 'off', status: 'Inactive' },
  ];
  /** A deterministic stream of choices: the same rules and writes on every run. */
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n); // the high bits: the low ones of this generator repeat soon
  };
  const pick = <T>(list: readonly T[]) => list[next(list.length)] as T;
  const host = (value = pick(HOSTS)) => ({ key: 'host', operator: 'Equals', value });
  /** A few hosts, with no literal of four characters: filed with the gated rules, not under a piece of text. */
  const someHosts = () => {
    const first = next(LETTERS.length - 1);
    return { key: 'host', operator: 'Matches', value: `/^[${LETTERS[first]}${LETTERS[first + 1]}]\\.io$/` };
  };

  /** Pairs of the types that loop (Redirect, to another host or its own), change the URL, cancel and shadow. */
  const PAIRS: Record<string, () => Record<string, unknown>[]> = {
    Redirect: () => {
      const from = pick(HOSTS);
      const to = next(4) === 0 ? from : pick(HOSTS);
      return [{ source: host(from), destinationType: 'url', destination: `https://${to}/` }];
    },
    Replace: () => {
      const [from, to] = [pick(HOSTS), pick(HOSTS)];
      return [{ source: host(from), from, to }];
    },
    Cancel: () => [{ source: next(2) === 0 ? host() : someHosts() }],
    QueryParam: () => [
      {
        source: someHosts(),
        modifications: [{ param: 'x', type: 'Add', value: '1', actionWhenParamExists: 'Overwrite' }],
      },
    ],
  };
  const TYPES = ['Redirect', 'Redirect', 'Redirect', 'Redirect', 'Replace', 'Cancel', 'QueryParam'];

  let made = 0;
  const created = (): ListedRuleRow => {
    made++;
    const ruleType = pick(TYPES);
    const group = pick([null, null, null, GROUPS[0], GROUPS[1]]);
    return {
      id: `${ruleType}_${String(made).padStart(5, '0')}`,
      name: `rule ${made}`,
      ruleType,
      status: next(6) === 0 ? 'Inactive' : 'Active',
      groupId: group?.id ?? null,
      groupStatus: group?.status ?? null,
      pairs: JSON.stringify((PAIRS[ruleType] as () => unknown)()),
      creationDate: 100 + made,
    };
  };

  it('answers each job after creates, updates, deletes and group changes as a job sent the workspace whole does', () => {
    const rules = new Map<string, ListedRuleRow>();
    const groups = GROUPS.map((group) => ({ ...group }));
    for (let i = 0; i < 4; i++) {
      const rule = created();
      rules.set(rule.id, rule);
    }
    const whole = () => [
      encodePage({ rules: [...rules.values()].sort((a, b) => a.creationDate - b.creationDate), groups }),
    ];
    const run = createLintJobs();
    run({ workspaceId: W, version: 1, focus: [...rules.keys()], whole: whole() });

    let carried = 0;
    const codes = new Set<string>();
    for (let version = 2; version <= 80; version++) {
      const changed: ListedRuleRow[] = Array.from({ length: 1 + next(3) }, created);
      const gone: string[] = [];
      const pageGroups = [];
      const roll = next(12);
      if (roll === 0) {
        const group = pick(groups);
        group.status = group.status === 'Active' ? 'Inactive' : 'Active';
        pageGroups.push({ ...group });
      } else if (roll === 1) {
        const earlier = pick([...rules.values()]);
        changed.push({ ...earlier, status: earlier.status === 'Active' ? 'Inactive' : 'Active' });
      } else if (roll === 2) {
        gone.push(pick([...rules.keys()]));
      } else carried++;
      for (const rule of changed) rules.set(rule.id, rule);
      for (const id of gone) rules.delete(id);
      const focus = [...changed.map((rule) => rule.id), pick([...rules.keys()])];
      const pages = [encodePage({ rules: changed, groups: pageGroups })];
      const outcome = run({ workspaceId: W, version, focus, changes: { from: version - 1, pages, gone } });
      expect(outcome, `job ${version}`).toEqual(
        createLintJobs()({ workspaceId: W, version, focus, whole: whole() }),
      );
      // Every finding of the workspace as well, from the list the job brought up to date.
      const all = run({ workspaceId: W, version });
      expect(all, `job ${version}, whole`).toEqual(
        createLintJobs()({ workspaceId: W, version, whole: whole() }),
      );
      for (const finding of 'findings' in all ? all.findings : [])
        codes.add(`${finding.code} ${finding.severity}`);
    }
    // Most jobs were creates alone (the list carried over), and the stream made loops and shadows.
    expect(carried).toBeGreaterThan(50);
    expect([...codes]).toEqual(
      expect.arrayContaining([
        'redirect_loop error',
        'redirect_loop warning',
        'shadowed warning',
        'duplicate warning',
      ]),
    );
  });
});

describe('scoped lint jobs (a large workspace’s writes)', () => {
  const scoped = (focus: string, rules: ListedRuleRow[]): LintJob => ({
    workspaceId: W,
    version: 1,
    scoped: [{ focus, pages: [page(rules)] }],
  });

  it('answers the rule among the rules sent with it, and a rule sent again changed as it is now', () => {
    const run = createLintJobs();
    const first = cancel('Cancel_scop1', 'a.test', 1);
    const later = cancel('Cancel_scop2', 'a.test', 2);
    const rules = [first, later];
    expect(run(scoped(later.id, rules))).toEqual(afresh(rules, [later.id]));
    const codes = (outcome: LintOutcome) =>
      'findings' in outcome ? outcome.findings.map((f) => f.code) : [];
    expect(codes(run(scoped(later.id, rules)))).toEqual(['shadowed', 'duplicate']);
    // The earlier rule, sent again with another host (and then switched off): not the object kept.
    const moved = [cancel('Cancel_scop1', 'b.test', 1), later];
    expect(run(scoped(later.id, moved))).toEqual(afresh(moved, [later.id]));
    expect(codes(run(scoped(later.id, moved)))).toEqual([]);
    const off = [cancel('Cancel_scop1', 'a.test', 1, 'Inactive'), later];
    expect(run(scoped(later.id, off))).toEqual(afresh(off, [later.id]));
    expect(codes(run(scoped(later.id, off)))).toEqual(['duplicate']);
  });
});
