// SQL for traces: a workspace's rules in list order, each with its group's status.
import type { Db } from '../../db/tables.js';
import type { EngineRule } from '../../engine/index.js';

export function createTraceStore(db: Db) {
  return {
    /** Every rule of the workspace, oldest first (the order rules act in). */
    async workspaceRules(workspaceId: string): Promise<(EngineRule & { groupId: string | null })[]> {
      const rows = await db
        .selectFrom('rules as r')
        .leftJoin('groups as g', 'g.id', 'r.group_id')
        .select([
          'r.id',
          'r.name',
          'r.rule_type',
          'r.status',
          'r.pairs',
          'r.group_id',
          'g.status as group_status',
        ])
        .where('r.workspace_id', '=', workspaceId)
        .orderBy('r.creation_date')
        .orderBy('r.id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        ruleType: row.rule_type,
        status: row.status,
        groupId: row.group_id,
        ...(row.group_status ? { groupStatus: row.group_status } : {}),
        pairs: JSON.parse(row.pairs),
      }));
    },
  };
}

export type TraceStore = ReturnType<typeof createTraceStore>;
