// Opens the database named by DATABASE_URL (embedded SQLite or PostgreSQL) behind one Kysely interface,
// and runs the migrations.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type Migration, Migrator, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { guardedAgainstAbandon } from './abandon.js';
import { type ChangeSignals, postgresSignals, sqliteSignals } from './change-signals.js';
import * as initial from './migrations/0001-initial.js';
import * as idempotency from './migrations/0002-idempotency.js';
import * as changes from './migrations/0003-changes.js';
import * as keyScopes from './migrations/0005-key-scopes.js';
import * as idOwners from './migrations/0006-id-owners.js';
import * as ruleSearch from './migrations/0007-rule-search.js';
import * as deletedIndex from './migrations/0008-deleted-index.js';
import * as memberships from './migrations/0009-memberships.js';
import * as people from './migrations/0010-people.js';
import * as activity from './migrations/0011-activity.js';
import * as ruleFavourite from './migrations/0012-rule-favourite.js';
import * as invites from './migrations/0013-invites.js';
import * as oidc from './migrations/0014-oidc.js';
import * as testSuites from './migrations/0015-test-suites.js';
import * as changeRequests from './migrations/0016-change-requests.js';
import * as webhooks from './migrations/0017-webhooks.js';
import * as hits from './migrations/0018-hits.js';
import * as environmentsVariables from './migrations/0019-environments-variables.js';
import { announcedByBatch, BatchingPostgresDialect } from './postgres-write-batches.js';
import { checkpointInBackground } from './sqlite-checkpoints.js';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import type { Db, Tables } from './tables.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  db: Db;
  dialect: DialectName;
  /**
   * A number that changes whenever any connection or process commits a change, read without touching
   * a table: SQLite's data_version, seen from the connection that serves reads. Absent where no such
   * cheap and exact check exists (PostgreSQL; in-memory SQLite, whose reads share the writer).
   */
  dataVersion?: () => number;
  /** How other connections' commits are announced and heard on this backend. */
  signals: ChangeSignals;
  /**
   * Runs `work`, which writes through a connection of its own (an import's worker), so that it never
   * waits on this one's write lock: on SQLite, this connection's writes wait meanwhile; PostgreSQL
   * locks rows, not the database, and runs it as it is.
   */
  writingElsewhere<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Every migration, in order. Listed in code so that the compiled service needs no migration folder. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-idempotency': idempotency,
  '0003-changes': changes,
  '0005-key-scopes': keyScopes,
  '0006-id-owners': idOwners,
  '0007-rule-search': ruleSearch,
  '0008-deleted-index': deletedIndex,
  '0009-memberships': memberships,
  '0010-people': people,
  '0011-activity': activity,
  '0012-rule-favourite': ruleFavourite,
  '0013-invites': invites,
  '0014-oidc': oidc,
  '0015-test-suites': testSuites,
  '0016-change-requests': changeRequests,
  '0017-webhooks': webhooks,
  '0018-hits': hits,
  '0019-environments-variables': environmentsVariables,
};

// PostgreSQL returns BIGINT as a string to protect precision; our timestamps fit a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

function openSqlite(file: string): SQLite.Database {
  const sqlite = new SQLite(file);
  // WAL with synchronous=FULL: a commit is on disk before it is acknowledged, crash or power cut.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  // The CLI and the server may share the file: wait for the other's write lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dbPoolSize' | 'dbStatementTimeoutMs' | 'dbConnectTimeoutMs'>,
  /** `worker`: one connection, for a worker thread's transactions (no reader, no checkpointer). */
  options: { worker?: boolean } = {},
): Database {
  const url = config.databaseUrl;
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const writer = openSqlite(file);
    // A second connection for reads outside transactions: it sees only committed data (WAL).
    const reader = file === ':memory:' || options.worker ? writer : openSqlite(file);
    const dialect = new GroupCommitSqliteDialect(writer, reader);
    const db = new Kysely<Tables>({ dialect: guardedAgainstAbandon(dialect) });
    // On the reader, which counts the commits of every other connection (the writer's included).
    // Asked directly and synchronously: it is checked before every cached read, and through Kysely it
    // would cost several times the pragma itself.
    const pragma = reader.prepare('pragma data_version').pluck();
    const dataVersion = () => pragma.get() as number;
    // A worker's connection leaves checkpoints to the service's checkpointer, as its writer does.
    if (options.worker) writer.pragma('wal_autocheckpoint = 0');
    const checkpoints =
      file === ':memory:' || options.worker ? undefined : checkpointInBackground(writer, file);
    return {
      db,
      dialect: 'sqlite',
      ...(reader === writer ? {} : { dataVersion }),
      signals: sqliteSignals(reader === writer ? undefined : dataVersion),
      writingElsewhere: (work) => dialect.exclusively(work),
      close: async () => {
        await checkpoints?.stop();
        await db.destroy();
      },
    };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.worker ? 1 : config.dbPoolSize,
    statement_timeout: config.dbStatementTimeoutMs,
    // While the server is unreachable, requests fail fast with 503 instead of queueing for long.
    connectionTimeoutMillis: config.dbConnectTimeoutMs,
  });
  // A connection losing its server must not crash the process, whether idle in the pool or checked
  // out between queries: the query in flight, or the next one, reports the outage (503), and the pool
  // drops the dead connection when it comes back.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Tables>({ dialect: guardedAgainstAbandon(new BatchingPostgresDialect({ pool })) });
  return {
    db,
    dialect: 'postgres',
    signals: postgresSignals(url, announcedByBatch),
    writingElsewhere: (work) => work(),
    close: () => db.destroy(),
  };
}

async function migrateToLatest(db: Db): Promise<void> {
  // Migrations are independent of each other and may land out of their names' order (0005 before
  // 0004): a database that ran a later one still gets an earlier one that arrived afterwards.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

/** Any constant shared by every instance: the session lock that lets one migrate at a time. */
const MIGRATION_LOCK = 7_304_211;

/**
 * Brings the schema up to date. On PostgreSQL, instances starting together take turns behind an
 * advisory lock, so that the second finds the work done instead of racing the first.
 */
export async function migrate({ db, dialect }: Database): Promise<void> {
  if (dialect === 'sqlite') return migrateToLatest(db);
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      await migrateToLatest(connection);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
    }
  });
}

/** True when the database answers a trivial query. */
export async function ping(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
