// Keys over HTTP (/v1/keys): a member makes personal keys within their power, an admin makes workspace
// keys for machines (each for a service user of its own, which cannot sign in), lists and revokes
// them. keys-service.ts stays what checks a presented key; this holds the rules of making and
// taking keys through the API.
//
// Think of a leaked key: what it can make must not outlast or outrank it. So a new key is capped by
// the caller's power (the smaller of its key's scope and its role) and by its key's expiry, never by
// the role alone: a `read` key of an owner makes `read` keys only, and a key expiring tomorrow makes
// none that expires later.
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { readListQuery } from '../../http/list.js';
import type { Page } from '../../http/replies.js';
import { hashApiKey, newApiKey, randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import { effectiveScope, grants, type KeyScope, ROLE_OF_SCOPE, ROLE_REACH } from './key-scopes.js';
import { readKeyCreate } from './keys-input.js';
import { checkKeyListQuery, type Key, type NewKey } from './keys-schemas.js';
import type { KeyListing, KeysStore } from './keys-store.js';

/**
 * Who asks: a principal with what its credential may do and until when (a key's scope and expiry; a
 * session's scope is what its role reaches).
 */
export interface KeyHolder extends Principal {
  scope: KeyScope;
  /** Epoch ms; null: never. A key made by this caller expires no later. */
  expiresAt: number | null;
}

/**
 * Service users' ids begin so (people's with `usr_`): a service user is a member like any other, but
 * has no email or password and so cannot sign in; the prefix is what tells a workspace key.
 */
export const SERVICE_USER_PREFIX = 'svc_';

const isService = (userId: string) => userId.startsWith(SERVICE_USER_PREFIX);

/** A key as listed: never its hash (the store never reads it), never the key. */
const toKey = (row: KeyListing): Key => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
  user: { id: row.userId, name: row.user },
  service: isService(row.userId),
  environment: row.environment ?? null,
});

/** 403 when the caller's power does not reach `needed`, naming its key's scope or else its role. */
function shortOf(caller: KeyHolder, needed: KeyScope, path: string, what: string): AppError | undefined {
  const held = !grants(caller.scope, needed)
    ? `this key's scope is ${caller.scope}`
    : !grants(ROLE_REACH[caller.role], needed)
      ? `your role in this workspace is ${caller.role}`
      : undefined;
  return held === undefined
    ? undefined
    : new AppError('UNAUTHORIZED_ACTION', [{ path, message: `${held}: ${what}` }]);
}

/** Whether the caller may see and revoke every key of the workspace: an admin's power, scope and role. */
const managesWorkspace = (caller: KeyHolder) => effectiveScope(caller.scope, caller.role) === 'admin';

