// One lint's work, where it runs (a lint worker, or this thread for the CLI): the workspace's rules and
// groups as the caller last sent them, kept here and brought up to date with the changes it sends,
// linted whole or for some rules. Inputs cross as pages of UTF-8 JSON that are moved, not copied, and are
// parsed here: a workspace of 100,000 rules is never parsed or copied whole on the event loop.
import { resourceLimits } from 'node:worker_threads';
import {
  extendList,
  FINDING_CODES,
  type Finding,
  findingsOf,
  invalidInEnvironment,
  type LintGroup,
  type LintRule,
  lint,
  preparedLint,
  SEVERITIES,
  undefinedVariables,
} from '../../engine/lint/index.js';
import { hideValues, inEnvironment } from '../../engine/variables.js';
import { checkResolvedPairs } from '../../engine/variables-check.js';
import { decodePage } from '../../jobs/job-pages.js';
import type { ListedRuleRow } from '../shared/listed-rules-store.js';

/** A page of the workspace, as the caller sends it. */
export interface InputPage {
  rules?: ListedRuleRow[];
  groups?: LintGroup[];
}

export interface LintJob {
  workspaceId: string;
  version: number;
  /** Rules' ids: only the findings about them, at the cost of each rule against the others. */
  focus?: string[];
  /** The workspace whole, as of `version` or later. */
  whole?: Uint8Array[];
  /** What changed after `from`: the objects still there (pages), and the ids of those gone. */
  changes?: { from: number; pages: Uint8Array[]; gone: string[] };
  /** The environment the whole lint is of (decisions §20); absent: the rules as written. */
  environment?: LintEnvironment;
  /**
   * A large workspace's writes (lint-service.ts): for each written rule, the rules around it that its
   * checks read, linted for that rule alone and not kept; nothing of the workspace is held for them.
   */
  scoped?: { focus: string; pages: Uint8Array[] }[];
}

/** An environment's values (secrets resolved) and the workspace's variables by name, for one lint. */
export interface LintEnvironment {
  name: string;
  values: [string, string][];
  /** The names of the secret variables: their values never go into a finding. */
  secrets: string[];
  /** Every environment of the workspace. */
  environments: string[];
  /** Each variable with the environments that have a value of it. */
  defined: [string, string[]][];
}

export interface NamedRule {
  id: string;
  name: string;
  ruleType: string;
  status: string;
}

export type LintOutcome =
  | { ok: true; findings: Finding[]; complete: boolean; named: NamedRule[] }
  /** The job did not hold the workspace as of its version (`held`: the version it holds, if any). */
  | { missing: true; held?: number };

type ListedRule = LintRule & { creationDate: number };

/** Rules of scoped jobs kept as parsed (a few KB each with what the checks keep of them). */
const MAX_RECENT_RULES = 20_000;

interface Held {
  version: number;
  rules: Map<string, ListedRule>;
  groups: Map<string, LintGroup>;
  /** The rules in list order; a change's rules are merged in, not the whole sorted again. */
  ordered?: ListedRule[];
  /** What it came as, encoded: what holding it is reckoned by. */
  bytes: number;
}

const listed = ({ groupStatus, ...row }: ListedRuleRow): ListedRule => ({
  ...row,
  pairs: JSON.parse(row.pairs),
});

function byListOrder(a: ListedRule, b: ListedRule): number {
  if (a.creationDate !== b.creationDate) return a.creationDate - b.creationDate;
  return a.id < b.id ? -1 : 1;
}

/** The rows of `pages` into `held`; answers the rules among them, and whether all of them are new. */
function absorb(held: Held, pages: Uint8Array[]): { rules: ListedRule[]; allNew: boolean } {
  const rules: ListedRule[] = [];
  let allNew = true;
  for (const bytes of pages) {
    const page = decodePage<InputPage>(bytes);
    for (const row of page.rules ?? []) {
      const rule = listed(row);
      if (held.rules.has(row.id)) allNew = false;
      held.rules.set(row.id, rule);
      rules.push(rule);
    }
    for (const group of page.groups ?? []) held.groups.set(group.id, group);
    held.bytes += bytes.byteLength;
  }
  return { rules, allNew };
}

/**
 * Two lists in list order as one: the kept rules and the few a write changed, without sorting the
 * whole workspace again on every write (a create's rule goes last).
 */
