// Work that is abandoned (its client gone, or past its time limit) never commits: each request's
// signal travels with its work (AsyncLocalStorage), and every transaction checks it as it begins and
// again just before COMMIT, rolling back instead. Long work also checks it between its batches, so
// that it stops soon rather than running to a commit nobody will see.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';

/** Why work was abandoned when its client went away: nobody is left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('the client went away before the answer');
    this.name = 'ClientGone';
  }
}

const current = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` (and everything it starts) under `signal`: once it is aborted, nothing commits. */
export function abandonableWith<T>(signal: AbortSignal, work: () => T): T {
  return current.run(signal, work);
}

/**
 * Runs `work` (and everything it starts) outside any request's signal: work that goes on after its
 * answer was sent (a mail asked for) is not its request's, and must not roll back when that request's
 * connection closes.
 */
export function detached<T>(work: () => T): T {
  return current.exit(work);
}

/** Throws the reason the current work was abandoned, if it was (a no-op outside any request). */
export function throwIfAbandoned(): void {
  current.getStore()?.throwIfAborted();
}

/** The driver, with the check before each transaction begins and before it commits. */
class AbandonGuardDriver implements Driver {
  readonly savepoint: Driver['savepoint'];
  readonly rollbackToSavepoint: Driver['rollbackToSavepoint'];
  readonly releaseSavepoint: Driver['releaseSavepoint'];

  constructor(private readonly inner: Driver) {
    this.savepoint = inner.savepoint?.bind(inner);
    this.rollbackToSavepoint = inner.rollbackToSavepoint?.bind(inner);
    this.releaseSavepoint = inner.releaseSavepoint?.bind(inner);
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection();
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    throwIfAbandoned();
    return this.inner.beginTransaction(connection, settings);
  }

  /** Throwing here, before COMMIT is sent, makes Kysely roll the transaction back. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    throwIfAbandoned();
    return this.inner.commitTransaction(connection);
  }
}

/** `dialect` whose transactions never commit once their work is abandoned. */
export function guardedAgainstAbandon(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new AbandonGuardDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
