// The workspace revision and the change log: recording changes in the writer's transaction, reading
// the revision cheaply, the change feed, and the retention sweep.
import type { ChangeSignals } from '../../db/change-signals.js';
import type { ChangeRow, Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import type { DataVersion } from '../shared/read-cache.js';
import type { ChangesStore, FeedRow, ObjectType } from './changes-store.js';

/** One object changed by a transaction, with its content after the change (or as it was when deleted). */
export interface ChangeInput {
  objectType: ObjectType;
  id: string;
  change: ChangeRow['change'];
  object: unknown;
  /**
   * The object's id was drawn (claimed, never owned before) in this transaction, so it has no
   * earlier version to look up: its version is 1.
   */
  drawn?: boolean;
  /**
   * The object's version, when its writer keeps it (a variable's): recorded as given instead of one
   * more than the last the change log keeps.
   */
  version?: number;
}

/**
 * What a write returns: its data, and the revision it recorded, which its answer carries
 * (Rulekeeper-Revision) and the lint of a written rule is taken at.
 */
export interface Recorded<T> {
  data: T;
  revision: number;
}

/** Who changes what: the workspace whose revision moves, and the user recorded as `by`. */
export interface Actor {
  workspaceId: string;
  userId: string;
  /** The change request whose merge this is (the change log names it). */
  changeRequestId?: string;
  /** A direct write by an admin or owner while the workspace's review is required: marked so. */
  reviewBypassed?: boolean;
}

/** A change as the feed and the stream give it. */
export interface FeedItem {
  revision: number;
  objectType: ObjectType;
  id: string;
  change: ChangeRow['change'];
  at: number;
  by: string;
  byName: string | null;
  changeRequestId?: string;
}

/** A workspace's revision as a request observed it, and what its cached reads are checked against. */
export interface Observed {
  revision: number;
  /** ReadCache's version: SQLite's data_version, else the revision. */
  version: number;
}

export interface FeedPage {
  data: FeedItem[];
  latest: number;
  nextAfter: number;
}

/**
 * What a stream sends next: whole revisions of at most `limit` changes each, or one revision larger than
 * that, announced by its size alone (its changes are not read: the client reads the lists again).
 */
export type StreamBatch = { rows: FeedRow[] } | { bulk: { revision: number; changes: number } };

export const toFeedItem = (row: FeedRow): FeedItem => ({
  revision: Number(row.revision),
  objectType: row.object_type,
  id: row.object_id,
  change: row.change,
  at: Number(row.at),
  by: row.by_user,
  byName: row.by_name,
  ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
});

export function createChangesService({
  store,
  dataVersion,
  signals,
}: {
  store: ChangesStore;
  /** On SQLite: revisions read once are kept until anyone commits anything. */
  dataVersion: DataVersion | undefined;
  /** Every write announces its workspace's change through them. */
  signals: Pick<ChangeSignals, 'announce'>;
}) {
  let seenVersion = -1;
  const known = new Map<string, number>();
  /** The workspaces asked for in this turn of the event loop, each answered once (observeAll). */
  let asked: Map<string, PromiseWithResolvers<Observed>> | undefined;

  /**
   * Reads, once, every revision asked for in this turn of the event loop: it runs after all of them
   * arrived, so it sees every change acknowledged before any of them was sent, by any instance. On
   * SQLite the data_version is asked once for them all (a read transaction on the shared WAL index:
   * it was the most expensive step of a cached read), and a revision already read is reused while it
   * holds; elsewhere each workspace's revision is one indexed read, shared by its requests.
   */
  function observeAll(): void {
    const workspaces = asked as Map<string, PromiseWithResolvers<Observed>>;
    asked = undefined;
    const version = dataVersion?.();
    if (version !== undefined && version !== seenVersion) {
      known.clear();
      seenVersion = version;
    }
    for (const [workspaceId, { resolve, reject }] of workspaces) {
      const hit = version === undefined ? undefined : known.get(workspaceId);
      if (hit !== undefined) {
        resolve({ revision: hit, version: version as number });
        continue;
      }
      readRevision(workspaceId).then((revision) => {
        if (version === undefined) return resolve({ revision, version: revision });
        if (seenVersion === version) known.set(workspaceId, revision);
        resolve({ revision, version });
      }, reject);
    }
  }

  function observe(workspaceId: string): Promise<Observed> {
    if (!asked) {
      asked = new Map();
      setImmediate(observeAll);
    }
    let waiting = asked.get(workspaceId);
    if (!waiting) {
      waiting = Promise.withResolvers<Observed>();
      asked.set(workspaceId, waiting);
    }
    return waiting.promise;
  }

  async function readRevision(workspaceId: string): Promise<number> {
    return Number((await store.revision(workspaceId))?.revision ?? 0);
  }

  /**
   * Up to about `limit` changes after `after`, whole revisions only (so that a follower resuming
   * after the last revision it saw misses nothing); a single revision larger than `limit` comes whole.
   */
  async function wholeRevisionsAfter(workspaceId: string, after: number, limit: number): Promise<FeedRow[]> {
    const rows = await store.feed(workspaceId, after, limit + 1);
    if (rows.length <= limit) return rows;
    const last = (rows[limit - 1] as FeedRow).revision;
    if ((rows[limit] as FeedRow).revision !== last) return rows.slice(0, limit);
    const whole = rows.filter((row) => row.revision !== last);
    return whole.length > 0 ? whole : store.ofRevision(workspaceId, Number(last));
  }

  /**
   * Records changes in the caller's transaction, in one batch or several: each call records a batch,
   * all under the one revision the first call takes, so an import of 100,000 records written in
   * batches is still one revision. An object appears in at most one batch.
   */
  function recorder(trx: Db, actor: Actor): (changes: ChangeInput[]) => Promise<number> {
    let revision: number | undefined;
    let seq = 0;
    return async (changes) => {
      // Versions first and the revision last: on PostgreSQL the bump locks the workspace's row until
      // the commit, so every write of the workspace waits for it; the less after it, the better.
      const versions = new Map<string, number>();
      const first = revision === undefined;
      // A write's one change of a rule or group: the store reads its version where it records it (on
      // PostgreSQL in the same round trip, inside the workspace's batch).
      const [only] = changes;
      const nextVersion =
        store.versionInBump &&
        first &&
        changes.length === 1 &&
        only !== undefined &&
        (only.objectType === 'rule' || only.objectType === 'group') &&
        !only.drawn &&
        only.version === undefined;
      for (const objectType of ['group', 'rule', 'environment'] as const) {
        if (nextVersion) break;
        const ids = changes
          .filter((c) => c.objectType === objectType && !c.drawn && c.version === undefined)
          .map((c) => c.id);
        if (ids.length === 0) continue;
        // An environment's id is its name, unique in its workspace only.
        const scope = objectType === 'environment' ? actor.workspaceId : undefined;
        for (const [id, version] of await store.lastVersions(trx, objectType, ids, scope)) {
          versions.set(`${objectType} ${id}`, version);
        }
      }
      if (first) await signals.announce(trx, actor.workspaceId); // heard once it commits
      const at = Date.now();
      const rows = changes.map((c): ChangeRow => {
        const key = `${c.objectType} ${c.id}`;
        const version = c.version ?? (versions.get(key) ?? 0) + 1;
        versions.set(key, version);
        return {
          workspace_id: actor.workspaceId,
          revision: revision ?? 0, // the first batch's, set as the revision is taken
          seq: seq++,
          object_type: c.objectType,
          object_id: c.id,
          version,
          change: c.change,
          at,
          by_user: actor.userId,
          object: JSON.stringify(c.object),
          ...(actor.changeRequestId ? { change_request_id: actor.changeRequestId } : {}),
          ...(actor.reviewBypassed ? { review_bypassed: 1 } : {}),
        };
      });
      if (first) revision = await store.bumpAndInsert(trx, actor.workspaceId, rows, nextVersion);
      else await store.insert(trx, rows);
      return revision as number;
    };
  }

  return {
    /**
     * Records the changes of the caller's transaction: the workspace's revision moves by one, and
     * each object gets a change record (its next version). Every writer calls this inside its
     * transaction, so the record exists exactly when the change does. Answers the new revision.
     */
    record(trx: Db, actor: Actor, changes: ChangeInput[]): Promise<number> {
      return recorder(trx, actor)(changes);
    },

    recorder,

    /**
     * The workspace's revision as it is now, and the version its cached reads are checked against: on
     * SQLite the data_version that read observed (it also sees writes made behind the service's back,
     * by an operator's script), else the revision itself. Read once for all the requests of a turn of
     * the event loop (observeAll), after each of them arrived.
     */
    observe,

    /** The workspace's current revision (observe). */
    revision(workspaceId: string): number | Promise<number> {
      return observe(workspaceId).then((observed) => observed.revision);
    },

    /**
     * Changes after revision `after`; 410 when some of them were swept away by retention, or `after`
     * is beyond the latest revision (the follower must read everything again).
     */
    async feed(workspaceId: string, after: number, limit: number): Promise<FeedPage> {
      const state = await store.revision(workspaceId);
      const latest = Number(state?.revision ?? 0);
      if (after < Number(state?.swept_revision ?? 0) || after > latest) throw new AppError('CHANGES_EXPIRED');
      const data = (await wholeRevisionsAfter(workspaceId, after, limit)).map(toFeedItem);
      const nextAfter = data.at(-1)?.revision ?? after;
      return { data, latest: Math.max(latest, nextAfter), nextAfter };
    },

    /** The revision before which changes were swept away: a stream asked to start before it resets. */
    async sweptRevision(workspaceId: string): Promise<number> {
      return Number((await store.revision(workspaceId))?.swept_revision ?? 0);
    },
    wholeRevisionsAfter,

    /** What a stream sends after `after`: up to about `limit` changes, or one revision larger than that. */
    async streamBatch(workspaceId: string, after: number, limit: number): Promise<StreamBatch> {
      const rows = await store.feed(workspaceId, after, limit + 1);
      if (rows.length <= limit) return { rows };
      const last = (rows[limit] as FeedRow).revision;
      const whole = rows.slice(0, limit).filter((row) => row.revision !== last);
      if (whole.length > 0) return { rows: whole };
      // The first revision alone has more than `limit` changes.
      const revision = Number(last);
      return { bulk: { revision, changes: await store.revisionSize(workspaceId, revision) } };
    },

    /** Removes change records older than `maxAgeMs` (the latest version of a live object stays). */
    sweep: (maxAgeMs: number, now = Date.now()) => store.sweep(now - maxAgeMs),
  };
}

export type ChangesService = ReturnType<typeof createChangesService>;
