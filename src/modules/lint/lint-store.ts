// SQL for the lint: a workspace's groups (its rules are read by listed-rules-store.ts).
import { unindexed } from '../../db/dialect.js';
import type { Db } from '../../db/tables.js';
import type { LintGroup } from '../../engine/lint/index.js';

export function createLintStore(db: Db) {
  return {
    /** Up to `limit` of the workspace's groups, by id, after the group `after`. */
    async groups(workspaceId: string, limit: number, after?: string): Promise<LintGroup[]> {
      let query = db
        .selectFrom('groups')
        .select(['id', 'name', 'status'])
        .where('workspace_id', '=', workspaceId);
      if (after !== undefined) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },

    /** Those of `ids` that are the workspace's groups now (the others are gone). */
    async someGroups(workspaceId: string, ids: string[]): Promise<LintGroup[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('groups')
        .select(['id', 'name', 'status'])
        .where('id', 'in', ids)
        .where(unindexed('workspace_id'), '=', workspaceId)
        .execute();
    },
  };
}

export type LintStore = ReturnType<typeof createLintStore>;
