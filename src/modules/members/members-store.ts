// SQL for a workspace's memberships.
import type { Db } from '../../db/tables.js';
import type { Role } from '../../model/role.js';
import { lockWorkspace } from '../shared/workspace-lock-store.js';
import type { Member } from './members-schemas.js';

export function createMembersStore(db: Db) {
  const members = (target: Db, workspaceId: string) =>
    target
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select((eb) => [
        'm.user_id as userId',
        'u.name',
        eb.ref('m.role').$castTo<Role>().as('role'),
        'm.created_at as since',
      ])
      .where('m.workspace_id', '=', workspaceId);

  return {
    /** The workspace's members, oldest first. */
    list: (workspaceId: string): Promise<Member[]> =>
      members(db, workspaceId).orderBy('m.created_at').orderBy('m.user_id').execute(),

    find: (trx: Db, workspaceId: string, userId: string): Promise<Member | undefined> =>
      members(trx, workspaceId).where('m.user_id', '=', userId).executeTakeFirst(),

    /** The workspace's row locked until the transaction ends (shared/workspace-lock-store.ts). */
    lockWorkspace,

    async countOwners(trx: Db, workspaceId: string): Promise<number> {
      const row = await trx
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async setRole(trx: Db, workspaceId: string, userId: string, role: Role): Promise<void> {
      await trx
        .updateTable('memberships')
        .set({ role })
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
    },

    /** Makes the user a member with `role`; false when they are one already (nothing changes). */
    async add(trx: Db, workspaceId: string, userId: string, role: Role, now: number): Promise<boolean> {
      const result = await trx
        .insertInto('memberships')
        .values({ workspace_id: workspaceId, user_id: userId, role, created_at: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async remove(trx: Db, workspaceId: string, userId: string): Promise<void> {
      await trx
        .deleteFrom('memberships')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
    },
  };
}

export type MembersStore = ReturnType<typeof createMembersStore>;
