// The rule lint of a workspace: its rules and groups read, linted by the engine, and the answer kept
// until the workspace's revision moves (a CI job or the console asks again and again between changes).
import { type Finding, findingsOf, lintRule, lint as lintRules } from '../../engine/lint/index.js';
import type { Status } from '../../model/common.js';
import type { Principal } from '../../model/principal.js';
import type { RuleType } from '../../model/rule-types/index.js';
import type { ChangesService } from '../changes/changes-service.js';
import type { LintData } from './lint-schemas.js';
import type { LintStore } from './lint-store.js';

/** Workspaces whose findings are kept; the least recently asked go first. */
const MAX_KEPT_WORKSPACES = 256;

export function createLintService(deps: { lintStore: LintStore; changes: Pick<ChangesService, 'revision'> }) {
  const { lintStore, changes } = deps;
  const kept = new Map<string, { version: number; data: LintData }>();

  async function build(workspaceId: string): Promise<LintData> {
    const { rules, groups } = await lintStore.workspace(workspaceId);
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
    const data = await build(workspaceId);
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
      const { rules, groups } = await lintStore.workspace(workspaceId);
      return lintRule(rules, groups, ruleId);
    },
  };
}

export type LintService = ReturnType<typeof createLintService>;
