// One change request's evidence, where it runs (a worker of the evidence pool, or this thread): the
// workspace's rules and groups before, the change's effects applied to them in memory after, and for
// both the lint, the browser compile and every stored suite's cases traced; answered as the differences.
// Plain data in and out, so that it can cross to a worker and back.
import { compileBrowserRules } from '../../engine/dnr/index.js';
import { compileRuleSet, type EngineRule, type RuleSet, toEngineRequest } from '../../engine/index.js';
import { type LintGroup, type LintRule, lint } from '../../engine/lint/index.js';
import { inEnvironment } from '../../engine/variables.js';
import { checkResolvedPairs } from '../../engine/variables-check.js';
import { decodePage } from '../../jobs/job-pages.js';
import { type CaseTrace, compareCase } from '../../rule-tests/compare-case.js';
import type { RuleTestCase } from '../../rule-tests/rule-test-file.js';
import type { ListedRuleRow } from '../shared/listed-rules-store.js';
import type { Effect } from './change-requests-input.js';
import type { Evidence } from './change-requests-schemas.js';

/** A stored suite of `rulekeeper test` cases. */
export interface Suite {
  name: string;
  cases: RuleTestCase[];
}

export interface EvidenceJob {
  revision: number;
  /** The workspace's rules in list order, as pages of `{rules}` (job-pages.ts's rulePages). */
  pages: Uint8Array[];
  groups: LintGroup[];
  effects: Effect[];
  suites: Suite[];
  /** The values of the environment both sides are traced and compiled in (decisions §20), by name. */
  values?: [string, string][];
}

interface Rule {
  id: string;
  name: string;
  ruleType: string;
  status: string;
  groupId: string | null;
  pairs: string;
  removeCSPHeader?: boolean;
}

/** The workspace's rules in list order; a rule read twice (moved while the pages were read) counts once, last. */
function rulesOf(pages: Uint8Array[]): Rule[] {
  const rows: ListedRuleRow[] = [];
  for (const page of pages) rows.push(...(decodePage<{ rules: ListedRuleRow[] }>(page).rules ?? []));
  const last = new Map(rows.map((row, index) => [row.id, index]));
  return rows
    .filter((row, index) => last.get(row.id) === index)
    .map(({ groupStatus: _status, creationDate: _date, ...rule }) => rule);
}

/** The rules and groups after the change: its effects applied in order, new rules last (as created). */
function applied(
  rules: Rule[],
  groups: LintGroup[],
  effects: Effect[],
): { rules: Rule[]; groups: LintGroup[] } {
  const byId = new Map(rules.map((rule) => [rule.id, { ...rule }]));
  const groupsById = new Map(groups.map((group) => [group.id, { ...group }]));
  for (const effect of effects) {
    if (effect.kind === 'group') {
      if (effect.op === 'create')
        groupsById.set(effect.id, { id: effect.id, name: effect.id, status: effect.status });
      else if (effect.op === 'update') {
        const group = groupsById.get(effect.id);
        if (group && effect.status) group.status = effect.status;
      } else {
        groupsById.delete(effect.id);
        for (const rule of byId.values()) if (rule.groupId === effect.id) rule.groupId = null;
      }
    } else if (effect.op === 'create') byId.set(effect.id, { id: effect.id, ...effect.rule });
    else if (effect.op === 'update') {
      const rule = byId.get(effect.id);
      if (rule) Object.assign(rule, effect.patch);
    } else byId.delete(effect.id);
  }
  return { rules: [...byId.values()], groups: [...groupsById.values()] };
}

