// Group commit for PostgreSQL, per workspace: every write of a workspace bumps its revision row, so
// its writes wait for each other's COMMIT anyway (one fsync each, one at a time). Instead, the
// transactions of one workspace that arrive together run one after another inside one PostgreSQL
// transaction, each in a savepoint of its own (a failing one rolls back alone), and share one COMMIT;
// none is acknowledged before that COMMIT. Each still gets its own revision, in the order they ran.
// Only work started under `batchedFor` (short API writes) is batched; the rest (imports, the CLI,
// migrations) runs in transactions of its own, as before.
// Members run one at a time, so every round trip of a member is waited for by the members behind it:
// a member's release and the next one's savepoint go as one, and the batch announces its workspace's
// change once, with its COMMIT, instead of each member doing so (see announcedByBatch).
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { CHANGES_CHANNEL } from './change-signals.js';

interface Context {
  workspaceId: string;
  /** A transaction of this work is in a batch now: one it opens inside runs alone (no deadlock). */
  member: Member | undefined;
  /** Transactions of this work running alone, opened inside its batched one. */
  alone: number;
}

interface Member {
  lane: Lane;
  batch: Batch;
  context: Context;
  /** Its changes are announced with the batch's COMMIT, if it does not roll back. */
  announces: boolean;
}

const current = new AsyncLocalStorage<Context>();

/** Runs `work` (and everything it starts) so that its transactions join its workspace's batch. */
export function batchedFor<T>(workspaceId: string, work: () => T): T {
  return current.run({ workspaceId, member: undefined, alone: 0 }, work);
}

/**
 * Whether the transaction running now is a member of `workspaceId`'s batch, which then announces the
 * workspace's change with its COMMIT (once for all its members, and only if this one does not roll
 * back): the caller need not announce it itself. False for any other transaction, which announces
 * its own changes.
 */
export function announcedByBatch(workspaceId: string): boolean {
  const context = current.getStore();
  const member = context?.member;
  if (!member || context.alone > 0 || member.lane.workspaceId !== workspaceId) return false;
  member.announces = true;
  return true;
}

const MAX_BATCH = 256;
const savepoint = CompiledQuery.raw('savepoint member');
const release = CompiledQuery.raw('release savepoint member');
/** A member's release and the next member's savepoint, in one round trip. */
const releaseAndNext = CompiledQuery.raw('release savepoint member; savepoint member');
const rollbackMember = CompiledQuery.raw('rollback to savepoint member; release savepoint member');
const commit = CompiledQuery.raw('commit');

/** Workspace ids as the service makes them (ws_ and letters): safe to write as an SQL literal. */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** One PostgreSQL transaction shared by several of a workspace's transactions. */
class Batch {
  members = 0;
  /** A released member made changes to announce at COMMIT. */
  announce = false;
  /** A savepoint is open for the next member already (sent with the last one's release). */
  nextOpened = false;
  readonly done: Promise<void>;
  settle!: (error?: unknown) => void;

  constructor(readonly connection: DatabaseConnection) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // A member awaits `done` only after it ran; a batch failing before anyone awaits is not unhandled.
    this.done.catch(() => {});
  }
}

/** A workspace's turn-taking: one member at a time runs in the open batch; the batch commits when idle. */
class Lane {
  constructor(readonly workspaceId: string) {}
  locked = false;
  readonly waiting: (() => void)[] = [];
  batch: Batch | undefined;
}

class BatchingConnection implements DatabaseConnection {
  /** The pool's connection of a transaction or query of its own (not batched). */
  own: DatabaseConnection | undefined;
  /** Set while this connection's transaction is a member of a batch. */
  member: Member | undefined;
  /** Set while this connection's transaction runs alone inside a batched one of the same work. */
  insideOf: Context | undefined;

  constructor(private readonly driver: BatchingDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.member) return this.member.batch.connection.executeQuery<R>(query);
    this.own ??= await this.driver.inner.acquireConnection();
    return this.own.executeQuery<R>(query);
  }

  // biome-ignore lint/correctness/useYield: streaming is not used by the service.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported');
  }
}

class BatchingDriver implements Driver {
  readonly #lanes = new Map<string, Lane>();

