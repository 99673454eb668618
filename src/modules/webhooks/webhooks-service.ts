// Webhooks of a workspace (decisions §19): made, listed, changed and removed by its admins, with a
// signing secret shown once (kept write-only: it must be kept to sign, and is never answered again),
// their deliveries listed and replayed. Every id is looked up within the caller's workspace: another
// workspace's webhook or delivery is not found.
import type { Db } from '../../db/tables.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { readListQuery } from '../../http/list.js';
import { payloadProblems } from '../../http/payload.js';
import type { Page } from '../../http/replies.js';
import { randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import { AddressRefused, resolveTarget } from './webhook-address.js';
import { eventsColumn, eventsOfColumn, MAX_WEBHOOKS, RETRY_FOR_MS } from './webhook-events.js';
import { newWebhookSecret } from './webhook-signature.js';
import {
  type ChangedWebhook,
  checkDeliveryListQuery,
  checkWebhookCreate,
  checkWebhookListQuery,
  checkWebhookUpdate,
  type Delivery,
  type NewWebhook,
  type Webhook,
} from './webhooks-schemas.js';
import type { AttemptRow, DeliveryRow, WebhookRow, WebhooksStore } from './webhooks-store.js';

/** Deliveries per page at most. */
export const MAX_DELIVERIES_PAGE = 100;

const NOTHING_IGNORED = new Set<string>();

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: eventsOfColumn(row.events) as Webhook['events'],
  active: Number(row.active) === 1,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const toDelivery = (row: DeliveryRow, attempts: AttemptRow[]): Delivery => ({
  id: row.id,
  eventId: row.event_id,
  type: row.type as Delivery['type'],
  state: row.state as Delivery['state'],
  createdAt: Number(row.created_at),
  nextAttemptAt: row.state === 'pending' ? Number(row.next_at) : null,
  giveUpAt: Number(row.give_up_at),
  deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
  attempts: attempts.map((a) => ({
    number: Number(a.number),
    at: Number(a.at),
    durationMs: Number(a.duration_ms),
    statusCode: a.status_code === null ? null : Number(a.status_code),
    error: a.error,
    response: a.response,
  })),
});

export function createWebhooksService(deps: {
  db: Db;
  store: WebhooksStore;
  activity: Pick<ActivityService, 'record'>;
  allowPrivate: boolean;
  now?: () => number;
  /** How a host is resolved (tests give names of their own); the system's resolver otherwise. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}) {
  const { db, store } = deps;
  const now = deps.now ?? Date.now;

  /**
   * A security event in the change's transaction: who sends the workspace's changes where. The host
   * alone, not the URL: some receivers' URLs are themselves secrets (a chat's incoming webhook).
   */
  const record = (
    trx: Db,
    caller: Principal,
    address: string,
    kind: 'webhook_created' | 'webhook_updated' | 'webhook_deleted',
    id: string,
    url: string,
    detail: Record<string, boolean> = {},
  ) =>
    deps.activity.record(trx, {
      workspaceId: caller.workspaceId,
      kind,
      actor: actorOf(caller, address),
      object: { type: 'webhook', id },
      detail: { host: URL.canParse(url) ? new URL(url).host : '', ...detail },
    });

  /** The webhook of the caller's workspace, or 404. */
  async function owned(caller: Principal, id: string): Promise<WebhookRow> {
    const found = await store.find(caller.workspaceId, id);
    if (!found) throw new AppError('WEBHOOK_NOT_FOUND');
    return found;
  }

  /** Problems of a URL: its form, and where its host resolves now. */
  async function urlProblems(url: unknown, details: ErrorDetail[]): Promise<void> {
    if (typeof url !== 'string' || details.some((d) => d.path === '/url')) return;
    try {
      await resolveTarget(url, deps.allowPrivate, deps.resolve);
    } catch (error) {
      if (!(error instanceof AddressRefused)) throw error;
      details.push({ path: '/url', message: error.message });
    }
  }

  /** Trimmed; blank is none. Shown as text, never as markup, wherever it is shown. */
  function descriptionOf(value: unknown): string | null | undefined {
    if (typeof value !== 'string') return value as null | undefined;
    const text = value.trim();
    return text === '' ? null : text;
  }

  /** The payload of a create or update, checked, or 400 with every problem. */
  async function read<T extends Record<string, unknown>>(
    body: unknown,
    check: typeof checkWebhookCreate | typeof checkWebhookUpdate,
  ) {
    const { payload, details } = payloadProblems(body, check as typeof checkWebhookCreate, NOTHING_IGNORED);
    const description = descriptionOf(payload.description);
    await urlProblems(payload.url, details);
    if (details.length > 0) throw new AppError('WEBHOOK_PAYLOAD_INVALID', details);
    return { ...(payload as unknown as T), description };
  }

  return {
    /** POST /v1/webhooks: the webhook made, its secret shown this once. */
    async create(caller: Principal, body: unknown, address: string): Promise<NewWebhook> {
      const asked = await read<{ url: string; events?: string[] | null; active?: boolean }>(
        body,
        checkWebhookCreate,
      );
      const at = now();
      const secret = newWebhookSecret();
      const row: WebhookRow = {
        id: `whk_${randomSuffix(12)}`,
        workspace_id: caller.workspaceId,
        url: asked.url,
        description: asked.description ?? null,
        events: eventsColumn(asked.events ?? null),
        active: asked.active === false ? 0 : 1,
        created_at: at,
        updated_at: at,
      };
      await db.transaction().execute(async (trx) => {
        if ((await store.count(trx, caller.workspaceId)) >= MAX_WEBHOOKS)
          throw new AppError('WEBHOOK_LIMIT', [
            { path: '', message: `a workspace has at most ${MAX_WEBHOOKS} webhooks: remove one first` },
          ]);
        await store.insert(trx, { ...row, secret, created_by: caller.userId });
        await record(trx, caller, address, 'webhook_created', row.id, row.url);
      });
      return { ...toWebhook(row), secret };
    },

    async list(caller: Principal, query: unknown): Promise<Page<Webhook>> {
      const { offset, pageSize } = readListQuery(query, checkWebhookListQuery);
      const { items, total } = await store.list(caller.workspaceId, offset, pageSize);
      return { items: items.map(toWebhook), total, offset };
    },

    async get(caller: Principal, id: string): Promise<Webhook> {
      return toWebhook(await owned(caller, id));
    },

    /** PATCH: url, events, description, active; `rotateSecret` answers a new secret, this once. */
    async update(caller: Principal, id: string, body: unknown, address: string): Promise<ChangedWebhook> {
      const found = await owned(caller, id);
      const asked = await read<{
        url?: string;
        events?: string[] | null;
        active?: boolean;
        rotateSecret?: boolean;
      }>(body, checkWebhookUpdate);
      const secret = asked.rotateSecret === true ? newWebhookSecret() : undefined;
      const set = {
        ...(asked.url !== undefined ? { url: asked.url } : {}),
        ...(asked.events !== undefined ? { events: eventsColumn(asked.events) } : {}),
        ...(asked.description !== undefined ? { description: asked.description } : {}),
        ...(asked.active !== undefined ? { active: asked.active ? 1 : 0 } : {}),
        ...(secret ? { secret } : {}),
        updated_at: Math.max(now(), Number(found.updated_at)),
      };
      await db.transaction().execute(async (trx) => {
        await store.update(trx, caller.workspaceId, id, set);
        await record(trx, caller, address, 'webhook_updated', id, asked.url ?? found.url, {
          rotated: secret !== undefined,
          ...(asked.active !== undefined ? { active: asked.active } : {}),
        });
      });
      const changed = await owned(caller, id);
      return { ...toWebhook(changed), ...(secret ? { secret } : {}) };
    },

    /** DELETE: the webhook, its deliveries (pending ones are not sent) and their attempts. */
    async remove(caller: Principal, id: string, address: string): Promise<void> {
      const found = await owned(caller, id);
      const removed = await db.transaction().execute(async (trx) => {
        const done = await store.remove(trx, caller.workspaceId, id);
        if (done) await record(trx, caller, address, 'webhook_deleted', id, found.url);
        return done;
      });
      if (!removed) throw new AppError('WEBHOOK_NOT_FOUND');
    },

    /** The webhook's deliveries, newest first, with their attempts. */
    async deliveries(caller: Principal, id: string, query: unknown): Promise<Page<Delivery>> {
      await owned(caller, id);
      const { offset, pageSize, state } = readListQuery(query, checkDeliveryListQuery);
      // Each delivery carries its attempts (up to ~30, each up to 1,000 characters of answer): a page
      // holds at most MAX_DELIVERIES_PAGE of them, whatever pageSize asks.
      const size = Math.min(pageSize, MAX_DELIVERIES_PAGE);
      const { items, attempts, total } = await store.deliveries(id, offset, size, state);
      const byDelivery = Map.groupBy(attempts, (a) => a.delivery_id);
      return { items: items.map((d) => toDelivery(d, byDelivery.get(d.id) ?? [])), total, offset };
    },

    /** Queues a new attempt of the delivery now (retried for a day from now, as a new one is). */
    async replay(caller: Principal, id: string, deliveryId: string): Promise<Delivery> {
      await owned(caller, id);
      const found = await store.delivery(id, deliveryId);
      if (!found) throw new AppError('DELIVERY_NOT_FOUND');
      await store.replay(deliveryId, now(), RETRY_FOR_MS);
      const replayed = (await store.delivery(id, deliveryId)) as DeliveryRow;
      return toDelivery(replayed, await store.attemptsOf([deliveryId]));
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
