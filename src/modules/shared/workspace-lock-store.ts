// The workspace's row, locked for the rest of a transaction: how a write that counts or checks what the
// workspace holds (room for one more suite, variable or environment; the owners left; a merge's
// conflicts) keeps a concurrent one from deciding on the same state. On SQLite a transaction writes
// alone anyway; there this is one more write of it.
import type { Db } from '../../db/tables.js';

/**
 * An update of a column no key covers: PostgreSQL takes FOR NO KEY UPDATE, so rows that refer to the
 * workspace are still inserted meanwhile (SELECT … FOR UPDATE would make those wait too).
 */
export async function lockWorkspace(trx: Db, workspaceId: string): Promise<void> {
  await trx
    .updateTable('workspaces')
    .set((eb) => ({ owner_user_id: eb.ref('owner_user_id') }))
    .where('id', '=', workspaceId)
    .execute();
}
