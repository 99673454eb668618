// Group commit for SQLite: transactions that arrive together share one COMMIT, so one fsync, without
// giving up synchronous=FULL (no transaction is acknowledged before its batch is on disk) or per-request
// error isolation (each transaction is a savepoint of the batch, rolled back alone on error).
// Reads outside transactions use a second connection, so they only ever see committed data.
import type { Database as SqliteHandle, Statement } from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  SqliteQueryCompiler,
} from 'kysely';

/** Statements are prepared once per SQL text and connection (our queries are a small fixed set). */
function statementCache(handle: SqliteHandle): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = handle.prepare(sql);
      // Texts vary only with the length of IN lists; the bound keeps a pathological mix in check.
      if (statements.size < 1000) statements.set(sql, statement);
    }
    return statement;
  };
}

function run<R>(statement: Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (statement.reader) return { rows: statement.all(...parameters) as R[] };
  const { changes } = statement.run(...parameters);
  return { numAffectedRows: BigInt(changes), rows: [] };
}

/** The transactions of one batch: committed together, acknowledged together. */
interface Batch {
  members: number;
  done: Promise<void>;
  settle(error?: unknown): void;
}

const MAX_BATCH = 256;

/**
 * The least time between two COMMITs, in milliseconds. better-sqlite3's COMMIT waits for its fsync on
 * the event loop (about 0.2 ms here, far more on slower disks); writes arriving one after another,
 * each in its own turn of the loop, would otherwise each pay one. Under a steady stream of writes a
 * batch stays open this long and takes in every write that arrives meanwhile; a write after a quiet
 * spell commits at once.
 */
const COMMIT_GAP_MS = 1;

class GroupCommitDriver implements Driver {
  readonly #writer: SqliteHandle;
  readonly #reader: SqliteHandle;
  readonly #prepareWrite: (sql: string) => Statement;
  readonly #prepareRead: (sql: string) => Statement;
  #locked = false;
  readonly #waiting: (() => void)[] = [];
  #batch: Batch | undefined;
  /** When the last COMMIT ended (performance.now()); the next waits COMMIT_GAP_MS after it. */
  #lastCommit = Number.NEGATIVE_INFINITY;
  #commitScheduled = false;

  constructor(writer: SqliteHandle, reader: SqliteHandle) {
    this.#writer = writer;
    this.#reader = reader;
    this.#prepareWrite = statementCache(writer);
    this.#prepareRead = reader === writer ? this.#prepareWrite : statementCache(reader);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupCommitConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#lock();
    try {
      if (!this.#batch) this.#batch = this.#openBatch();
      this.#writer.exec('savepoint member');
    } catch (error) {
      this.#unlock(); // e.g. another process held the write lock past the busy timeout
      throw error;
    }
    (connection as GroupCommitConnection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupCommitConnection).inTransaction = false;
    const batch = this.#batch as Batch;
    try {
      this.#writer.exec('release member');
      batch.members++;
    } catch (error) {
      this.#abandonBatch(error);
      throw error;
    } finally {
      this.#unlock();
    }
    await batch.done;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupCommitConnection).inTransaction = false;
    try {
      this.#writer.exec('rollback to member; release member');
    } catch (error) {
      // SQLite abandoned the whole transaction (an I/O error, a full disk): so is the batch.
      this.#abandonBatch(error);
    } finally {
      this.#unlock();
    }
  }

  async releaseConnection(): Promise<void> {}

  /**
   * Runs `work` while no transaction of this connection runs or waits to commit: for a transaction
   * that another connection (an import's worker) holds, which would otherwise find the write lock
   * taken and fail after the busy timeout. Transactions arriving meanwhile wait their turn.
   */
  async exclusively<T>(work: () => Promise<T>): Promise<T> {
    await this.#lock();
    this.#commit();
    try {
      return await work();
    } finally {
      this.#unlock();
    }
  }

  async destroy(): Promise<void> {
    await this.#lock();
    this.#commit();
    this.#writer.close();
    if (this.#reader !== this.#writer) this.#reader.close();
  }

  /** A statement inside a transaction runs on the writer, within the transaction's savepoint. */
  inTransaction<R>(query: CompiledQuery): QueryResult<R> {
    return run(this.#prepareWrite(query.sql), query.parameters);
  }

  /** A statement outside any transaction: a read on the reader; a write becomes a one-statement transaction. */
  async alone<R>(connection: GroupCommitConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.#prepareRead(query.sql);
    if (statement.reader) return run(statement, query.parameters);
    await this.beginTransaction(connection);
    try {
      const result = this.inTransaction<R>(query);
      await this.commitTransaction(connection);
      return result;
    } catch (error) {
      if (connection.inTransaction) await this.rollbackTransaction(connection);
      throw error;
    }
  }

  #openBatch(): Batch {
    this.#writer.exec('begin immediate');
    let settle!: (error?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    return { members: 0, done, settle };
  }

  /** Commits the open batch, if any: one fsync for all its transactions. */
  #commit(): void {
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = undefined;
    try {
      this.#writer.exec('commit');
      batch.settle();
    } catch (error) {
      this.#batch = batch;
      this.#abandonBatch(error);
    }
    this.#lastCommit = performance.now();
  }

  /** Commits the open batch once no transaction holds the lock, and not before COMMIT_GAP_MS after the last. */
  #scheduleCommit(): void {
    if (this.#commitScheduled) return;
    this.#commitScheduled = true;
    const attempt = () => {
      this.#commitScheduled = false;
      // A transaction holding the lock now schedules the commit again when it lets go.
      if (!this.#locked) this.#commit();
    };
    const wait = this.#lastCommit + COMMIT_GAP_MS - performance.now();
    // Transactions still being prepared in this turn of the event loop join either way.
    if (wait <= 0) setImmediate(attempt);
    else setTimeout(attempt, wait);
  }

  /** Fails every transaction of the open batch: none of them reached the disk. */
  #abandonBatch(error: unknown): void {
    const batch = this.#batch;
    this.#batch = undefined;
    if (this.#writer.inTransaction) this.#writer.exec('rollback');
    batch?.settle(error);
  }

  async #lock(): Promise<void> {
    if (this.#locked) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#locked = true;
  }

  #unlock(): void {
    const next = this.#waiting.shift();
    if (next) {
      // A full batch is committed before the next transaction starts a new one.
      if ((this.#batch?.members ?? 0) >= MAX_BATCH) this.#commit();
      next();
      return;
    }
    this.#locked = false;
    // Nobody is waiting now: transactions that arrive before the commit join the batch.
    if (this.#batch) this.#scheduleCommit();
  }
}

class GroupCommitConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(private readonly driver: GroupCommitDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inTransaction ? this.driver.inTransaction<R>(query) : this.driver.alone<R>(this, query);
  }

  // biome-ignore lint/correctness/useYield: streaming is not used by the service.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported');
  }
}

/** Kysely's SQLite dialect with group commit; `reader` may be the writer itself (in-memory databases). */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(
    private readonly writer: SqliteHandle,
    private readonly reader: SqliteHandle,
  ) {
    super({ database: writer });
  }

  #driver: GroupCommitDriver | undefined;

  override createDriver(): Driver {
    this.#driver = new GroupCommitDriver(this.writer, this.reader);
    return this.#driver;
  }

  /** See GroupCommitDriver.exclusively. */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    if (!this.#driver) throw new Error('the dialect has no driver yet');
    return this.#driver.exclusively(work);
  }

  override createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
}
