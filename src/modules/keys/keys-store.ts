// SQL for users, workspaces and API keys.
import { sql } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/tables.js';
import type { Principal } from '../../model/principal.js';
import type { Role } from '../../model/role.js';
import type { KeyScope } from './key-scopes.js';

/** Who an unrevoked key speaks for, what it may do, and until when. */
export interface KeyPrincipal extends Principal {
  scope: KeyScope;
  /** Epoch ms; null: never. A key past it is refused (the service decides, so that it can say why). */
  expiresAt: number | null;
}

/** What an operator chooses about a new key. */
export interface KeyOptions {
  scope: KeyScope;
  expiresAt: number | null;
  name: string | null;
  /** The environment its evaluations use when they name none (decisions §20); null or absent: `default`. */
  environment?: string | null;
}

export interface KeyListing extends KeyOptions {
  id: string;
  user: string;
  userId: string;
  workspace: string;
  workspaceId: string;
  createdAt: number;
  revokedAt: number | null;
}

export function createKeysStore(db: Db) {
  // Every request looks its key up: compiled once.
  const principalByHash = prepared<{ keyHash: string }, KeyPrincipal>(db, ['keyHash'], (db, p) =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
      // A key of a user who is no longer a member speaks for nobody.
      .innerJoin('memberships as m', (join) =>
        join.onRef('m.workspace_id', '=', 'k.workspace_id').onRef('m.user_id', '=', 'k.user_id'),
      )
      // A disabled user's keys speak for nobody either.
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select((eb) => [
        sql<'key'>`'key'`.as('via'),
        'k.id as keyId',
        'k.user_id as userId',
        'k.workspace_id as workspaceId',
        'w.owner_user_id as ownerUserId',
        eb.ref('m.role').$castTo<Role>().as('role'),
        eb.ref('k.scope').$castTo<KeyScope>().as('scope'),
        'k.expires_at as expiresAt',
        'k.environment as environment',
      ])
      .where('k.key_hash', '=', p.keyHash)
      .where('k.revoked_at', 'is', null)
      .where('u.disabled_at', 'is', null),
  );

  /** Keys with their users and workspaces, to select from. */
  const joined = () =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .innerJoin('workspaces as w', 'w.id', 'k.workspace_id');

  /** Keys (those `from` keeps) with the names of their users and workspaces, never the hash. */
  const listings = (from = joined()) =>
    from.select((eb) => [
      'k.id',
      'k.name',
      'u.name as user',
      'u.id as userId',
      'w.name as workspace',
      'w.id as workspaceId',
      eb.ref('k.scope').$castTo<KeyScope>().as('scope'),
      'k.created_at as createdAt',
      'k.expires_at as expiresAt',
      'k.revoked_at as revokedAt',
      'k.environment as environment',
    ]);

  return {
    findPrincipal: (keyHash: string) => principalByHash.first(db, { keyHash }),

    /** The user named `name`, created with `newId` when missing (a concurrent creator wins cleanly). */
    async ensureUser(trx: Db, name: string, newId: string, now: number): Promise<string> {
      await trx
        .insertInto('users')
        .values({ id: newId, name, created_at: now })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await trx
        .selectFrom('users')
        .select('id')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      return row.id;
    },

    /** The workspace named `name` and its owner, created with its first user as owner when missing. */
    async ensureWorkspace(
      trx: Db,
      name: string,
      newId: string,
      ownerUserId: string,
      now: number,
    ): Promise<{ id: string; ownerUserId: string }> {
      await trx
        .insertInto('workspaces')
        .values({ id: newId, name, owner_user_id: ownerUserId, created_at: now })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      // Every workspace has its `default` environment (decisions §20), from its first moment.
      const found = await trx
        .selectFrom('workspaces')
        .select(['id', 'owner_user_id as ownerUserId'])
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('environments')
        .values({ workspace_id: found.id, name: 'default', creation_date: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
        .execute();
      return found;
    },

    /**
     * Makes the user a member of the workspace with `role`, unless they are one already (whose role
     * stays: a key never raises it).
     */
    async ensureMembership(
      trx: Db,
      workspaceId: string,
      userId: string,
      role: Role,
      now: number,
    ): Promise<Role> {
      await trx
        .insertInto('memberships')
        .values({ workspace_id: workspaceId, user_id: userId, role, created_at: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doNothing())
        .execute();
      const row = await trx
        .selectFrom('memberships')
        .select('role')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return row.role as Role;
    },

    async insertKey(
      trx: Db,
      key: KeyOptions & { id: string; keyHash: string; userId: string; workspaceId: string; now: number },
    ): Promise<void> {
      await trx
        .insertInto('api_keys')
        .values({
          id: key.id,
          key_hash: key.keyHash,
          user_id: key.userId,
          workspace_id: key.workspaceId,
          created_at: key.now,
          revoked_at: null,
          scope: key.scope,
          expires_at: key.expiresAt,
          name: key.name,
          environment: key.environment ?? null,
        })
        .execute();
    },

    async list(): Promise<KeyListing[]> {
      return listings().orderBy('k.created_at').orderBy('k.id').execute();
    },

    /** One key as `list` shows it, by its id. */
    find: (keyId: string): Promise<KeyListing | undefined> =>
      listings().where('k.id', '=', keyId).executeTakeFirst(),

    /** Whether the key is neither revoked nor expired at `now`. */
    async isActive(keyId: string, now: number): Promise<boolean> {
      const row = await db
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        // Its user still a member of its workspace.
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('memberships as m')
              .select('m.role')
              .whereRef('m.workspace_id', '=', 'api_keys.workspace_id')
              .whereRef('m.user_id', '=', 'api_keys.user_id'),
          ),
        )
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('users as u')
              .select('u.id')
              .whereRef('u.id', '=', 'api_keys.user_id')
              .where('u.disabled_at', 'is', null),
          ),
        )
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Marks the key revoked (in `trx` when given); false when no unrevoked key has that id. */
    async revoke(keyId: string, now: number, trx: Db = db): Promise<boolean> {
      const result = await trx
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Whether the workspace has the environment (a key bound to it must name one that exists). */
    async hasEnvironment(trx: Db, workspaceId: string, name: string): Promise<boolean> {
      const row = await trx
        .selectFrom('environments')
        .select('name')
        .where('workspace_id', '=', workspaceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The workspace named `name` and its owner, for commands that act on a workspace by name. */
    async findWorkspace(name: string): Promise<{ id: string; ownerUserId: string } | undefined> {
      return db
        .selectFrom('workspaces')
        .select(['id', 'owner_user_id as ownerUserId'])
        .where('name', '=', name)
        .executeTakeFirst();
    },

    /** The user named `name`, for commands that act as a user by name. */
    async findUser(name: string): Promise<{ id: string } | undefined> {
      return db.selectFrom('users').select('id').where('name', '=', name).executeTakeFirst();
    },

    /** Ends the user's membership, unless they are an owner (a workspace always keeps one). */
    async removeMembership(trx: Db, workspaceId: string, userId: string): Promise<void> {
      await trx
        .deleteFrom('memberships')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .where('role', '!=', 'owner')
        .execute();
    },

    /** A new user (a service user: no other user may share it, unlike ensureUser's). */
    async insertUser(trx: Db, id: string, name: string, now: number): Promise<void> {
      await trx.insertInto('users').values({ id, name, created_at: now }).execute();
    },

    /**
     * A page of the workspace's keys (of one user's only, with `userId`), oldest first, and how many
     * there are; `state` keeps the active ones (unrevoked, unexpired at `now`), the revoked or the
     * expired (and unrevoked).
     */
    async listInWorkspace(query: {
      workspaceId: string;
      userId?: string;
      state?: 'active' | 'revoked' | 'expired';
      now: number;
      offset: number;
      pageSize: number;
    }): Promise<{ items: KeyListing[]; total: number }> {
      const { workspaceId, userId, state, now } = query;
      let matching = joined().where('k.workspace_id', '=', workspaceId);
      if (userId !== undefined) matching = matching.where('k.user_id', '=', userId);
      if (state === 'revoked') matching = matching.where('k.revoked_at', 'is not', null);
      else if (state !== undefined) {
        matching = matching.where('k.revoked_at', 'is', null);
        matching =
          state === 'expired'
            ? matching.where('k.expires_at', '<=', now)
            : matching.where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]));
      }
      const [items, counted] = await Promise.all([
        listings(matching)
          .orderBy('k.created_at')
          .orderBy('k.id')
          .offset(query.offset)
          .limit(query.pageSize)
          .execute(),
        matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items, total: Number(counted.n) };
    },

    /** The names of a user and a workspace, for a caller that has no key (a person's session). */
    describeMember: (userId: string, workspaceId: string) =>
      db
        .selectFrom(['users as u', 'workspaces as w'])
        .select(['u.name as user', 'w.name as workspace'])
        .where('u.id', '=', userId)
        .where('w.id', '=', workspaceId)
        .executeTakeFirst(),

    async hasAnyWorkspace(): Promise<boolean> {
      return (await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst()) !== undefined;
    },
  };
}

export type KeysStore = ReturnType<typeof createKeysStore>;
