// The live side of the change stream: every open stream of this instance, woken when its workspace
// may have changed (PostgreSQL NOTIFY, SQLite's data_version, and a poll as the safety net), sent the
// whole revisions it has not seen yet, and kept open with heartbeat comments. Streams are bounded: in
// number per key and per instance, in unsent bytes each, and in life by their key's validity.
import type { ServerResponse } from 'node:http';
import type { ChangeSignals } from '../../db/change-signals.js';
import { AppError } from '../../errors.js';
import type { KeyPrincipal } from '../keys/keys-store.js';
import type { ChangesService } from './changes-service.js';
import { eventsOf } from './stream-events.js';

interface Subscriber {
  principal: KeyPrincipal;
  /** The last revision this stream has been sent whole. */
  position: number;
  res: ServerResponse;
  /** Since when it has had too much unsent to be sent more (its client does not read), if it has. */
  stalledSince?: number;
}

export interface StreamLimits {
  /** Open streams per key on this instance (past it, 429). */
  perKey: number;
  /** Open streams on this instance (past it, 503). */
  total: number;
  /** Bytes written to a stream but not yet sent past which it is sent nothing more until its client reads. */
  bufferBytes: number;
  /** How long a stream may stay that far behind before it is disconnected. */
  stallMs: number;
}

/** Changes read per batch; a single revision with more is sent as one `bulk` event. */
export const STREAM_BATCH = 1000;

