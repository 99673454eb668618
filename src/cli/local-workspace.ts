// Commands that act on a workspace of the local database (DATABASE_URL) by name: the database opened
// and migrated, the workspace and the user found, and the services such a command needs.
import { loadConfig } from '../config.js';
import { type Database, migrate, openDatabase } from '../db/database.js';
import type { Principal } from '../model/principal.js';
import { createChangesService } from '../modules/changes/changes-service.js';
import { createChangesStore } from '../modules/changes/changes-store.js';
import { createKeysStore } from '../modules/keys/keys-store.js';

/** A problem with what the operator asked (exit code 2), as opposed to a failed run. */
export class UsageError extends Error {}

export interface LocalWorkspace {
  database: Database;
  config: ReturnType<typeof loadConfig>;
  /** Acts as `user` (default: the workspace's owner) in the workspace. */
  principal: Principal;
  changes: ReturnType<typeof createChangesService>;
}

/** Runs `work` on the named workspace, then closes the database whatever happened. */
export async function withLocalWorkspace<T>(
  workspace: string,
  user: string | undefined,
  work: (local: LocalWorkspace) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const database = openDatabase(config);
  try {
    await migrate(database);
    const keys = createKeysStore(database.db);
    const found = await keys.findWorkspace(workspace);
    if (!found)
      throw new UsageError(`no workspace named "${workspace}" (create one with rulekeeper keys create)`);
    const userId = user === undefined ? found.ownerUserId : (await keys.findUser(user))?.id;
    if (!userId) throw new UsageError(`no user named "${user}"`);
    const changes = createChangesService({
      store: createChangesStore(database.db, database.dialect),
      dataVersion: database.dataVersion,
      signals: database.signals,
    });
    // The operator at the server's shell acts with every power, as the owner would.
    const principal = {
      keyId: '',
      via: 'key' as const,
      userId,
      workspaceId: found.id,
      ownerUserId: found.ownerUserId,
      role: 'owner' as const,
    };
    return await work({ database, config, principal, changes });
  } finally {
    await database.close();
  }
}
