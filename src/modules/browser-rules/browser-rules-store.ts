// SQL for the browser rules: a workspace's active rules in list order, with their group's status.
import type { Db } from '../../db/tables.js';

/** A rule as the compiler needs it; its pairs still JSON text (parsed a slice at a time). */
export interface ActiveRuleRow {
  id: string;
  ruleType: string;
  groupStatus: string | null;
  pairs: string;
}

export function createBrowserRulesStore(db: Db) {
  return {
    /** The workspace's Active rules, oldest first (the order rules act in); their group may be inactive. */
    async activeRules(workspaceId: string): Promise<ActiveRuleRow[]> {
      const rows = await db
        .selectFrom('rules as r')
        .leftJoin('groups as g', 'g.id', 'r.group_id')
        .select(['r.id', 'r.rule_type', 'r.pairs', 'g.status as group_status'])
        .where('r.workspace_id', '=', workspaceId)
        .where('r.status', '=', 'Active')
        .orderBy('r.creation_date')
        .orderBy('r.id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        ruleType: row.rule_type,
        groupStatus: row.group_status,
        pairs: row.pairs,
      }));
    },
  };
}

export type BrowserRulesStore = ReturnType<typeof createBrowserRulesStore>;
