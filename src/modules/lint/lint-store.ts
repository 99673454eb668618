// SQL for the lint: a workspace's rules in list order, a page at a time, and its groups.
import type { Db } from '../../db/tables.js';
import type { LintGroup } from '../../engine/lint/index.js';
import type { RuleRow } from './lint-job.js';

const RULE_COLUMNS = ['id', 'name', 'rule_type', 'status', 'group_id', 'pairs', 'creation_date'] as const;

function ruleRow(row: {
  id: string;
  name: string;
  rule_type: string;
  status: string;
  group_id: string | null;
  pairs: string;
  creation_date: number | string;
}): RuleRow {
  return {
    id: row.id,
    name: row.name,
    ruleType: row.rule_type,
    status: row.status,
    groupId: row.group_id,
    pairs: row.pairs,
    creationDate: Number(row.creation_date),
  };
}

/** Where a page of rules ends: the next starts after it. */
export type RulesCursor = { creationDate: number; id: string };

export function createLintStore(db: Db) {
  return {
    /** Up to `limit` of the workspace's rules in list order (oldest first), after `cursor`. */
    async rules(workspaceId: string, limit: number, cursor?: RulesCursor): Promise<RuleRow[]> {
      let query = db
        .selectFrom('rules')
        .select([...RULE_COLUMNS])
        .where('workspace_id', '=', workspaceId);
      if (cursor) {
        query = query.where((eb) =>
          eb.or([
            eb('creation_date', '>', cursor.creationDate),
            eb.and([eb('creation_date', '=', cursor.creationDate), eb('id', '>', cursor.id)]),
          ]),
        );
      }
      const rows = await query.orderBy('creation_date').orderBy('id').limit(limit).execute();
      return rows.map(ruleRow);
    },

    /** Up to `limit` of the workspace's groups, by id, after the group `after`. */
    async groups(workspaceId: string, limit: number, after?: string): Promise<LintGroup[]> {
      let query = db
        .selectFrom('groups')
        .select(['id', 'name', 'status'])
        .where('workspace_id', '=', workspaceId);
      if (after !== undefined) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },

    /** Those of `ids` that are the workspace's rules and groups now (the others are gone). */
    async some(
      workspaceId: string,
      ruleIds: string[],
      groupIds: string[],
    ): Promise<{ rules: RuleRow[]; groups: LintGroup[] }> {
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
      return { rules: rules.map(ruleRow), groups };
    },
  };
}

export type LintStore = ReturnType<typeof createLintStore>;
