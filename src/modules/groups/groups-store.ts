// SQL for groups, and for the rules a group change touches.
import { sql } from 'kysely';
import type { DialectName } from '../../db/database.js';
import { preparedFindById } from '../../db/prepared.js';
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';

export type GroupChanges = Pick<
  GroupRow,
  'name' | 'status' | 'is_favourite' | 'last_modified_by' | 'modification_date'
>;

export function createGroupsStore(db: Db, dialect: DialectName) {
  const byId = preparedFindById(db, dialect, 'groups');

  return {
    /** Inserts the group; false when its id is taken (the caller retries with another). */
    async insert(trx: Db, row: GroupRow): Promise<boolean> {
      const result = await trx
        .insertInto('groups')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) > 0;
    },

    /** The group with that id in any workspace; locked for the transaction's write on PostgreSQL. */
    async find(trx: Db, id: string, lock = false): Promise<GroupRow | undefined> {
      return byId(trx, id, lock);
    },

    async update(trx: Db, id: string, changes: GroupChanges): Promise<void> {
      const { name, status, is_favourite, last_modified_by, modification_date } = changes;
      await trx
        .updateTable('groups')
        .set({ name, status, is_favourite, last_modified_by, modification_date })
        .where('id', '=', id)
        .execute();
    },

    /** Deletes the group after ungrouping its rules; answers the ungrouped rules as they are now. */
    async deleteAndUngroup(trx: Db, id: string, userId: string, now: number): Promise<RuleRow[]> {
      const ungrouped = await trx
        .updateTable('rules')
        .set({
          group_id: null,
          last_modified_by: userId,
          // Strictly after the rule's previous modificationDate, even within one millisecond.
          modification_date: sql<number>`case when modification_date >= ${now} then modification_date + 1 else ${now} end`,
        })
        .where('group_id', '=', id)
        .returningAll()
        .execute();
      await trx.deleteFrom('groups').where('id', '=', id).execute();
      return ungrouped;
    },

    async list(workspaceId: string, offset: number, limit: number): Promise<GroupRow[]> {
      return db
        .selectFrom('groups')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('creation_date')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    async count(workspaceId: string): Promise<number> {
      const row = await db
        .selectFrom('groups')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Rules and active rules per group, for the groups given. */
    async ruleCounts(groupIds: string[]): Promise<Map<string, { total: number; active: number }>> {
      const counts = new Map<string, { total: number; active: number }>();
      if (groupIds.length === 0) return counts;
      const rows = await db
        .selectFrom('rules')
        .select((eb) => [
          'group_id',
          eb.fn.countAll<number>().as('total'),
          eb.fn.sum<number>(eb.case().when('status', '=', 'Active').then(1).else(0).end()).as('active'),
        ])
        .where('group_id', 'in', groupIds)
        .groupBy('group_id')
        .execute();
      for (const row of rows) {
        if (row.group_id) counts.set(row.group_id, { total: Number(row.total), active: Number(row.active) });
      }
      return counts;
    },
  };
}

export type GroupsStore = ReturnType<typeof createGroupsStore>;
