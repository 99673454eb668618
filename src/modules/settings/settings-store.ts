// SQL of a workspace's settings: one row per workspace that changed one (none: the defaults).
import type { Db } from '../../db/tables.js';
import type { Settings } from './settings-schemas.js';

export function createSettingsStore(db: Db) {
  return {
    async find(trx: Db | undefined, workspaceId: string): Promise<Settings | undefined> {
      const row = await (trx ?? db)
        .selectFrom('workspace_settings')
        .select(['review', 'reviewers'])
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return row && { review: row.review, reviewers: row.reviewers };
    },

    /** Writes the workspace's settings whole, in the caller's transaction. */
    async save(trx: Db, workspaceId: string, settings: Settings, userId: string, at: number): Promise<void> {
      const values = {
        review: settings.review,
        reviewers: settings.reviewers,
        updated_at: at,
        updated_by: userId,
      };
      await trx
        .insertInto('workspace_settings')
        .values({ workspace_id: workspaceId, ...values })
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet(values))
        .execute();
    },

    /** Takes the workspace's row lock (PostgreSQL; SQLite writes one at a time): settings change one by one. */
    async lock(trx: Db, workspaceId: string): Promise<void> {
      await trx.updateTable('workspaces').set({ id: workspaceId }).where('id', '=', workspaceId).execute();
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
