// SQLite's WAL checkpoints, in a thread of their own. Left to SQLite, the commit that fills the WAL past
// 1,000 pages also copies the WAL into the database file and syncs it, inside that COMMIT, on the
// event loop: after a 100,000-record import that copy held every workspace's requests for half a
// second, and smaller ones cost writes a few milliseconds now and then. Here the writer never
// checkpoints; a worker with its own connection does, PASSIVE (it waits for no reader or writer),
// at most `everyMs` after each commit.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as SqliteHandle } from 'better-sqlite3';

/** Plain JavaScript, so that it runs the same from the compiled service and from the sources. */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('synchronous = FULL');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops checkpointing and closes its connection (before the others: the last one to close checkpoints). */
  stop(): Promise<void>;
}

/** Moves `writer`'s checkpoints of `file` into a worker; should the worker fail, SQLite's own come back. */
export function checkpointInBackground(writer: SqliteHandle, file: string, everyMs = 1000): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { driver, file, everyMs } });
  // A CLI command that opened the database may end while the worker runs.
  worker.unref();
  writer.pragma('wal_autocheckpoint = 0');
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('error', () => {
    if (writer.open) writer.pragma('wal_autocheckpoint = 1000');
  });
  return {
    async stop() {
      // Held by the worker's exit from here on: unreferenced, nothing would wait for it.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
