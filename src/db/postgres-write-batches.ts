// Group commit for PostgreSQL, per workspace: every write of a workspace bumps its revision row, so
// its writes wait for each other's COMMIT anyway (one fsync each, one at a time). Instead, the
// transactions of one workspace that arrive together run one after another inside one PostgreSQL
// transaction, each in a savepoint of its own (a failing one rolls back alone), and share one COMMIT;
// none is acknowledged before that COMMIT. Each still gets its own revision, in the order they ran.
// Only work started under `batchedFor` (short API writes) is batched; the rest (imports, the CLI,
// migrations) runs in transactions of its own, as before.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

interface Context {
  workspaceId: string;
  /** A transaction of this work is in a batch now: one it opens inside runs alone (no deadlock). */
  inBatch: boolean;
}

const current = new AsyncLocalStorage<Context>();

/** Runs `work` (and everything it starts) so that its transactions join its workspace's batch. */
export function batchedFor<T>(workspaceId: string, work: () => T): T {
  return current.run({ workspaceId, inBatch: false }, work);
}

const MAX_BATCH = 256;
const savepoint = CompiledQuery.raw('savepoint member');
const release = CompiledQuery.raw('release savepoint member');
const rollbackMember = CompiledQuery.raw('rollback to savepoint member');

/** One PostgreSQL transaction shared by several of a workspace's transactions. */
class Batch {
  members = 0;
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
  member: { lane: Lane; batch: Batch; context: Context } | undefined;

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
    if (!context || context.inBatch || settings.isolationLevel || settings.accessMode) {
      own.own ??= await this.inner.acquireConnection();
      return this.inner.beginTransaction(own.own, settings);
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
      await lane.batch.connection.executeQuery(savepoint);
    } catch (error) {
      if (lane.batch) await this.#abandon(lane, error);
      this.#unlock(lane);
      throw error;
    }
    own.member = { lane, batch: lane.batch, context };
    context.inBatch = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as BatchingConnection;
    const member = own.member;
    if (!member) return this.inner.commitTransaction(own.own as DatabaseConnection);
    this.#leave(own);
    try {
      await member.batch.connection.executeQuery(release);
      member.batch.members++;
    } catch (error) {
      await this.#abandon(member.lane, error);
      throw error;
    } finally {
      this.#unlock(member.lane);
    }
    await member.batch.done;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as BatchingConnection;
    const member = own.member;
    if (!member) return this.inner.rollbackTransaction(own.own as DatabaseConnection);
    this.#leave(own);
    try {
      await member.batch.connection.executeQuery(rollbackMember);
      await member.batch.connection.executeQuery(release);
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
    if (own.member) own.member.context.inBatch = false;
    own.member = undefined;
  }

  /** Commits the lane's batch: one COMMIT for all its members, then each of them is answered. */
  async #commit(lane: Lane): Promise<void> {
    const batch = lane.batch;
    if (!batch) return;
    lane.batch = undefined; // the next arrivals open another batch, which waits for this one's locks
    try {
      await this.inner.commitTransaction(batch.connection);
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