/** One side of the change: its rules as the engine and the lint take them. */
function sideOf(rules: Rule[], groups: LintGroup[], values: Map<string, string>) {
  const status = new Map(groups.map((group) => [group.id, group.status]));
  const written: EngineRule[] = rules.map(({ groupId, pairs, removeCSPHeader, ...rule }) => {
    const groupStatus = groupId ? status.get(groupId) : undefined;
    return {
      ...rule,
      ...(groupStatus ? { groupStatus } : {}),
      pairs: JSON.parse(pairs),
      ...(removeCSPHeader === undefined ? {} : { removeCSPHeader }),
    };
  });
  // Traced, compiled and linted as the rules are in the environment (as GET /v1/lint of it lints them).
  const engine = inEnvironment(written, values, checkResolvedPairs).rules;
  const linted: LintRule[] = rules.map((rule, i) => ({
    id: rule.id,
    name: rule.name,
    ruleType: rule.ruleType,
    status: rule.status,
    groupId: rule.groupId,
    pairs: (engine[i] as EngineRule).pairs as Record<string, unknown>[],
  }));
  let set: RuleSet | undefined;
  return {
    engine,
    findings: () => lint(linted, groups).findings,
    browser: () => new Map(compileBrowserRules(engine).report.map((entry) => [entry.ruleId, entry.status])),
    set: () => {
      set ??= compileRuleSet(engine);
      return set;
    },
  };
}

type Side = ReturnType<typeof sideOf>;

/** A case's request traced (the rules that acted explained) and judged; refused requests fail. */
function runCase(side: Side, testCase: RuleTestCase): { pass: boolean; trace: CaseTrace | null } {
  const request = toEngineRequest(testCase.request as never);
  if ('details' in request) return { pass: false, trace: null };
  const result = side.set().traceActed(request) as unknown as CaseTrace;
  const trace: CaseTrace = {
    outcome: result.outcome,
    rules: result.rules.map(({ ruleId, name, acted }) => ({ ruleId, name, acted })),
  };
  return { pass: compareCase(testCase, trace).length === 0, trace };
}

export function runEvidence(job: EvidenceJob): Evidence {
  const rules = rulesOf(job.pages);
  const after = applied(rules, job.groups, job.effects);
  const values = new Map(job.values ?? []);
  const before = sideOf(rules, job.groups, values);
  const then = sideOf(after.rules, after.groups, values);

  const key = (finding: unknown) => JSON.stringify(finding);
  const findingsBefore = before.findings();
  const findingsAfter = then.findings();
  const keysBefore = new Set(findingsBefore.map(key));
  const keysAfter = new Set(findingsAfter.map(key));

  const browserBefore = before.browser();
  const browserAfter = then.browser();
  const browser = [...new Set([...browserBefore.keys(), ...browserAfter.keys()])]
    .filter((ruleId) => browserBefore.get(ruleId) !== browserAfter.get(ruleId))
    .map((ruleId) => ({
      ruleId,
      before: browserBefore.get(ruleId) ?? null,
      after: browserAfter.get(ruleId) ?? null,
    }));

  const tests: NonNullable<Evidence['tests']> = [];
  const outcomes: NonNullable<Evidence['outcomes']> = [];
  for (const suite of job.suites) {
    const tally = { before: { passed: 0, failed: 0 }, after: { passed: 0, failed: 0 } };
    const changed: { case: string; before: 'pass' | 'fail'; after: 'pass' | 'fail' }[] = [];
    for (const testCase of suite.cases) {
      const was = runCase(before, testCase);
      const is = runCase(then, testCase);
      tally.before[was.pass ? 'passed' : 'failed']++;
      tally.after[is.pass ? 'passed' : 'failed']++;
      if (was.pass !== is.pass)
        changed.push({
          case: testCase.name,
          before: was.pass ? 'pass' : 'fail',
          after: is.pass ? 'pass' : 'fail',
        });
      if (JSON.stringify(was.trace?.outcome) !== JSON.stringify(is.trace?.outcome))
        outcomes.push({
          suite: suite.name,
          case: testCase.name,
          request: testCase.request,
          before: was.trace,
          after: is.trace,
        });
    }
    tests.push({ suite: suite.name, ...tally, changed });
  }

  return {
    status: 'ready',
    revision: job.revision,
    lint: {
      added: findingsAfter.filter((finding) => !keysBefore.has(key(finding))),
      removed: findingsBefore.filter((finding) => !keysAfter.has(key(finding))),
    },
    tests,
    outcomes,
    browser,
  };
}