function merged(kept: ListedRule[], changed: ListedRule[]): ListedRule[] {
  const rules: ListedRule[] = [];
  let k = 0;
  for (const rule of changed.sort(byListOrder)) {
    while (k < kept.length && byListOrder(kept[k] as ListedRule, rule) < 0)
      rules.push(kept[k++] as ListedRule);
    rules.push(rule);
  }
  while (k < kept.length) rules.push(kept[k++] as ListedRule);
  return rules;
}

/**
 * Runs lint jobs, keeping the inputs of the workspaces linted last within a quarter of the heap (as
 * encoded; parsed, they take a few times that), the least recently linted dropped first.
 */
export function createLintJobs(
  maxKeptBytes = ((resourceLimits.maxOldGenerationSizeMb ?? 1024) * 2 ** 20) / 4,
) {
  const kept = new Map<string, Held>();

  function keep(workspaceId: string, held: Held): void {
    kept.delete(workspaceId);
    let total = held.bytes;
    for (const other of kept.values()) total += other.bytes;
    for (const [id, other] of kept) {
      if (total <= maxKeptBytes) break;
      kept.delete(id);
      total -= other.bytes;
    }
    kept.set(workspaceId, held);
  }

  /** The workspace as of the job's version, from what is kept and what the job brings; else undefined. */
  function inputs(job: LintJob): Held | undefined {
    if (job.whole) {
      const held: Held = { version: job.version, rules: new Map(), groups: new Map(), bytes: 0 };
      // Pages come in list order; a rule read twice (moved while the pages were read) counts once.
      held.ordered = absorb(held, job.whole).rules.filter((rule) => held.rules.get(rule.id) === rule);
      return held;
    }
    const held = kept.get(job.workspaceId);
    if (!held) return undefined;
    if (held.version >= job.version) return held; // newer is as good: it holds this version's changes
    if (!job.changes || job.changes.from !== held.version) return undefined;
    for (const id of job.changes.gone) {
      held.rules.delete(id);
      held.groups.delete(id);
    }
    const before = held.ordered;
    const { rules, allNew } = absorb(held, job.changes.pages);
    const changed = rules.sort(byListOrder);
    const last = before?.[before.length - 1];
    const appended = allNew && job.changes.gone.length === 0;
    if (before && appended && (!last || !changed[0] || byListOrder(last, changed[0]) < 0)) {
      // Only new rules, after the others (creates): the list grows at its end.
      held.ordered = before.concat(changed);
      extendList(before, held.ordered);
    } else {
      const replaced = new Set([...job.changes.gone, ...changed.map((rule) => rule.id)]);
      held.ordered =
        before &&
        merged(
          before.filter((rule) => !replaced.has(rule.id)),
          changed,
        );
    }
    held.version = job.version;
    return held;
  }

  /**
   * The rules scoped jobs were sent last, by id, with the row each was made from: a rule sent again
   * unchanged (the neighbours of a rule written again and again) is the same object as before, so what
   * the checks made of it (compiled, its form) is kept with it, not made again on every write.
   */
  const recent = new Map<string, { row: string; rule: ListedRule }>();
  function reused(row: ListedRuleRow): ListedRule {
    const text = JSON.stringify(row);
    const before = recent.get(row.id);
    recent.delete(row.id);
    const rule = before?.row === text ? before.rule : listed(row);
    if (recent.size >= MAX_RECENT_RULES) recent.delete(recent.keys().next().value as string);
    recent.set(row.id, { row: text, rule });
    return rule;
  }

  /** The findings about each written rule among the rules sent with it (LintJob.scoped), each once. */
  function scopedLint(scoped: NonNullable<LintJob['scoped']>): LintOutcome {
    const found = new Map<string, Finding>();
    let complete = true;
    for (const { focus, pages } of scoped) {
      const rules = new Map<string, ListedRule>();
      const groups = new Map<string, LintGroup>();
      for (const bytes of pages) {
        const page = decodePage<InputPage>(bytes);
        for (const row of page.rules ?? []) rules.set(row.id, reused(row));
        for (const group of page.groups ?? []) groups.set(group.id, group);
      }
      const each = lint([...rules.values()].sort(byListOrder), [...groups.values()], { focus });
      complete &&= each.complete;
      for (const finding of findingsOf(each.findings, focus)) found.set(JSON.stringify(finding), finding);
    }
    return { ok: true, findings: [...found.values()], complete, named: [] };
  }

  return function run(job: LintJob): LintOutcome {
    if (job.scoped) return scopedLint(job.scoped);
    const held = inputs(job);
    if (!held) {
      const before = kept.get(job.workspaceId);
      return before ? { missing: true, held: before.version } : { missing: true };
    }
    keep(job.workspaceId, held);
    held.ordered ??= [...held.rules.values()].sort(byListOrder);
    const ordered = held.ordered;
    const groups = [...held.groups.values()];
    if (job.focus !== undefined) {
      // A finding about two of the rules is found for each: answered once.
      const found = new Map<string, Finding>();
      let complete = true;
      const lintOf = preparedLint(ordered, groups);
      for (const id of job.focus) {
        const each = lintOf({ focus: id });
        complete &&= each.complete;
        for (const finding of findingsOf(each.findings, id)) found.set(JSON.stringify(finding), finding);
      }
      return { ok: true, findings: [...found.values()], complete, named: [] };
    }
    const { findings, complete } = job.environment
      ? lintIn(job.environment, ordered, groups)
      : lint(ordered, groups);
    const named = new Set(findings.flatMap((finding) => finding.ruleIds));
    return {
      ok: true,
      findings,
      complete,
      named: ordered
        .filter((rule) => named.has(rule.id))
        .map(({ id, name, ruleType, status }) => ({ id, name, ruleType, status })),
    };
  };
}

