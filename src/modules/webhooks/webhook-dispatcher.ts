// The dispatcher, on every instance: claims due deliveries with a lease (one UPDATE only one instance
// wins, so two instances never send the same attempt at once), sends each, records the attempt, and
// schedules the next with exponential backoff until a day has passed (then `failed`). At least once: a
// delivery is done only when its receiver answered 2xx and that was written; an instance that dies
// mid-send leaves a lease that runs out, and another (or itself, restarted) sends it again.
// Driven by an injectable clock and timers: tests move time and call `runOnce` instead of sleeping.
import { randomBytes } from 'node:crypto';
import { randomSuffix } from '../../ids.js';
import { AddressRefused, resolveTarget, type Target } from './webhook-address.js';
import { MAX_CHANGES_IN_BODY, RULES_CHANGED } from './webhook-events.js';
import { type SendOutcome, send, type Timers } from './webhook-sender.js';
import { SIGNATURE_HEADER, signature } from './webhook-signature.js';
import type { ClaimedRow, WebhooksStore } from './webhooks-store.js';

/** The first retry's wait; each next one waits twice as long, up to BACKOFF_MAX_MS. */
export const BACKOFF_FIRST_MS = 30_000;
export const BACKOFF_MAX_MS = 60 * 60 * 1000;
/** How long a closing instance waits for its sends under way. */
export const CLOSE_GRACE_MS = 2000;
/** Deliveries claimed per round (and so sent at once by one instance). */
const CLAIM_BATCH = 16;

/** The wait after attempt `number` (1-based) failed. */
export const backoffAfter = (number: number) =>
  Math.min(BACKOFF_FIRST_MS * 2 ** Math.min(number - 1, 20), BACKOFF_MAX_MS);

export interface DispatcherOptions {
  store: WebhooksStore;
  allowPrivate: boolean;
  timeoutMs: number;
  pollMs: number;
  now?: () => number;
  timers?: Timers;
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
  /** Told of what went wrong outside a send (the database); never given a secret. */
  warn?: (error: unknown, message: string) => void;
}

export function createWebhookDispatcher(options: DispatcherOptions) {
  const { store } = options;
  const now = options.now ?? Date.now;
  const timers: Timers = options.timers ?? {
    setTimeout: (fn, ms) => {
      const handle = setTimeout(fn, ms);
      handle.unref();
      return handle;
    },
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };
  const stopping = new AbortController();
  let timer: unknown;
  let running: Promise<number> | undefined;
  let closed = false;

  /** The body's `data`: a change request's as queued; a revision's read from the change log. */
  async function dataOf(row: ClaimedRow): Promise<unknown> {
    if (row.type !== RULES_CHANGED) return row.data === null ? {} : JSON.parse(row.data);
    const revision = Number(row.revision);
    const { rows, total } = await store.revisionChanges(row.workspace_id, revision, MAX_CHANGES_IN_BODY);
    return {
      revision,
      total,
      truncated: total > rows.length,
      changes: rows.map((c) => ({
        objectType: c.object_type,
        id: c.object_id,
        change: c.change,
        version: Number(c.version),
        at: Number(c.at),
        by: c.by_user,
      })),
    };
  }

  async function attempt(token: string, row: ClaimedRow): Promise<void> {
    const body = JSON.stringify({
      id: row.event_id,
      type: row.type,
      createdAt: Number(row.created_at),
      workspaceId: row.workspace_id,
      data: await dataOf(row),
    });
    const at = now();
    let result: SendOutcome | undefined;
    let target: Target | undefined;
    try {
      // Checked again at every send: the name may resolve elsewhere now.
      target = await resolveTarget(row.url, options.allowPrivate, options.resolve);
    } catch (error) {
      if (!(error instanceof AddressRefused)) throw error;
      result = {
        status: null,
        error: `refused: the URL ${error.message}`.slice(0, 500),
        response: null,
        durationMs: 0,
      };
    }
    if (target) {
      result = await send(
        target,
        body,
        {
          [SIGNATURE_HEADER]: signature(row.secret, Math.floor(at / 1000), body),
          'Rulekeeper-Event': row.type,
          'Rulekeeper-Delivery': row.id,
        },
        { timeoutMs: options.timeoutMs, timers, signal: stopping.signal },
      );
    }
    if (!result) throw new Error('no outcome');
    const number = Number(row.attempts) + 1;
    const delivered = result.error === null;
    const retryAt = now() + backoffAfter(number);
    const state = delivered ? 'delivered' : retryAt > Number(row.give_up_at) ? 'failed' : 'pending';
    await store.complete(
      token,
      row,
      {
        state,
        next_at: delivered ? at : retryAt,
        last_status: result.status,
        delivered_at: delivered ? now() : null,
      },
      {
        id: `att_${randomSuffix(16)}`,
        delivery_id: row.id,
        number,
        at,
        duration_ms: Math.max(0, Math.min(result.durationMs, 2_000_000_000)),
        status_code: result.status,
        error: result.error === null ? null : result.error.slice(0, 500),
        response: result.response,
      },
    );
  }

  /** One round: claims what is due and sends it; answers how many were sent. */
  async function round(): Promise<number> {
    const token = randomBytes(12).toString('hex');
    const at = now();
    // Long enough for any send to end (its deadline cuts it) and its outcome to be written; short
    // enough that a delivery whose instance died mid-send is sent again soon after.
    const lease = options.timeoutMs + Math.max(5000, options.timeoutMs);
    const claimed = await store.claim(token, at, at + lease, CLAIM_BATCH);
    await Promise.all(
      claimed.map((row) =>
        attempt(token, row).catch((error: unknown) =>
          options.warn?.(error, 'a webhook delivery could not be recorded'),
        ),
      ),
    );
    return claimed.length;
  }

  /** Rounds until nothing is due (or the dispatcher stops); answers how many were sent. */
  function runOnce(): Promise<number> {
    if (running) return running.then(() => runOnce());
    running = (async () => {
      let sent = 0;
      for (;;) {
        if (closed) return sent;
        const n = await round();
        sent += n;
        if (n < CLAIM_BATCH) return sent;
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    if (closed) return;
    timer = timers.setTimeout(() => {
      runOnce()
        .catch((error: unknown) => options.warn?.(error, 'webhook deliveries could not be claimed; retrying'))
        .finally(schedule);
    }, options.pollMs);
  }

  return {
    start: schedule,
    runOnce,
    /**
     * Stops claiming; sends under way get `graceMs` to end, then are cut, recorded as failed attempts
     * and retried later (by another instance, or this one started again).
     */
    async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
      closed = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      if (!running) return;
      let grace: unknown;
      await Promise.race([
        running.catch(() => {}),
        new Promise<void>((resolve) => {
          grace = timers.setTimeout(() => {
            stopping.abort();
            resolve();
          }, graceMs);
        }),
      ]);
      timers.clearTimeout(grace);
      await running?.catch(() => {});
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
