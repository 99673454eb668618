// How an instance learns that another connection committed a change, per backend, behind one small
// interface: PostgreSQL announces each change with NOTIFY (delivered at its commit) and one LISTEN
// connection per instance hears every instance's; SQLite's data_version moves whenever any
// connection commits, so it is looked at often (a pragma: microseconds). Either way, the change
// stream's poll stays the safety net for what a signal missed.
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from './tables.js';

export interface ChangeSignals {
  /** In a write's transaction: the workspace changed (heard by every instance once it commits). */
  announce(trx: Db, workspaceId: string): Promise<void>;
  /**
   * Calls `changed(workspaceId)` for each change heard, and `changedAny()` when any workspace may
   * have changed (a backend that cannot tell which, or a gap in listening). Starts on the first call.
   */
  follow(changed: (workspaceId: string) => void, changedAny: () => void): { close(): Promise<void> };
  /**
   * In a transaction that changes who may do what in the workspace (a member's role, a membership):
   * heard by every instance once it commits, so that none goes on trusting what it remembered.
   */
  announceAccess(trx: Db, workspaceId: string): Promise<void>;
  /** As `follow`, for the changes of access announced by `announceAccess`. */
  followAccess(changed: (workspaceId: string) => void, changedAny: () => void): { close(): Promise<void> };
}

/** The PostgreSQL channel that wakes every instance's streams; the payload is the workspace id. */
export const CHANGES_CHANNEL = 'rulekeeper_changes';
/** The channel of changes of access (roles, memberships): rare, and heard apart from rule changes. */
export const ACCESS_CHANNEL = 'rulekeeper_access';
const RECONNECT_MS = 1000;
/** How often SQLite's data_version is looked at. */
const DATA_VERSION_CHECK_MS = 50;

/**
 * `announcedByBatch(workspaceId)`: true when the transaction running now is a member of a batch of
 * writes that announces the workspace's change with its COMMIT (postgres-write-batches.ts), once for
 * all its members: a round trip less for each.
 */
export function postgresSignals(
  url: string,
  announcedByBatch: (workspaceId: string) => boolean = () => false,
): ChangeSignals {
  return {
    async announce(trx, workspaceId) {
      if (announcedByBatch(workspaceId)) return;
      await sql`select pg_notify(${CHANGES_CHANNEL}, ${workspaceId})`.execute(trx);
    },
    follow: (changed, changedAny) => listen(url, CHANGES_CHANNEL, changed, changedAny),
    async announceAccess(trx, workspaceId) {
      await sql`select pg_notify(${ACCESS_CHANNEL}, ${workspaceId})`.execute(trx);
    },
    followAccess: (changed, changedAny) => listen(url, ACCESS_CHANNEL, changed, changedAny),
  };
}

/** `dataVersion` undefined: an in-memory database, one connection, nobody else commits. */
export function sqliteSignals(dataVersion: (() => number) | undefined): ChangeSignals {
  return {
    async announce() {},
    follow: (changed, changedAny) => followDataVersion(dataVersion, changed, changedAny),
    // SQLite cannot tell what another connection changed: any commit may have changed access.
    async announceAccess() {},
    followAccess: (changed, changedAny) => followDataVersion(dataVersion, changed, changedAny),
  };
}

/** Polls SQLite's data_version, which moves whenever another connection commits. */
function followDataVersion(
  dataVersion: (() => number) | undefined,
  _changed: (workspaceId: string) => void,
  changedAny: () => void,
): { close(): Promise<void> } {
  if (!dataVersion) return { close: async () => {} };
  let seen = dataVersion();
  const timer = setInterval(() => {
    const now = dataVersion();
    if (now === seen) return;
    seen = now;
    changedAny();
  }, DATA_VERSION_CHECK_MS);
  timer.unref();
  return { close: async () => clearInterval(timer) };
}

/** One LISTEN connection; if it drops it is opened again, and `changedAny` covers the gap. */
function listen(
  url: string,
  channel: string,
  changed: (workspaceId: string) => void,
  changedAny: () => void,
): { close(): Promise<void> } {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  function retryLater(failed: pg.Client): void {
    if (closed || client !== failed || timer) return;
    client = undefined;
    failed.end().catch(() => {});
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, RECONNECT_MS);
    timer.unref();
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url });
    client = next;
    next.on('error', () => retryLater(next));
    next.on('end', () => retryLater(next));
    next.on('notification', (message) => {
      if (message.payload) changed(message.payload);
    });
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
      changedAny();
    } catch {
      retryLater(next);
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