export function createChangeHub(deps: {
  changes: Pick<ChangesService, 'revision' | 'streamBatch'>;
  /** Changes committed by other connections and instances, followed from the first stream on. */
  signals: Pick<ChangeSignals, 'follow'>;
  pollMs: number;
  heartbeatMs: number;
  limits: StreamLimits;
  /** Whether the key a stream was opened with may still be used: not revoked, not expired. */
  stillValid: (principal: KeyPrincipal) => boolean | Promise<boolean>;
  /** How often every stream's key is checked again. */
  keyCheckMs: number;
  onError: (error: unknown) => void;
}) {
  const { changes, limits } = deps;
  const streams = new Map<string, Set<Subscriber>>();
  const byKey = new Map<string, Set<Subscriber>>();
  let open = 0;
  const running = new Set<string>();
  const again = new Set<string>();
  let listener: ReturnType<ChangeSignals['follow']> | undefined;
  let timers: NodeJS.Timeout[] = [];
  let checkingKeys = false;
  let closed = false;

  /**
   * Writes, unless that would leave more than the bound unsent: then the stream waits for its client
   * to read (it is looked at again on its next wake) and answers false. A client that has read
   * everything is sent a whole batch, even one larger than the bound.
   */
  function send(subscriber: Subscriber, text: string, bytes: number, now: number): boolean {
    const { res } = subscriber;
    if (res.destroyed) return false;
    const unsent = res.writableLength;
    if (unsent > 0 && unsent + bytes > limits.bufferBytes) {
      subscriber.stalledSince ??= now;
      return false;
    }
    subscriber.stalledSince = undefined;
    res.write(text);
    return true;
  }

  /** Whether the stream may be sent more now: not stalled, or its client has since read everything. */
  const ready = (s: Subscriber) => s.stalledSince === undefined || s.res.writableLength === 0;

  /**
   * Disconnects the streams whose clients read nothing for `stallMs` while too far behind: at once, so
   * that what they hold is freed (ending them gracefully would keep it until they read). Their clients
   * resume after the last id they received.
   */
  function cutStalled(now: number): void {
    for (const set of streams.values()) {
      for (const s of set) {
        if (s.stalledSince !== undefined && !ready(s) && now - s.stalledSince > limits.stallMs)
          s.res.destroy();
      }
    }
  }

  /** Ends a stream: gracefully when everything was sent, else at once (a client that does not read). */
  function stop(subscriber: Subscriber): void {
    if (subscriber.res.writableLength > 0) subscriber.res.destroy();
    else subscriber.res.end();
  }

  /** Sends every subscriber of the workspace what it has not seen, up to the latest revision. */
  async function deliverOnce(workspaceId: string): Promise<void> {
    const latest = await changes.revision(workspaceId);
    for (;;) {
      const now = Date.now();
      const behind = [...(streams.get(workspaceId) ?? [])].filter((s) => s.position < latest && ready(s));
      if (behind.length === 0) return;
      const from = Math.min(...behind.map((s) => s.position));
      const events = eventsOf(await changes.streamBatch(workspaceId, from, STREAM_BATCH));
      const last = events.at(-1)?.revision;
      if (last === undefined) return;
      // Subscribers at the same position (the usual case: all of them) share one text.
      const texts = new Map<number, { text: string; bytes: number }>();
      for (const subscriber of behind) {
        let entry = texts.get(subscriber.position);
        if (entry === undefined) {
          const text = events
            .filter((e) => e.revision > subscriber.position)
            .map((e) => e.text)
            .join('');
          entry = { text, bytes: Buffer.byteLength(text) };
          texts.set(subscriber.position, entry);
        }
        if (entry.text && !send(subscriber, entry.text, entry.bytes, now)) continue;
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

  /** Ends the streams of keys revoked or expired since they opened; one check per key. */
  function checkKeys(): void {
    if (checkingKeys) return;
    checkingKeys = true;
    const checks = [...byKey.values()].map(async (set) => {
      const [first] = set;
      if (!first) return;
      try {
        if (!(await deps.stillValid(first.principal))) for (const subscriber of [...set]) stop(subscriber);
      } catch (error) {
        deps.onError(error); // the key is looked at again on the next check
      }
    });
    void Promise.all(checks).finally(() => {
      checkingKeys = false;
    });
  }

  function start(): void {
    const every = (ms: number, run: () => void) => {
      const timer = setInterval(run, ms);
      timer.unref();
      timers.push(timer);
    };
    every(deps.pollMs, () => {
      cutStalled(Date.now());
      wakeAll();
    });
    // Only to streams with nothing unsent: the others are not idle.
    every(deps.heartbeatMs, () => {
      for (const set of streams.values()) {
        for (const s of set)
          if (s.res.writableLength === 0 && !s.res.destroyed) s.res.write(': heartbeat\n\n');
      }
    });
    every(deps.keyCheckMs, checkKeys);
    listener = deps.signals.follow((workspaceId) => void wake(workspaceId), wakeAll);
  }

  function join<K>(map: Map<K, Set<Subscriber>>, key: K, subscriber: Subscriber): void {
    const set = map.get(key) ?? new Set<Subscriber>();
    map.set(key, set);
    set.add(subscriber);
    subscriber.res.on('close', () => {
      set.delete(subscriber);
      if (set.size === 0 && map.get(key) === set) map.delete(key);
    });
  }

  return {
    /**
     * Throws the refusal when the key, or this instance, has as many open streams as allowed. Call it
     * right before `subscribe`, with no wait in between, so that concurrent opens cannot both pass.
     */
    admit(principal: KeyPrincipal): void {
      if ((byKey.get(principal.keyId)?.size ?? 0) >= limits.perKey) {
        throw new AppError('TOO_MANY_STREAMS', [
          { path: '', message: `this key has ${limits.perKey} open streams, the most allowed` },
        ]);
      }
      if (open >= limits.total) throw new AppError('STREAMS_FULL');
    },

    /** Follows the workspace on `res` (headers already sent) from `position` on, until either side closes. */
    subscribe(principal: KeyPrincipal, position: number, res: ServerResponse): void {
      if (closed) {
        res.end(); // the service is stopping: the client resumes elsewhere or later
        return;
      }
      // A client gone while the stream was being opened: its close event is past, nothing to follow.
      if (res.destroyed || !res.socket || res.socket.destroyed) return;
      if (timers.length === 0) start();
      const subscriber: Subscriber = { principal, position, res };
      join(streams, principal.workspaceId, subscriber);
      join(byKey, principal.keyId, subscriber);
      open++;
      res.on('close', () => {
        open--;
      });
      // A client that read what held its stream back is sent the rest without waiting for a poll.
      res.on('drain', () => void wake(principal.workspaceId));
      void wake(principal.workspaceId);
    },

    /** Open streams, all workspaces together. */
    count: () => open,

    /** Ends every stream (their clients resume elsewhere or later) and stops listening. */
    async close(): Promise<void> {
      closed = true;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      for (const set of streams.values()) for (const s of [...set]) stop(s);
      streams.clear();
      await listener?.close();
    },
  };
}

export type ChangeHub = ReturnType<typeof createChangeHub>;
