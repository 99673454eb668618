// Issuing, listing, revoking and checking API keys; each key speaks for one user in one workspace,
// with a scope, and possibly until an expiry.
import type { Db } from '../../db/tables.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { hashApiKey, newApiKey, randomSuffix } from '../../ids.js';
import type { Role } from '../../model/role.js';
import { DEFAULT_SCOPE, ROLE_OF_SCOPE } from './key-scopes.js';
import type { Whoami } from './keys-schemas.js';
import type { KeyOptions, KeyPrincipal, KeysStore } from './keys-store.js';

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  keyId: string;
  workspaceId: string;
  userId: string;
  /** The user's role in the workspace (which the key's scope does not change). */
  role: Role;
}

/** What a presented key turned out to be: valid (who it speaks for), or refused and why. */
export type KeyCheck =
  | { principal: KeyPrincipal }
  /** Unknown or revoked: nothing more is said, so that nothing is learnt about other keys. */
  | { refused: 'unknown' }
  /** The key's own expiry, which its holder may know. */
  | { refused: 'expired'; expiredAt: number };

/** What a refusal of an expired key says: about that key alone. */
export const expiryDetail = (expiredAt: number): ErrorDetail => ({
  path: '',
  message: `this key expired at ${new Date(expiredAt).toISOString()}`,
});

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_USER = 'admin';

/** Most principals a service keeps cached; past it, the oldest entry makes room. */
const MAX_CACHED_KEYS = 10_000;

