// SQL of the activity: security events (and the team's work, in the same table) written and swept, and
// the two sources GET /v1/activity reads, each newest first from a position: the events, and the change log (history's table, read
// here without its content: an entry needs who, what and when, not the object).
import type { ChangesTable, Db, SecurityEventsTable } from '../../db/tables.js';

export type SecurityEventRow = SecurityEventsTable;

/** A security event as listed: with its actor's name and its key's name. */
export interface ListedEvent extends SecurityEventRow {
  actor_name: string | null;
  key_name: string | null;
}

/** A change as listed. */
export interface ListedChange {
  revision: number;
  seq: number;
  object_type: ChangesTable['object_type'];
  object_id: string;
  change: 'created' | 'updated' | 'deleted';
  at: number;
  by_user: string;
  by_name: string | null;
  change_request_id?: string | null;
  review_bypassed?: number;
}

export interface Filters {
  actor?: string;
  object?: string;
}

export function createActivityStore(db: Db) {
  return {
    /** One event, in the caller's transaction. */
    async insert(trx: Db, row: SecurityEventRow): Promise<void> {
      await trx.insertInto('security_events').values(row).execute();
    },

    /** Up to `limit` of the workspace's events older than `before` (at, id), newest first. */
    events(
      workspaceId: string,
      filters: Filters & { kind?: string; kinds?: readonly string[] },
      before: { at: number; id: string } | undefined,
      limit: number,
    ): Promise<ListedEvent[]> {
      let query = db
        .selectFrom('security_events as e')
        .leftJoin('users as u', 'u.id', 'e.actor_user_id')
        .leftJoin('api_keys as k', 'k.id', 'e.via')
        .selectAll('e')
        .select(['u.name as actor_name', 'k.name as key_name'])
        .where('e.workspace_id', '=', workspaceId);
      if (before)
        query = query.where((eb) => eb(eb.refTuple('e.at', 'e.id'), '<', eb.tuple(before.at, before.id)));
      if (filters.actor) query = query.where('e.actor_user_id', '=', filters.actor);
      if (filters.kind) query = query.where('e.kind', '=', filters.kind);
      if (filters.kinds) query = query.where('e.kind', 'in', filters.kinds);
      if (filters.object) query = query.where('e.object_id', '=', filters.object);
      return query.orderBy('e.at', 'desc').orderBy('e.id', 'desc').limit(limit).execute();
    },

    /**
     * Up to `limit` of the workspace's rule and group changes before `before` (revision, seq), newest
     * first: the change log's primary key order, so no index is added to what every write maintains.
     */
    changes(
      workspaceId: string,
      filters: Filters & {
        objectType?: ChangesTable['object_type'];
        change?: 'created' | 'updated' | 'deleted';
      },
      before: { revision: number; seq: number } | undefined,
      limit: number,
    ): Promise<ListedChange[]> {
      let query = db
        .selectFrom('changes as c')
        .leftJoin('users as u', 'u.id', 'c.by_user')
        .select([
          'c.revision',
          'c.seq',
          'c.object_type',
          'c.object_id',
          'c.change',
          'c.at',
          'c.by_user',
          'u.name as by_name',
          'c.change_request_id',
          'c.review_bypassed',
        ])
        .where('c.workspace_id', '=', workspaceId);
      if (before)
        query = query.where((eb) =>
          eb(eb.refTuple('c.revision', 'c.seq'), '<', eb.tuple(before.revision, before.seq)),
        );
      if (filters.actor) query = query.where('c.by_user', '=', filters.actor);
      if (filters.objectType) query = query.where('c.object_type', '=', filters.objectType);
      if (filters.change) query = query.where('c.change', '=', filters.change);
      // Naming every type lets the index on (object_type, object_id, …) find an object's changes.
      if (filters.object)
        query = query
          .where(
            'c.object_type',
            'in',
            filters.objectType ? [filters.objectType] : ['rule', 'group', 'variable', 'environment'],
          )
          .where('c.object_id', '=', filters.object);
      return query.orderBy('c.revision', 'desc').orderBy('c.seq', 'desc').limit(limit).execute();
    },

    /** Removes the events older than `cutoff`; answers how many went. */
    async sweep(cutoff: number): Promise<number> {
      const result = await db.deleteFrom('security_events').where('at', '<', cutoff).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type ActivityStore = ReturnType<typeof createActivityStore>;