/** The findings in list order as the lint orders them: errors first, then by code, then by rule. */
function sorted(findings: Finding[], rules: readonly LintRule[]): Finding[] {
  const position = new Map(rules.map((rule, index) => [rule.id, index]));
  const order = (f: Finding) => [
    SEVERITIES.indexOf(f.severity),
    FINDING_CODES.indexOf(f.code),
    position.get(f.ruleIds[0] as string) ?? 0,
  ];
  return findings
    .map((finding, index) => ({ finding, index, key: order(finding) }))
    .sort(
      (a, b) =>
        (a.key[0] as number) - (b.key[0] as number) ||
        (a.key[1] as number) - (b.key[1] as number) ||
        (a.key[2] as number) - (b.key[2] as number) ||
        a.index - b.index,
    )
    .map(({ finding }) => finding);
}

/** The findings about rules that took a secret, with its value shown as its reference. */
function scrubbed(
  findings: Finding[],
  used: Map<string, string[]>,
  secrets: Set<string>,
  values: Map<string, string>,
): Finding[] {
  if (secrets.size === 0) return findings;
  return findings.map((finding) => {
    const names = new Set(finding.ruleIds.flatMap((id) => used.get(id) ?? []).filter((n) => secrets.has(n)));
    if (names.size === 0) return finding;
    const hidden = [...names].map((name) => [name, values.get(name) ?? ''] as const);
    return {
      ...finding,
      message: hideValues(finding.message, hidden),
      hint: hideValues(finding.hint, hidden),
    };
  });
}

/**
 * The lint of the rules as they are in one environment: resolved (a rule its variables make invalid
 * there is linted as written, and found invalid_in_environment), with undefined_variable found on the
 * rules as written, and no secret's value in any finding.
 */
function lintIn(
  environment: LintEnvironment,
  ordered: ListedRule[],
  groups: LintGroup[],
): { findings: Finding[]; complete: boolean } {
  const values = new Map(environment.values);
  const { rules: resolved, used } = inEnvironment(ordered, values, checkResolvedPairs);
  // No rule took a variable: the list itself, whose lint the kept work of earlier lints speeds up.
  const linted =
    used.size === 0 ? ordered : resolved.map((rule, i) => (rule.environmentProblems ? ordered[i] : rule));
  const { findings, complete } = lint(linted as ListedRule[], groups);
  const variables = {
    environments: environment.environments,
    defined: new Map(environment.defined.map(([name, where]) => [name, new Set(where)])),
  };
  const more = [
    ...resolved.flatMap((rule) => invalidInEnvironment(rule, environment.name)),
    ...ordered.flatMap((rule) => undefinedVariables(rule, variables)),
  ];
  const all = more.length > 0 ? sorted([...findings, ...more], ordered) : findings;
  return { findings: scrubbed(all, used, new Set(environment.secrets), values), complete };
}
