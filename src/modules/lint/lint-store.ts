// SQL for the lint: a workspace's rules in list order, and its groups.
import type { Db } from '../../db/tables.js';
import type { LintGroup, LintRule } from '../../engine/lint/index.js';

/** A rule as the lint reads it, with where it stands in the list (its creation date, then its id). */
export type ListedRule = LintRule & { creationDate: number };

const RULE_COLUMNS = ['id', 'name', 'rule_type', 'status', 'group_id', 'pairs', 'creation_date'] as const;

function listed(row: {
  id: string;
  name: string;
  rule_type: string;
  status: string;
  group_id: string | null;
  pairs: string;
  creation_date: number | string;
}): ListedRule {
  return {
    id: row.id,
    name: row.name,
    ruleType: row.rule_type,
    status: row.status,
    groupId: row.group_id,
    pairs: JSON.parse(row.pairs),
    creationDate: Number(row.creation_date),
  };
}

export function createLintStore(db: Db) {
  return {
    /** Every rule of the workspace, oldest first (the order rules act in), and every group. */
    async workspace(workspaceId: string): Promise<{ rules: ListedRule[]; groups: LintGroup[] }> {
      const [rules, groups] = await Promise.all([
        db
          .selectFrom('rules')
          .select([...RULE_COLUMNS])
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
      return { rules: rules.map(listed), groups };
    },

    /** Those of `ids` that are the workspace's rules and groups now (the others are gone). */
    async some(
      workspaceId: string,
      ruleIds: string[],
      groupIds: string[],
    ): Promise<{ rules: ListedRule[]; groups: LintGroup[] }> {
      const [rules, groups] = await Promise.all([
        ruleIds.length === 0
          ? []
          : db
              .selectFrom('rules')
              .select([...RULE_COLUMNS])
              .where('workspace_id', '=', workspaceId)
              .where('id', 'in', ruleIds)
              .execute(),
        groupIds.length === 0
          ? []
          : db
              .selectFrom('groups')
              .select(['id', 'name', 'status'])
              .where('workspace_id', '=', workspaceId)
              .where('id', 'in', groupIds)
              .execute(),
      ]);
      return { rules: rules.map(listed), groups };
    },
  };
}

export type LintStore = ReturnType<typeof createLintStore>;
