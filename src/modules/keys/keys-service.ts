// Issuing, listing, revoking and checking API keys; each key speaks for one user in one workspace.
import type { Db } from '../../db/tables.js';
import { hashApiKey, newApiKey, randomSuffix } from '../../ids.js';
import type { KeysStore, Principal } from './keys-store.js';

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  keyId: string;
  workspaceId: string;
  userId: string;
}

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_USER = 'admin';

export function createKeysService({ db, keysStore }: { db: Db; keysStore: KeysStore }) {
  async function issue(workspace: string, user: string): Promise<IssuedKey> {
    const key = newApiKey();
    return db.transaction().execute(async (trx) => {
      const now = Date.now();
      const userId = await keysStore.ensureUser(trx, user, `usr_${randomSuffix(12)}`, now);
      const workspaceId = await keysStore.ensureWorkspace(
        trx,
        workspace,
        `ws_${randomSuffix(12)}`,
        userId,
        now,
      );
      const keyId = `key_${randomSuffix(12)}`;
      await keysStore.insertKey(trx, { id: keyId, keyHash: hashApiKey(key), userId, workspaceId, now });
      return { key, keyId, workspaceId, userId };
    });
  }

  return {
    issue,

    authenticate(key: string): Promise<Principal | undefined> {
      return keysStore.findPrincipal(hashApiKey(key));
    },

    list: () => keysStore.list(),

    revoke: (keyId: string) => keysStore.revoke(keyId, Date.now()),

    /** On a new, empty database: a default workspace, user and key, so a newcomer can start at once. */
    async ensureDefaultKey(): Promise<IssuedKey | undefined> {
      if (await keysStore.hasAnyWorkspace()) return undefined;
      return issue(DEFAULT_WORKSPACE, DEFAULT_USER);
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
