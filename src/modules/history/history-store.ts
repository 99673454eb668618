// SQL for history: the versions the change log kept of an object, and the deleted objects that can be
// restored (the change log itself is written by modules/changes).
import { sql } from 'kysely';
import type { ChangeRow, Db } from '../../db/tables.js';
import type { ObjectType as ChangedType } from '../changes/changes-store.js';

/** What history restores and lists as deleted: rules and groups (a variable's versions are its module's). */
export type ObjectType = Extract<ChangedType, 'rule' | 'group'>;

/** The tables holding live objects, by type: a deleted object's id found there was taken again. */
const LIVE_TABLES = { rule: 'rules', group: 'groups' } as const satisfies Record<ObjectType, string>;

/** The deletions `deleted` lists, as one query both lists and counts. */
function deletedOf(db: Db, workspaceId: string, objectType: ObjectType) {
  return (
    db
      .selectFrom('changes as c')
      .innerJoin('id_owners as o', 'o.id', 'c.object_id')
      .where('o.workspace_id', '=', workspaceId)
      .where('c.workspace_id', '=', workspaceId)
      .where('c.object_type', '=', objectType)
      // A literal, not a parameter: the partial index of deletions (migration 0008) is used only when
      // the query's condition is its own, which neither database can tell of a bound value.
      .where('c.change', '=', sql.lit('deleted'))
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('changes as n')
              .select('n.version')
              .whereRef('n.object_type', '=', 'c.object_type')
              .whereRef('n.object_id', '=', 'c.object_id')
              .whereRef('n.version', '>', 'c.version'),
          ),
        ),
      )
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            // Typed as the rules table: only `id` is read, which both tables have.
            selectFrom(`${LIVE_TABLES[objectType]} as live` as 'rules as live')
              .select('live.id')
              .whereRef('live.id', '=', 'c.object_id'),
          ),
        ),
      )
  );
}

export function createHistoryStore(db: Db) {
  return {
    /**
     * Every version of an object the workspace kept, newest first, with the name of the user who made
     * it. Only the workspace's own: history is never read across workspaces.
     */
    async versions(
      workspaceId: string,
      objectType: ObjectType,
      id: string,
    ): Promise<(ChangeRow & { by_name: string | null })[]> {
      return db
        .selectFrom('changes')
        .leftJoin('users', 'users.id', 'changes.by_user')
        .selectAll('changes')
        .select('users.name as by_name')
        .where('workspace_id', '=', workspaceId)
        .where('object_type', '=', objectType)
        .where('object_id', '=', id)
        .orderBy('version', 'desc')
        .execute();
    },

    async version(
      trx: Db,
      workspaceId: string,
      objectType: ObjectType,
      id: string,
      version: number,
    ): Promise<ChangeRow | undefined> {
      return trx
        .selectFrom('changes')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('object_type', '=', objectType)
        .where('object_id', '=', id)
        .where('version', '=', version)
        .executeTakeFirst();
    },

    /**
     * The workspace's deleted objects of a type that can be restored, most recently deleted first:
     * those whose last kept change is their deletion, whose id is the workspace's (decision 15: a
     * deletion recorded before ids had owners may be of an id another workspace took) and that no
     * one has taken again (restored, or imported under that id). Each row is the deletion, with the
     * object as it was when deleted and the name of the user who deleted it.
     */
    async deleted(
      workspaceId: string,
      objectType: ObjectType,
      offset: number,
      limit: number,
    ): Promise<(ChangeRow & { by_name: string | null })[]> {
      return deletedOf(db, workspaceId, objectType)
        .leftJoin('users', 'users.id', 'c.by_user')
        .selectAll('c')
        .select('users.name as by_name')
        .orderBy('c.revision', 'desc')
        .orderBy('c.seq', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    /** How many objects `deleted` lists over all pages. */
    async deletedCount(workspaceId: string, objectType: ObjectType): Promise<number> {
      const row = await deletedOf(db, workspaceId, objectType)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Whether the workspace kept any version of the object. */
    async hasHistory(trx: Db, workspaceId: string, objectType: ObjectType, id: string): Promise<boolean> {
      const row = await trx
        .selectFrom('changes')
        .select('version')
        .where('workspace_id', '=', workspaceId)
        .where('object_type', '=', objectType)
        .where('object_id', '=', id)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type HistoryStore = ReturnType<typeof createHistoryStore>;
