// The live side of the change stream: every open stream of this instance, woken when its workspace
// may have changed (PostgreSQL NOTIFY, SQLite's data_version, and a poll as the safety net), sent the
// whole revisions it has not seen yet, and kept open with heartbeat comments.
import type { ServerResponse } from 'node:http';
import type { DataVersion } from '../shared/read-cache.js';
import { type ChangesService, toFeedItem } from './changes-service.js';
import type { FeedRow } from './changes-store.js';
import type { Listener } from './pg-listener.js';

interface Subscriber {
  workspaceId: string;
  /** The last revision this stream has been sent whole. */
  position: number;
  res: ServerResponse;
}

/** A stream whose client reads slower than this many bytes behind is ended; it resumes from its last id. */
const MAX_BUFFERED = 1024 * 1024;
const FETCH_LIMIT = 1000;
/** How often SQLite's data_version is looked at: a pragma, microseconds. */
const DATA_VERSION_CHECK_MS = 50;

/**
 * The events of `rows` (whole revisions), each revision's text apart. Only the last event of a
 * revision carries its `id`, so a client cut off inside a revision resumes before it, not after.
 */
function eventsOf(rows: FeedRow[]): { revision: number; text: string }[] {
  const out: { revision: number; text: string }[] = [];
  rows.forEach((row, i) => {
    const item = toFeedItem(row);
    const last = rows[i + 1]?.revision !== row.revision;
    const text = `event: change\n${last ? `id: ${item.revision}\n` : ''}data: ${JSON.stringify(item)}\n\n`;
    const current = out.at(-1);
    if (current?.revision === item.revision) current.text += text;
    else out.push({ revision: item.revision, text });
  });
  return out;
}

export function createChangeHub(deps: {
  changes: Pick<ChangesService, 'revision' | 'wholeRevisionsAfter'>;
  dataVersion: DataVersion | undefined;
  /** Starts listening for changes of other instances (PostgreSQL), on the first stream. */
  listen?: (wake: (workspaceId: string) => void, wakeAll: () => void) => Listener;
  pollMs: number;
  heartbeatMs: number;
  onError: (error: unknown) => void;
}) {
  const { changes } = deps;
  const streams = new Map<string, Set<Subscriber>>();
  const running = new Set<string>();
  const again = new Set<string>();
  let listener: Listener | undefined;
  let timers: NodeJS.Timeout[] = [];
  let closed = false;

  function write(subscriber: Subscriber, text: string): void {
    if (subscriber.res.writableLength > MAX_BUFFERED) subscriber.res.end();
    else subscriber.res.write(text);
  }

  /** Sends every subscriber of the workspace what it has not seen, up to the latest revision. */
  async function deliverOnce(workspaceId: string): Promise<void> {
    const latest = await changes.revision(workspaceId);
    for (;;) {
      const behind = [...(streams.get(workspaceId) ?? [])].filter((s) => s.position < latest);
      if (behind.length === 0) return;
      const from = Math.min(...behind.map((s) => s.position));
      const events = eventsOf(await changes.wholeRevisionsAfter(workspaceId, from, FETCH_LIMIT));
      const last = events.at(-1)?.revision;
      if (last === undefined) return;
      // Subscribers at the same position (the usual case: all of them) share one text.
      const texts = new Map<number, string>();
      for (const subscriber of behind) {
        let text = texts.get(subscriber.position);
        if (text === undefined) {
          text = events
            .filter((e) => e.revision > subscriber.position)
            .map((e) => e.text)
            .join('');
          texts.set(subscriber.position, text);
        }
        if (text) write(subscriber, text);
        subscriber.position = Math.max(subscriber.position, last);
      }
      if (last >= latest) return;
    }
  }

  /** Delivery for one workspace runs one at a time; a wake during it runs it once more after. */
  async function wake(workspaceId: string): Promise<void> {
    if (!streams.has(workspaceId)) return;
    if (running.has(workspaceId)) {
      again.add(workspaceId);
      return;
    }
    running.add(workspaceId);
    try {
      do {
        again.delete(workspaceId);
        await deliverOnce(workspaceId);
      } while (again.has(workspaceId));
    } catch (error) {
      deps.onError(error); // the next wake or poll tries again
    } finally {
      running.delete(workspaceId);
    }
  }

  function wakeAll(): void {
    for (const workspaceId of streams.keys()) void wake(workspaceId);
  }

  function start(): void {
    const every = (ms: number, run: () => void) => {
      const timer = setInterval(run, ms);
      timer.unref();
      timers.push(timer);
    };
    every(deps.pollMs, wakeAll);
    every(deps.heartbeatMs, () => {
      for (const set of streams.values()) for (const s of set) write(s, ': heartbeat\n\n');
    });
    const { dataVersion } = deps;
    if (dataVersion) {
      let seen = dataVersion();
      every(DATA_VERSION_CHECK_MS, () => {
        const now = dataVersion();
        if (now === seen) return;
        seen = now;
        wakeAll();
      });
    }
    listener = deps.listen?.((workspaceId) => void wake(workspaceId), wakeAll);
  }

  return {
    /** Follows the workspace on `res` (headers already sent) from `position` on, until either side closes. */
    subscribe(workspaceId: string, position: number, res: ServerResponse): void {
      if (closed) {
        res.end(); // the service is stopping: the client resumes elsewhere or later
        return;
      }
      if (timers.length === 0) start();
      const subscriber = { workspaceId, position, res };
      const set = streams.get(workspaceId) ?? new Set<Subscriber>();
      streams.set(workspaceId, set);
      set.add(subscriber);
      res.on('close', () => {
        set.delete(subscriber);
        if (set.size === 0 && streams.get(workspaceId) === set) streams.delete(workspaceId);
      });
      void wake(workspaceId);
    },

    /** Open streams, all workspaces together. */
    count: () => [...streams.values()].reduce((n, set) => n + set.size, 0),

    /** Ends every stream (their clients resume elsewhere or later) and stops listening. */
    async close(): Promise<void> {
      closed = true;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      for (const set of streams.values()) for (const s of set) s.res.end();
      streams.clear();
      await listener?.close();
    },
  };
}

export type ChangeHub = ReturnType<typeof createChangeHub>;
