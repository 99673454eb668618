// The rule lint of a workspace: its rules and groups read, linted by the engine, and the answer kept
// until the workspace's revision moves (a CI job or the console asks again and again between changes).
import {
  type Finding,
  findingsOf,
  type LintGroup,
  lintRule,
  lint as lintRules,
} from '../../engine/lint/index.js';
import type { Status } from '../../model/common.js';
import type { Principal } from '../../model/principal.js';
import type { RuleType } from '../../model/rule-types/index.js';
import type { ChangesService } from '../changes/changes-service.js';
import type { LintData } from './lint-schemas.js';
import type { LintStore, ListedRule } from './lint-store.js';

/** Workspaces whose findings are kept; the least recently asked go first. */
const MAX_KEPT_WORKSPACES = 256;

/** Changes read to bring kept rules up to date; past that, the workspace is read again whole. */
const MAX_CHANGES_APPLIED = 200;

type Inputs = { version: number; rules: ListedRule[]; groups: LintGroup[] };

const inListOrder = (a: ListedRule, b: ListedRule) =>
  a.creationDate === b.creationDate ? (a.id < b.id ? -1 : 1) : a.creationDate - b.creationDate;

/**
 * Two lists in list order as one: the kept rules and the few a write changed, without sorting the
 * whole workspace again on every write (a create's rule goes last).
 */
function merged(kept: ListedRule[], changed: ListedRule[]): ListedRule[] {
  const rules: ListedRule[] = [];
  let k = 0;
  for (const rule of changed) {
    while (k < kept.length && inListOrder(kept[k] as ListedRule, rule) < 0)
      rules.push(kept[k++] as ListedRule);
    rules.push(rule);
  }
  while (k < kept.length) rules.push(kept[k++] as ListedRule);
  return rules;
}

export function createLintService(deps: {
  lintStore: LintStore;
  changes: Pick<ChangesService, 'revision' | 'feed'>;
}) {
  const { lintStore, changes } = deps;
  const kept = new Map<string, { version: number; data: LintData }>();
  const inputs = new Map<string, Inputs>();
  const loading = new Map<string, Promise<Inputs>>();

  /**
   * The workspace's rules and groups as of `version`. Kept between calls and brought up to date from
   * the change log, so that a write's lint reads the objects it changed, not the whole workspace.
   */
  async function inputsOf(workspaceId: string, version: number): Promise<Inputs> {
    const held = inputs.get(workspaceId);
    if (held && held.version >= version) return held; // newer is as good: it holds this version's changes
    // Writes that arrive together share one catching-up (each would otherwise read it all again).
    const running = loading.get(workspaceId);
    if (running) {
      const got = await running;
      if (got.version >= version) return got;
    }
    const load = (async () => {
      const latest = inputs.get(workspaceId);
      const next =
        (latest && latest.version < version ? await caughtUp(workspaceId, latest, version) : undefined) ??
        ({ version, ...(await lintStore.workspace(workspaceId)) } as Inputs);
      inputs.delete(workspaceId);
      if (inputs.size >= MAX_KEPT_WORKSPACES) inputs.delete(inputs.keys().next().value as string);
      inputs.set(workspaceId, next);
      return next;
    })();
    loading.set(workspaceId, load);
    try {
      return await load;
    } finally {
      if (loading.get(workspaceId) === load) loading.delete(workspaceId);
    }
  }

  /** `held` with the changes after it applied; undefined when there are too many, or they expired. */
  async function caughtUp(workspaceId: string, held: Inputs, version: number): Promise<Inputs | undefined> {
    const page = await changes.feed(workspaceId, held.version, MAX_CHANGES_APPLIED).catch(() => undefined);
    if (!page || page.nextAfter < version || page.data.length >= MAX_CHANGES_APPLIED) return undefined;
    const ids = (type: 'rule' | 'group') => [
      ...new Set(page.data.filter((c) => c.objectType === type).map((c) => c.id)),
    ];
    const [ruleIds, groupIds] = [ids('rule'), ids('group')];
    const now = await lintStore.some(workspaceId, ruleIds, groupIds);
    const changed = new Set([...ruleIds, ...groupIds]);
    const rules = merged(
      held.rules.filter((r) => !changed.has(r.id)),
      now.rules.sort(inListOrder),
    );
    const groups = [...held.groups.filter((g) => !changed.has(g.id)), ...now.groups];
    return { version: page.nextAfter, rules, groups };
  }

  async function build(workspaceId: string, version: number): Promise<LintData> {
    const { rules, groups } = await inputsOf(workspaceId, version);
    const { findings, complete } = lintRules(rules, groups);
    const named = new Set(findings.flatMap((finding) => finding.ruleIds));
    const counts = { error: 0, warning: 0, info: 0 };
    for (const finding of findings) counts[finding.severity]++;
    return {
      findings,
      rules: rules
        .filter((rule) => named.has(rule.id))
        .map(({ id, name, ruleType, status }) => ({
          id,
          name,
          ruleType: ruleType as RuleType,
          status: status as typeof Status.static,
        })),
      counts,
      complete,
    };
  }

  /**
   * The revision is read before the rules, so a change landing meanwhile leaves an entry already
   * stale: rebuilt on the next read, never served as current.
   */
  async function lint(workspaceId: string): Promise<LintData> {
    const version = await changes.revision(workspaceId);
    const hit = kept.get(workspaceId);
    kept.delete(workspaceId);
    if (hit?.version === version) {
      kept.set(workspaceId, hit);
      return hit.data;
    }
    const data = await build(workspaceId, version);
    if (kept.size >= MAX_KEPT_WORKSPACES) kept.delete(kept.keys().next().value as string);
    kept.set(workspaceId, { version, data });
    return data;
  }

  return {
    /** Every finding about the workspace's rules and groups. */
    lint: (principal: Principal): Promise<LintData> => lint(principal.workspaceId),

    /**
     * The findings that concern one rule, in the workspace as it is now (after a write of it): from the
     * kept lint when it is current, else that rule against the others (not all against all).
     */
    async findingsOfRule(workspaceId: string, ruleId: string): Promise<Finding[]> {
      const version = await changes.revision(workspaceId);
      const hit = kept.get(workspaceId);
      if (hit?.version === version) return findingsOf(hit.data.findings, ruleId);
      const { rules, groups } = await inputsOf(workspaceId, version);
      return lintRule(rules, groups, ruleId);
    },
  };
}

export type LintService = ReturnType<typeof createLintService>;