const NO_OPTIONS: KeyOptions = { scope: DEFAULT_SCOPE, expiresAt: null, name: null };

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
   * may so be accepted here for up to this long. Keys revoked through this service are forgotten at
   * once; a key is never remembered past its expiry.
   */
  cacheTtlMs?: number;
}) {
  // By key hash, never by the key itself: the clear key is not kept beyond its request.
  // The answer itself is kept, so that a hit allocates nothing.
  const cache = new Map<string, { checked: { principal: KeyPrincipal }; until: number }>();
  // Keys found active by id (stillValid), until when; the same rules as the cache above.
  const active = new Map<string, { until: number; workspaceId: string }>();
  // A look-up that began before a revocation here may have read the key as valid: it is not cached.
  let revocations = 0;

  /** Until when a key found valid at `now` may be taken as valid without asking again. */
  const rememberUntil = (now: number, expiresAt: number | null) =>
    Math.min(now + cacheTtlMs, expiresAt ?? Number.POSITIVE_INFINITY);

  function remember<V>(map: Map<string, V>, key: string, value: V): void {
    if (map.size >= MAX_CACHED_KEYS) map.delete(map.keys().next().value as string);
    map.set(key, value);
  }

  function judge(principal: KeyPrincipal | undefined, now: number): KeyCheck {
    if (!principal) return { refused: 'unknown' };
    if (principal.expiresAt !== null && principal.expiresAt <= now)
      return { refused: 'expired', expiredAt: principal.expiresAt };
    return { principal };
  }

  /** The key checked; a hit in the cache answers without awaiting the database. */
  function check(key: string): KeyCheck | Promise<KeyCheck> {
    const keyHash = hashApiKey(key);
    const cached = cache.get(keyHash);
    if (cached && cached.until > Date.now()) return cached.checked;
    const revocationsBefore = revocations;
    return keysStore.findPrincipal(keyHash).then((principal) => {
      const now = Date.now();
      const checked = judge(principal, now);
      // Only valid keys are cached: a key created a moment ago must work on its first request.
      cache.delete(keyHash);
      if ('principal' in checked && cacheTtlMs > 0 && revocations === revocationsBefore) {
        remember(cache, keyHash, { checked, until: rememberUntil(now, checked.principal.expiresAt) });
      }
      return checked;
    });
  }

  async function issue(
    workspace: string,
    user: string,
    options: KeyOptions = NO_OPTIONS,
  ): Promise<IssuedKey> {
    const key = newApiKey();
    return db.transaction().execute(async (trx) => {
      const now = Date.now();
      const userId = await keysStore.ensureUser(trx, user, `usr_${randomSuffix(12)}`, now);
      const found = await keysStore.ensureWorkspace(trx, workspace, `ws_${randomSuffix(12)}`, userId, now);
      const workspaceId = found.id;
      if (options.environment && !(await keysStore.hasEnvironment(trx, workspaceId, options.environment)))
        throw new AppError('ENVIRONMENT_NOT_FOUND', [
          {
            path: '/environment',
            message: `workspace "${workspace}" has no environment "${options.environment}"`,
          },
        ]);
      // A key's user is a member: the workspace's first user its owner, anyone else with the role its
      // key's scope stands for, unless they are a member already (a key never changes a role).
      const chosen = found.ownerUserId === userId ? 'owner' : ROLE_OF_SCOPE[options.scope];
      const role = await keysStore.ensureMembership(trx, workspaceId, userId, chosen, now);
      const keyId = `key_${randomSuffix(12)}`;
      await keysStore.insertKey(trx, {
        ...options,
        id: keyId,
        keyHash: hashApiKey(key),
        userId,
        workspaceId,
        now,
      });
      return { key, keyId, workspaceId, userId, role };
    });
  }

  return {
    issue,
    check,

    /** Who the key speaks for, while it is valid (not unknown, revoked or expired). */
    authenticate(key: string): KeyPrincipal | undefined | Promise<KeyPrincipal | undefined> {
      const checked = check(key);
      const principal = (c: KeyCheck) => ('principal' in c ? c.principal : undefined);
      return checked instanceof Promise ? checked.then(principal) : principal(checked);
    },

    /**
     * Whether the key a principal came from may still be used: not expired (answered at once), not
     * revoked (asked again at most every `cacheTtlMs`, like `authenticate`). For what outlives its
     * request, such as a change stream.
     */
    stillValid(principal: KeyPrincipal): boolean | Promise<boolean> {
      const now = Date.now();
      if (principal.expiresAt !== null && principal.expiresAt <= now) return false;
      if ((active.get(principal.keyId)?.until ?? 0) > now) return true;
      const revocationsBefore = revocations;
      return keysStore.isActive(principal.keyId, now).then((valid) => {
        active.delete(principal.keyId);
        if (valid && cacheTtlMs > 0 && revocations === revocationsBefore)
          remember(active, principal.keyId, {
            until: rememberUntil(now, principal.expiresAt),
            workspaceId: principal.workspaceId,
          });
        return valid;
      });
    },

    /** The key with its user and workspace, as GET /v1/whoami shows it. */
    async whoami(principal: KeyPrincipal): Promise<Whoami> {
      if (principal.via === 'session') {
        const member = await keysStore.describeMember(principal.userId, principal.workspaceId);
        if (!member) throw new AppError('SESSION_INVALID');
        return {
          key: null,
          user: { id: principal.userId, name: member.user, role: principal.role },
          workspace: { id: principal.workspaceId, name: member.workspace },
        };
      }
      const found = await keysStore.find(principal.keyId);
      // Keys are never deleted; a key that passed the check has its row.
      if (!found) throw new AppError('API_KEY_INVALID');
      const { id, name, scope, expiresAt, createdAt, environment } = found;
      return {
        key: { id, name, scope, expiresAt, createdAt, environment: environment ?? null },
        user: { id: found.userId, name: found.user, role: principal.role },
        workspace: { id: found.workspaceId, name: found.workspace },
      };
    },

    list: () => keysStore.list(),

    async revoke(keyId: string): Promise<boolean> {
      const revoked = await keysStore.revoke(keyId, Date.now());
      revocations++;
      for (const [keyHash, { checked }] of cache) {
        if (checked.principal.keyId === keyId) cache.delete(keyHash);
      }
      active.delete(keyId);
      return revoked;
    },

    /**
     * Forgets what it remembered of the keys of a workspace (of every workspace without one): who may
     * do what there changed, here or on another instance (heard through the access signals).
     */
    forget(workspaceId?: string): void {
      revocations++;
      for (const [keyHash, { checked }] of cache)
        if (workspaceId === undefined || checked.principal.workspaceId === workspaceId) cache.delete(keyHash);
      for (const [keyId, entry] of active)
        if (workspaceId === undefined || entry.workspaceId === workspaceId) active.delete(keyId);
    },

    /** On a new, empty database: a default workspace, user and key, so a newcomer can start at once. */
    async ensureDefaultKey(): Promise<IssuedKey | undefined> {
      if (await keysStore.hasAnyWorkspace()) return undefined;
      return issue(DEFAULT_WORKSPACE, DEFAULT_USER);
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
