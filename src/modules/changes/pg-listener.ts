// One LISTEN connection per instance on PostgreSQL: every committed change anywhere wakes this
// instance's streams at once. If the connection drops it is opened again; meanwhile polling delivers.
import pg from 'pg';
import { CHANGES_CHANNEL } from './changes-store.js';

const RECONNECT_MS = 1000;

export interface Listener {
  close(): Promise<void>;
}

/** Calls `wake(workspaceId)` for every change notified; `reconnected()` after a gap in listening. */
export function listenForChanges(
  url: string,
  wake: (workspaceId: string) => void,
  reconnected: () => void,
): Listener {
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
      if (message.payload) wake(message.payload);
    });
    try {
      await next.connect();
      await next.query(`listen ${CHANGES_CHANNEL}`);
      reconnected();
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
