// SQL for remembered idempotency keys.
import type { Db } from '../../db/tables.js';

export function createIdempotencyStore() {
  return {
    /**
     * Claims the key for this request; false when it is already claimed. On PostgreSQL a concurrent
     * claim of the same key waits here until the first transaction ends, then sees its result.
     */
    async claim(
      trx: Db,
      entry: { workspaceId: string; key: string; requestHash: string; now: number },
    ): Promise<boolean> {
      const result = await trx
        .insertInto('idempotency_keys')
        .values({
          workspace_id: entry.workspaceId,
          key: entry.key,
          request_hash: entry.requestHash,
          response: null,
          created_at: entry.now,
        })
        .onConflict((oc) => oc.columns(['workspace_id', 'key']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) > 0;
    },

    async find(trx: Db, workspaceId: string, key: string) {
      return trx
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'response'])
        .where('workspace_id', '=', workspaceId)
        .where('key', '=', key)
        .executeTakeFirst();
    },

    async saveResponse(trx: Db, workspaceId: string, key: string, response: string): Promise<void> {
      await trx
        .updateTable('idempotency_keys')
        .set({ response })
        .where('workspace_id', '=', workspaceId)
        .where('key', '=', key)
        .execute();
    },

    /** Forgets keys older than `before` (of one key, or of every workspace when `key` is left out). */
    async forget(trx: Db, before: number, workspaceId?: string, key?: string): Promise<void> {
      let query = trx.deleteFrom('idempotency_keys').where('created_at', '<', before);
      if (workspaceId !== undefined && key !== undefined) {
        query = query.where('workspace_id', '=', workspaceId).where('key', '=', key);
      }
      await query.execute();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
