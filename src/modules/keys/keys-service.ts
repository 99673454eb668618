// Issuing, listing, revoking and checking API keys; each key speaks for one user in one workspace.
import type { Db } from '../../db/tables.js';
import { hashApiKey, newApiKey, randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import type { KeysStore } from './keys-store.js';

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  keyId: string;
  workspaceId: string;
  userId: string;
}

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_USER = 'admin';

/** Most principals a service keeps cached; past it, the oldest entry makes room. */
const MAX_CACHED_KEYS = 10_000;

export function createKeysService({
  db,
  keysStore,
  cacheTtlMs = 0,
}: {
  db: Db;
  keysStore: KeysStore;
  /**
   * How long a valid key's principal is remembered (0: never). Every request looks its key up, and the
   * look-up is half the database work of a read; a key revoked elsewhere (the CLI, another instance)
   * may so be accepted here for up to this long. Keys revoked through this service are forgotten at once.
   */
  cacheTtlMs?: number;
}) {
  // By key hash, never by the key itself: the clear key is not kept beyond its request.
  const cache = new Map<string, { principal: Principal; expires: number }>();
  // A look-up that began before a revocation here may have read the key as valid: it is not cached.
  let revocations = 0;

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

    /** Who the key speaks for; a hit in the cache answers without awaiting the database. */
    authenticate(key: string): Principal | Promise<Principal | undefined> {
      const keyHash = hashApiKey(key);
      const cached = cache.get(keyHash);
      if (cached && cached.expires > Date.now()) return cached.principal;
      const revocationsBefore = revocations;
      return keysStore.findPrincipal(keyHash).then((principal) => {
        // Only valid keys are cached: a key created a moment ago must work on its first request.
        cache.delete(keyHash);
        if (principal && cacheTtlMs > 0 && revocations === revocationsBefore) {
          if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
          cache.set(keyHash, { principal, expires: Date.now() + cacheTtlMs });
        }
        return principal;
      });
    },

    list: () => keysStore.list(),

    async revoke(keyId: string): Promise<boolean> {
      const revoked = await keysStore.revoke(keyId, Date.now());
      revocations++;
      for (const [keyHash, { principal }] of cache) {
        if (principal.keyId === keyId) cache.delete(keyHash);
      }
      return revoked;
    },

    /** On a new, empty database: a default workspace, user and key, so a newcomer can start at once. */
    async ensureDefaultKey(): Promise<IssuedKey | undefined> {
      if (await keysStore.hasAnyWorkspace()) return undefined;
      return issue(DEFAULT_WORKSPACE, DEFAULT_USER);
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
