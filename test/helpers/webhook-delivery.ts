// A delivery already done, written straight into the outbox: the routes that list and replay deliveries
// need one to act on, and making it through a real send is what webhooks.test.ts is for.
import type { Db } from '../../src/db/tables.js';

export async function insertDoneDelivery(
  db: Db,
  { id, workspaceId, webhookId }: { id: string; workspaceId: string; webhookId: string },
): Promise<void> {
  const at = Date.now();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id,
      workspace_id: workspaceId,
      webhook_id: webhookId,
      event_id: `evt_${id}`,
      type: 'rules.changed',
      revision: 1,
      data: null,
      created_at: at,
      state: 'delivered',
      attempts: 1,
      next_at: at,
      give_up_at: at,
      lease_owner: null,
      lease_until: null,
      last_status: 200,
      delivered_at: at,
    })
    .execute();
}
