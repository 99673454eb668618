// SQL for workspace revisions and the change log (recording, the feed, retention); history's reads
// of it are in modules/history/history-store.ts.
import { CompiledQuery, sql } from 'kysely';
import type { DialectName } from '../../db/database.js';
import { prepared } from '../../db/prepared.js';
import type { ChangeRow, Db } from '../../db/tables.js';
import { OUTBOX_OF_BUMP, revisionOutbox } from '../webhooks/webhooks-outbox.js';

export type ObjectType = ChangeRow['object_type'];
/** A change as the feed lists it: everything but the object's content, and the user's name. */
export type FeedRow = Omit<ChangeRow, 'workspace_id' | 'object' | 'version' | 'review_bypassed'> & {
  by_name: string | null;
};

/** The PostgreSQL channel that wakes every instance's streams; the payload is the workspace id. */

// Rows per INSERT and ids per IN list: well under either database's limit on bound parameters.
const CHUNK = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

const FEED_COLUMNS = [
  'revision',
  'seq',
  'object_type',
  'object_id',
  'change',
  'at',
  'by_user',
  // Where people read who did what, by name; null for a user that no longer exists.
  'users.name as by_name',
  // The change request a merge names (null for a direct write).
  'change_request_id',
] as const;

/**
 * What an API write records on PostgreSQL, in one round trip instead of four: the revision bump, its
 * one change row, the webhook deliveries telling of it, and (a null `$5`) the object's version, one
 * more than the last recorded (a batch's members run one after another, each waiting for the one
 * before).
 */
const BUMP_AND_INSERT_ONE = `with bumped as (
    update workspaces set revision = revision + 1 where id = $1 returning revision),
  ${OUTBOX_OF_BUMP}
  insert into changes (workspace_id, revision, seq, object_type, object_id, version, change, at, by_user, object)
  select $1, revision, $2::integer, $3::varchar, $4::varchar,
    coalesce($5::integer,
      (select max(c.version) from changes c where c.object_type = $3::varchar and c.object_id = $4::varchar) + 1, 1),
    $6, $7::bigint, $8, $9 from bumped
  returning revision`;

