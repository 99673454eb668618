// SQL of change requests and their reviews, and the change log's last revision of the objects a merge
// touches (its conflict check).
import type { ChangeRequestReviewsTable, ChangeRequestsTable, Db } from '../../db/tables.js';
import { lockWorkspace } from '../shared/workspace-lock-store.js';
import type { State } from './change-requests-schemas.js';

export type ChangeRequestRow = ChangeRequestsTable & { author_name: string | null };
export type ReviewRow = ChangeRequestReviewsTable & { reviewer_name: string | null };

export function createChangeRequestsStore(db: Db) {
  const withAuthor = (trx: Db) =>
    trx
      .selectFrom('change_requests as c')
      .leftJoin('users as u', 'u.id', 'c.author_user_id')
      .selectAll('c')
      .select('u.name as author_name');

  return {
    async insert(trx: Db, row: ChangeRequestsTable): Promise<void> {
      await trx.insertInto('change_requests').values(row).execute();
    },

    /** The change request `id` of the workspace (another workspace's is not found). */
    async find(trx: Db | undefined, workspaceId: string, id: string): Promise<ChangeRequestRow | undefined> {
      return withAuthor(trx ?? db)
        .where('c.id', '=', id)
        .where('c.workspace_id', '=', workspaceId)
        .executeTakeFirst() as Promise<ChangeRequestRow | undefined>;
    },

    /**
     * Changes the row if it is still in one of `from` (answers whether it was): two merges, or a merge
     * and a close, of one change request never both happen. With `version`, only if it is still that
     * version: a merge applies the operations that were approved, not ones updated meanwhile.
     */
    async update(
      trx: Db,
      id: string,
      from: readonly State[],
      values: Partial<ChangeRequestsTable>,
      version?: number,
    ): Promise<boolean> {
      let query = trx
        .updateTable('change_requests')
        .set(values)
        .where('id', '=', id)
        .where('state', 'in', [...from]);
      if (version !== undefined) query = query.where('version', '=', version);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async list(
      workspaceId: string,
      state: State | undefined,
      offset: number,
      limit: number,
    ): Promise<{ rows: ChangeRequestRow[]; total: number }> {
      let query = withAuthor(db).where('c.workspace_id', '=', workspaceId);
      let count = db
        .selectFrom('change_requests')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspace_id', '=', workspaceId);
      if (state) {
        query = query.where('c.state', '=', state);
        count = count.where('state', '=', state);
      }
      const [rows, total] = await Promise.all([
        query.orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').offset(offset).limit(limit).execute(),
        count.executeTakeFirst(),
      ]);
      return { rows: rows as ChangeRequestRow[], total: Number(total?.n ?? 0) };
    },

    async insertReview(trx: Db, row: ChangeRequestReviewsTable): Promise<void> {
      await trx.insertInto('change_request_reviews').values(row).execute();
    },

    /** Every review of the change request, oldest first. */
    async reviews(trx: Db | undefined, changeRequestId: string): Promise<ReviewRow[]> {
      return (trx ?? db)
        .selectFrom('change_request_reviews as r')
        .leftJoin('users as u', 'u.id', 'r.reviewer_user_id')
        .selectAll('r')
        .select('u.name as reviewer_name')
        .where('r.change_request_id', '=', changeRequestId)
        .orderBy('r.at')
        .orderBy('r.id')
        .execute() as Promise<ReviewRow[]>;
    },

    /** The workspace's row locked until the transaction ends (shared/workspace-lock-store.ts). */
    lockWorkspace,

    /** The workspace's groups, as the evidence's lint takes them. */
    groups(workspaceId: string): Promise<{ id: string; name: string; status: string }[]> {
      return db
        .selectFrom('groups')
        .select(['id', 'name', 'status'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('id')
        .execute();
    },

    /** The last revision that changed each of these objects of the workspace, where one did. */
    async lastRevisions(
      trx: Db,
      workspaceId: string,
      objects: { objectType: 'rule' | 'group'; id: string }[],
    ): Promise<Map<string, number>> {
      const found = new Map<string, number>();
      for (const objectType of ['rule', 'group'] as const) {
        const ids = objects.filter((o) => o.objectType === objectType).map((o) => o.id);
        for (let i = 0; i < ids.length; i += 500) {
          const rows = await trx
            .selectFrom('changes')
            .select((eb) => ['object_id', eb.fn.max('revision').as('revision')])
            .where('workspace_id', '=', workspaceId)
            .where('object_type', '=', objectType)
            .where('object_id', 'in', ids.slice(i, i + 500))
            .groupBy('object_id')
            .execute();
          for (const row of rows) found.set(`${objectType} ${row.object_id}`, Number(row.revision));
        }
      }
      return found;
    },
  };
}

export type ChangeRequestsStore = ReturnType<typeof createChangeRequestsStore>;
