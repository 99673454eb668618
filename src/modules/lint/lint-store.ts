// SQL for the lint: a workspace's rules in list order, and its groups.
import type { Db } from '../../db/tables.js';
import type { LintGroup, LintRule } from '../../engine/lint/index.js';

export function createLintStore(db: Db) {
  return {
    /** Every rule of the workspace, oldest first (the order rules act in), and every group. */
    async workspace(workspaceId: string): Promise<{ rules: LintRule[]; groups: LintGroup[] }> {
      const [rules, groups] = await Promise.all([
        db
          .selectFrom('rules')
          .select(['id', 'name', 'rule_type', 'status', 'group_id', 'pairs'])
          .where('workspace_id', '=', workspaceId)
          .orderBy('creation_date')
          .orderBy('id')
          .execute(),
        db
          .selectFrom('groups')
          .select(['id', 'name', 'status'])
          .where('workspace_id', '=', workspaceId)
          .execute(),
      ]);
      return {
        rules: rules.map((row) => ({
          id: row.id,
          name: row.name,
          ruleType: row.rule_type,
          status: row.status,
          groupId: row.group_id,
          pairs: JSON.parse(row.pairs),
        })),
        groups,
      };
    },
  };
}

export type LintStore = ReturnType<typeof createLintStore>;