/** `dialect`: PostgreSQL records a write's one change with its revision bump in one statement. */
export function createChangesStore(db: Db, dialect: DialectName = 'sqlite') {
  const enqueueRevision = revisionOutbox(db);
  // Read on every request: compiled once.
  const revisionById = prepared<{ id: string }, { revision: number; swept_revision: number }>(
    db,
    ['id'],
    (db, p) => db.selectFrom('workspaces').select(['revision', 'swept_revision']).where('id', '=', p.id),
  );
  const feedPage = prepared<{ workspaceId: string; after: number; limit: number }, FeedRow>(
    db,
    ['workspaceId', 'after', 'limit'],
    (db, p) =>
      db
        .selectFrom('changes')
        .leftJoin('users', 'users.id', 'changes.by_user')
        .select(FEED_COLUMNS)
        .where('workspace_id', '=', p.workspaceId)
        .where('revision', '>', p.after)
        .orderBy('revision')
        .orderBy('seq')
        .limit(p.limit),
  );

  // What every write runs, compiled once: an API write changes one object.
  const bumped = prepared<{ id: string }, { revision: number }>(db, ['id'], (db, p) =>
    db
      .updateTable('workspaces')
      .set({ revision: sql`revision + 1` })
      .where('id', '=', p.id)
      .returning('revision'),
  );
  const lastVersionOfOne = prepared<{ objectType: ObjectType; id: string }, { version: number | null }>(
    db,
    ['objectType', 'id'],
    (db, p) =>
      db
        .selectFrom('changes')
        .select((eb) => eb.fn.max('version').as('version'))
        .where('object_type', '=', p.objectType)
        .where('object_id', '=', p.id),
  );
  const CHANGE_COLUMNS = [
    'workspace_id',
    'revision',
    'seq',
    'object_type',
    'object_id',
    'version',
    'change',
    'at',
    'by_user',
    'object',
  ] as const satisfies readonly (keyof ChangeRow)[];
  const insertOne = prepared<ChangeRow, never>(db, CHANGE_COLUMNS, (db, p) =>
    db.insertInto('changes').values(p),
  );

  /** One more revision for the workspace, in the caller's transaction; answers the new one. */
  async function bump(trx: Db, workspaceId: string): Promise<number> {
    const row = await bumped.first(trx, { id: workspaceId });
    if (!row) throw new Error(`workspace ${workspaceId} does not exist`);
    return Number(row.revision);
  }

  /** A row marked by review (a merge's, or a direct write past a required review) has more columns. */
  const plain = (row: ChangeRow) => !row.change_request_id && !row.review_bypassed;

  async function insert(trx: Db, rows: ChangeRow[]): Promise<void> {
    if (rows.length === 1 && plain(rows[0] as ChangeRow)) {
      await insertOne.run(trx, rows[0] as ChangeRow);
      return;
    }
    for (const some of chunks(rows)) await trx.insertInto('changes').values(some).execute();
  }

  return {
    /**
     * Whether bumpAndInsert can read the version of a write's one change itself, in the same round
     * trip (PostgreSQL): the caller then need not read it first.
     */
    versionInBump: dialect === 'postgres',

    /**
     * One more revision for the workspace and `rows` recorded under it, in the caller's transaction;
     * answers the new revision (also set on the rows). `nextVersion`: the one row (a rule's or a
     * group's) takes the version after the last recorded of its object, whatever `version` it holds.
     */
    async bumpAndInsert(
      trx: Db,
      workspaceId: string,
      rows: ChangeRow[],
      nextVersion = false,
    ): Promise<number> {
      const [row] = rows;
      const inOne =
        dialect === 'postgres' && row && rows.length === 1 && row.workspace_id === workspaceId && plain(row);
      if (nextVersion && row && !inOne) {
        const last = await lastVersionOfOne.first(trx, { objectType: row.object_type, id: row.object_id });
        row.version = Number(last?.version ?? 0) + 1;
      }
      if (inOne && row) {
        const { rows: found } = await trx.executeQuery<{ revision: number }>(
          CompiledQuery.raw(BUMP_AND_INSERT_ONE, [
            workspaceId,
            row.seq,
            row.object_type,
            row.object_id,
            nextVersion ? null : row.version,
            row.change,
            row.at,
            row.by_user,
            row.object,
          ]),
        );
        if (!found[0]) throw new Error(`workspace ${workspaceId} does not exist`);
        row.revision = Number(found[0].revision);
        return row.revision;
      }
      const revision = await bump(trx, workspaceId);
      for (const each of rows) each.revision = revision;
      await insert(trx, rows);
      // The revision's webhook deliveries, in its transaction (one per revision, not per change).
      await enqueueRevision(trx, workspaceId, revision, row?.at ?? Date.now());
      return revision;
    },

    /**
     * The latest version of each object named, where it has one; of one workspace's objects only when
     * `workspaceId` is given (a variable's or environment's id is its name, unique in its workspace).
     */
    async lastVersions(
      trx: Db,
      objectType: ObjectType,
      ids: string[],
      workspaceId?: string,
    ): Promise<Map<string, number>> {
      const versions = new Map<string, number>();
      if (workspaceId !== undefined) {
        for (const some of chunks(ids)) {
          const rows = await trx
            .selectFrom('changes')
            .select((eb) => ['object_id', eb.fn.max('version').as('version')])
            .where('object_type', '=', objectType)
            .where('object_id', 'in', some)
            .where('workspace_id', '=', workspaceId)
            .groupBy('object_id')
            .execute();
          for (const row of rows) versions.set(row.object_id, Number(row.version));
        }
        return versions;
      }
      if (ids.length === 1) {
        const id = ids[0] as string;
        const row = await lastVersionOfOne.first(trx, { objectType, id });
        if (row?.version !== null && row?.version !== undefined) versions.set(id, Number(row.version));
        return versions;
      }
      for (const some of chunks(ids)) {
        const rows = await trx
          .selectFrom('changes')
          .select((eb) => ['object_id', eb.fn.max('version').as('version')])
          .where('object_type', '=', objectType)
          .where('object_id', 'in', some)
          .groupBy('object_id')
          .execute();
        for (const row of rows) versions.set(row.object_id, Number(row.version));
      }
      return versions;
    },

    /** Change rows under a revision taken already (an import's later batches). */
    insert,

    /** Wakes every instance's streams once the transaction commits (PostgreSQL holds it until then). */

    revision: (workspaceId: string) => revisionById.first(db, { id: workspaceId }),

    /** Up to `limit` changes after revision `after`, oldest first. */
    feed: (workspaceId: string, after: number, limit: number) =>
      feedPage.all(db, { workspaceId, after, limit }),

    /** How many changes one revision made (a stream announces a large one instead of sending it). */
    async revisionSize(workspaceId: string, revision: number): Promise<number> {
      const row = await db
        .selectFrom('changes')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('revision', '=', revision)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Every change of one revision. */
    async ofRevision(workspaceId: string, revision: number): Promise<FeedRow[]> {
      return db
        .selectFrom('changes')
        .leftJoin('users', 'users.id', 'changes.by_user')
        .select(FEED_COLUMNS)
        .where('workspace_id', '=', workspaceId)
        .where('revision', '=', revision)
        .orderBy('seq')
        .execute();
    },

    /**
     * Removes the change records older than `cutoff`, except the latest version of an object that
     * still exists (its history keeps its present), and remembers per workspace the highest revision
     * removed. Answers how many records went.
     */
    async sweep(cutoff: number): Promise<number> {
      const expired = sql<boolean>`changes.at < ${cutoff} and (changes.change = 'deleted' or exists (
        select 1 from changes newer where newer.object_type = changes.object_type
        and newer.object_id = changes.object_id and newer.workspace_id = changes.workspace_id
        and newer.version > changes.version))`;
      return db.transaction().execute(async (trx) => {
        const removed = sql`(select max(changes.revision) from changes
          where changes.workspace_id = workspaces.id and ${expired})`;
        await sql`update workspaces
          set swept_revision = case when ${removed} > swept_revision then ${removed} else swept_revision end
          where exists (select 1 from changes where changes.workspace_id = workspaces.id and ${expired})`.execute(
          trx,
        );
        const result = await sql`delete from changes where ${expired}`.execute(trx);
        return Number(result.numAffectedRows ?? 0);
      });
    },
  };
}

export type ChangesStore = ReturnType<typeof createChangesStore>;