  constructor(readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new BatchingConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as BatchingConnection;
    const context = current.getStore();
    if (!context || context.member || settings.isolationLevel || settings.accessMode) {
      own.own ??= await this.inner.acquireConnection();
      await this.inner.beginTransaction(own.own, settings);
      if (context?.member) {
        own.insideOf = context;
        context.alone++;
      }
      return;
    }
    const lane = this.#lane(context.workspaceId);
    await this.#lock(lane);
    try {
      if (!lane.batch) {
        const pooled = await this.inner.acquireConnection();
        try {
          await this.inner.beginTransaction(pooled, settings);
        } catch (error) {
          await this.inner.releaseConnection(pooled);
          throw error;
        }
        lane.batch = new Batch(pooled);
      }
      if (lane.batch.nextOpened) lane.batch.nextOpened = false;
      else await lane.batch.connection.executeQuery(savepoint);
    } catch (error) {
      if (lane.batch) await this.#abandon(lane, error);
      this.#unlock(lane);
      throw error;
    }
    own.member = { lane, batch: lane.batch, context, announces: false };
    context.member = own.member;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as BatchingConnection;
    const member = own.member;
    if (!member) {
      this.#leaveAlone(own);
      return this.inner.commitTransaction(own.own as DatabaseConnection);
    }
    this.#leave(own);
    const { lane, batch } = member;
    // The next member waits already, and this batch takes it: its savepoint goes with this release.
    const next = lane.waiting.length > 0 && batch.members + 1 < MAX_BATCH;
    try {
      await batch.connection.executeQuery(next ? releaseAndNext : release);
      batch.members++;
      if (member.announces) batch.announce = true;
      batch.nextOpened = next;
    } catch (error) {
      await this.#abandon(lane, error);
      throw error;
    } finally {
      this.#unlock(lane);
    }
    await batch.done;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as BatchingConnection;
    const member = own.member;
    if (!member) {
      this.#leaveAlone(own);
      return this.inner.rollbackTransaction(own.own as DatabaseConnection);
    }
    this.#leave(own);
    try {
      await member.batch.connection.executeQuery(rollbackMember);
    } catch (error) {
      // The connection is gone or the transaction is lost: so is every member that ran in it.
      await this.#abandon(member.lane, error);
    } finally {
      this.#unlock(member.lane);
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = connection as BatchingConnection;
    if (own.own) await this.inner.releaseConnection(own.own);
    own.own = undefined;
  }

  async destroy(): Promise<void> {
    await Promise.allSettled([...this.#lanes.values()].map((lane) => lane.batch?.done));
    await this.inner.destroy();
  }

  #lane(workspaceId: string): Lane {
    let lane = this.#lanes.get(workspaceId);
    if (!lane) {
      lane = new Lane(workspaceId);
      this.#lanes.set(workspaceId, lane);
    }
    return lane;
  }

  #leave(own: BatchingConnection): void {
    if (own.member) own.member.context.member = undefined;
    own.member = undefined;
  }

  #leaveAlone(own: BatchingConnection): void {
    if (own.insideOf) own.insideOf.alone--;
    own.insideOf = undefined;
  }

  /** Commits the lane's batch: one COMMIT for all its members, then each of them is answered. */
  async #commit(lane: Lane): Promise<void> {
    const batch = lane.batch;
    if (!batch) return;
    lane.batch = undefined; // the next arrivals open another batch, which waits for this one's locks
    try {
      if (batch.nextOpened) throw new Error('a batch committed with a member still to come');
      if (!batch.announce) await batch.connection.executeQuery(commit);
      else if (PLAIN_ID.test(lane.workspaceId)) {
        // One round trip: heard by every instance once the COMMIT is done, as a member's own would be.
        await batch.connection.executeQuery(
          CompiledQuery.raw(`select pg_notify('${CHANGES_CHANNEL}', '${lane.workspaceId}'); commit`),
        );
      } else {
        await batch.connection.executeQuery(
          CompiledQuery.raw('select pg_notify($1, $2)', [CHANGES_CHANNEL, lane.workspaceId]),
        );
        await batch.connection.executeQuery(commit);
      }
      batch.settle();
    } catch (error) {
      batch.settle(error);
    } finally {
      await this.inner.releaseConnection(batch.connection);
    }
  }

  /** Fails every member of the lane's open batch: none of them was committed. */
  async #abandon(lane: Lane, error: unknown): Promise<void> {
    const batch = lane.batch;
    if (!batch) return;
    lane.batch = undefined;
    batch.settle(error);
    await this.inner.rollbackTransaction(batch.connection).catch(() => {});
    await this.inner.releaseConnection(batch.connection);
  }

  async #lock(lane: Lane): Promise<void> {
    if (lane.locked) await new Promise<void>((resolve) => lane.waiting.push(resolve));
    lane.locked = true;
  }

  #unlock(lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) {
      // A full batch commits; the next member opens another.
      if ((lane.batch?.members ?? 0) >= MAX_BATCH) void this.#commit(lane);
      next();
      return;
    }
    lane.locked = false;
    // Nobody waits now: transactions still being prepared in this turn of the event loop may join.
    setImmediate(() => {
      if (!lane.locked) void this.#commit(lane);
      if (!lane.locked && !lane.batch) this.#lanes.delete(lane.workspaceId);
    });
  }
}

/** Kysely's PostgreSQL dialect, with the writes of each workspace committed in batches. */
export class BatchingPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new BatchingDriver(super.createDriver());
  }
}