export function createKeyManagementService(deps: {
  db: Db;
  keysStore: KeysStore;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  /** Forgets what this instance remembered of the workspace's keys (the others hear the signal). */
  forget: (workspaceId: string) => void;
  activity: Pick<ActivityService, 'record'>;
}) {
  const { db, keysStore } = deps;

  return {
    /** POST /v1/keys: the key made, shown this once. */
    async create(caller: KeyHolder, body: unknown, address: string): Promise<NewKey> {
      const now = Date.now();
      const asked = readKeyCreate(body, now);
      const refusals: ErrorDetail[] = [];
      const refuse = (error: AppError | undefined) => {
        if (error?.details) refusals.push(...error.details);
      };
      if (asked.service)
        refuse(shortOf(caller, 'admin', '/service', 'only an admin or owner makes workspace keys'));
      else refuse(shortOf(caller, asked.scope, '/scope', `it cannot make a key of scope ${asked.scope}`));
      // A key, not a person signed in: a session's expiry bounds the session, not what its person makes.
      if (
        caller.via === 'key' &&
        caller.expiresAt !== null &&
        (asked.expiresAt === null || asked.expiresAt > caller.expiresAt)
      )
        refusals.push({
          path: '/expiresAt',
          message: `this key expires at ${new Date(caller.expiresAt).toISOString()}: a key it makes cannot outlive it`,
        });
      if (refusals.length > 0) throw new AppError('UNAUTHORIZED_ACTION', refusals);

      const key = newApiKey();
      const keyId = `key_${randomSuffix(12)}`;
      const { workspaceId } = caller;
      await db.transaction().execute(async (trx) => {
        // Step 8, references last: the environment must be the workspace's.
        if (
          asked.environment !== null &&
          !(await keysStore.hasEnvironment(trx, workspaceId, asked.environment))
        )
          throw new AppError('KEY_PAYLOAD_INVALID', [
            { path: '/environment', message: `the workspace has no environment "${asked.environment}"` },
          ]);
        let userId = caller.userId;
        if (asked.service) {
          // A user of its own, named after its key and unique by its suffix, a member with the role its
          // scope stands for: its key does what the scope says, and no person's role changes that.
          const suffix = randomSuffix(12);
          userId = `${SERVICE_USER_PREFIX}${suffix}`;
          await keysStore.insertUser(trx, userId, `${asked.name} (service ${suffix})`, now);
          await keysStore.ensureMembership(trx, workspaceId, userId, ROLE_OF_SCOPE[asked.scope], now);
        }
        await keysStore.insertKey(trx, {
          id: keyId,
          keyHash: hashApiKey(key),
          userId,
          workspaceId,
          now,
          scope: asked.scope,
          expiresAt: asked.expiresAt,
          name: asked.name,
          environment: asked.environment,
        });
        await deps.activity.record(trx, {
          workspaceId,
          kind: 'key_created',
          actor: actorOf(caller, address),
          object: { type: 'key', id: keyId },
          detail: {
            name: asked.name,
            scope: asked.scope,
            service: asked.service,
            for: userId,
            ...(asked.environment === null ? {} : { environment: asked.environment }),
          },
          at: now,
        });
      });
      const made = await keysStore.find(keyId);
      // Keys are never deleted: the one just made is there.
      if (!made) throw new AppError('INTERNAL');
      return { ...toKey(made), key };
    },

    /** GET /v1/keys: the caller's own keys; an admin's, every key of the workspace. */
    async list(caller: KeyHolder, query: unknown): Promise<Page<Key>> {
      const { offset, pageSize, state } = readListQuery(query, checkKeyListQuery);
      const { items, total } = await keysStore.listInWorkspace({
        workspaceId: caller.workspaceId,
        ...(managesWorkspace(caller) ? {} : { userId: caller.userId }),
        ...(state ? { state } : {}),
        now: Date.now(),
        offset,
        pageSize,
      });
      return { items: items.map(toKey), total, offset };
    },

    /**
     * DELETE /v1/keys/:id: the caller's own key, or (an admin) any key of the workspace; another
     * workspace's is not found, as is an id of no key. A key revoked already stays as it was.
     * Refused at once here and, through the access signal, on every other instance.
     */
    async revoke(caller: KeyHolder, keyId: string, address: string): Promise<void> {
      const found = await keysStore.find(keyId);
      if (!found || found.workspaceId !== caller.workspaceId) throw new AppError('KEY_NOT_FOUND');
      if (found.userId !== caller.userId) {
        const refused = shortOf(caller, 'admin', '', "only an admin or owner revokes another member's key");
        if (refused) throw refused;
      }
      if (found.revokedAt !== null) return;
      await db.transaction().execute(async (trx) => {
        await keysStore.revoke(keyId, Date.now(), trx);
        // A service user exists for its key: with it revoked, it is no longer a member either.
        if (isService(found.userId)) await keysStore.removeMembership(trx, caller.workspaceId, found.userId);
        await deps.signals.announceAccess(trx, caller.workspaceId);
        await deps.activity.record(trx, {
          workspaceId: caller.workspaceId,
          kind: 'key_revoked',
          actor: actorOf(caller, address),
          object: { type: 'key', id: keyId },
          detail: { name: found.name, of: found.userId },
        });
      });
      deps.forget(caller.workspaceId);
    },
  };
}

export type KeyManagementService = ReturnType<typeof createKeyManagementService>;
