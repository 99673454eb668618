// SQL of webhooks, their deliveries and attempts (the outbox's queueing is webhooks-outbox.ts): what
// the routes read and write, and what the dispatcher claims, reads and completes.
import { sql } from 'kysely';
import type { Db } from '../../db/tables.js';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  events: string | null;
  active: number;
  created_at: number;
  updated_at: number;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  revision: number | null;
  created_at: number;
  state: string;
  attempts: number;
  next_at: number;
  give_up_at: number;
  last_status: number | null;
  delivered_at: number | null;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response: string | null;
}

/** A delivery claimed for sending: what its body and signature need. */
export interface ClaimedRow {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  revision: number | null;
  data: string | null;
  created_at: number;
  attempts: number;
  give_up_at: number;
  url: string;
  secret: string;
}

const WEBHOOK_COLUMNS = [
  'id',
  'workspace_id',
  'url',
  'description',
  'events',
  'active',
  'created_at',
  'updated_at',
] as const;

const DELIVERY_COLUMNS = [
  'id',
  'webhook_id',
  'event_id',
  'type',
  'revision',
  'created_at',
  'state',
  'attempts',
  'next_at',
  'give_up_at',
  'last_status',
  'delivered_at',
] as const;

const num = (value: unknown) => Number(value ?? 0);

export function createWebhooksStore(db: Db) {
  return {
    async count(trx: Db, workspaceId: string): Promise<number> {
      const row = await trx
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return num(row?.n);
    },

    async insert(trx: Db, row: WebhookRow & { secret: string; created_by: string | null }): Promise<void> {
      await trx.insertInto('webhooks').values(row).execute();
    },

    /** The webhook, when it is the workspace's (never its secret). */
    async find(workspaceId: string, id: string, trx: Db = db): Promise<WebhookRow | undefined> {
      return trx
        .selectFrom('webhooks')
        .select(WEBHOOK_COLUMNS)
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
    },

    async list(workspaceId: string, offset: number, pageSize: number) {
      const [items, total] = await Promise.all([
        db
          .selectFrom('webhooks')
          .select(WEBHOOK_COLUMNS)
          .where('workspace_id', '=', workspaceId)
          .orderBy('created_at')
          .orderBy('id')
          .offset(offset)
          .limit(pageSize)
          .execute(),
        this.count(db, workspaceId),
      ]);
      return { items, total };
    },

    async update(
      trx: Db,
      workspaceId: string,
      id: string,
      set: Partial<Pick<WebhookRow, 'url' | 'description' | 'events' | 'active' | 'updated_at'>> & {
        secret?: string;
      },
    ): Promise<void> {
      await trx
        .updateTable('webhooks')
        .set(set)
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .execute();
    },

    /** The webhook, its deliveries and their attempts; answers whether there was one. */
    async remove(trx: Db, workspaceId: string, id: string): Promise<boolean> {
      // The workspace's, or nothing at all is touched (another workspace's deliveries included).
      if (!(await this.find(workspaceId, id, trx))) return false;
      const ids = trx.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id);
      await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
      await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      const done = await trx
        .deleteFrom('webhooks')
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return Number(done.numDeletedRows) > 0;
    },

    /** A page of the webhook's deliveries, newest first, each with its attempts (oldest first). */
    async deliveries(webhookId: string, offset: number, pageSize: number, state?: string) {
      let query = db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId);
      if (state) query = query.where('state', '=', state);
      const [items, count] = await Promise.all([
        query
          .select(DELIVERY_COLUMNS)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .offset(offset)
          .limit(pageSize)
          .execute(),
        query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
      ]);
      const attempts = await this.attemptsOf(items.map((d) => d.id));
      return { items, attempts, total: num(count?.n) };
    },

    async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
      if (deliveryIds.length === 0) return [];
      return db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'number', 'at', 'duration_ms', 'status_code', 'error', 'response'])
        .where('delivery_id', 'in', deliveryIds)
        .orderBy('delivery_id')
        .orderBy('number')
        .execute();
    },

    async delivery(webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .select(DELIVERY_COLUMNS)
        .where('id', '=', deliveryId)
        .where('webhook_id', '=', webhookId)
        .executeTakeFirst();
    },

    /** Due again now, retried for a day from now; a send under way keeps its lease. */
    async replay(deliveryId: string, now: number, retryForMs: number): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ state: 'pending', next_at: now, give_up_at: now + retryForMs })
        .where('id', '=', deliveryId)
        .execute();
    },

    /**
     * Leases up to `limit` due deliveries of active webhooks to `token` until `leaseUntil`. One UPDATE
     * whose condition is checked again on each row as it is written (PostgreSQL re-reads a row another
     * transaction just leased; SQLite writes one transaction at a time), so of two instances claiming
     * together each delivery goes to one.
     */
    async claim(token: string, now: number, leaseUntil: number, limit: number): Promise<ClaimedRow[]> {
      const due = (q: Db) =>
        q
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('state', '=', 'pending')
          .where('next_at', '<=', now)
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
          .where('webhook_id', 'in', q.selectFrom('webhooks').select('id').where('active', '=', 1))
          .orderBy('next_at')
          .limit(limit);
      const candidates = (await due(db).execute()).map((row) => row.id);
      if (candidates.length === 0) return [];
      await db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: token, lease_until: leaseUntil })
        .where('id', 'in', candidates)
        .where('state', '=', 'pending')
        .where('next_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .execute();
      return db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .select([
          'd.id',
          'd.workspace_id',
          'd.webhook_id',
          'd.event_id',
          'd.type',
          'd.revision',
          'd.data',
          'd.created_at',
          'd.attempts',
          'd.give_up_at',
          'w.url',
          'w.secret',
        ])
        .where('d.lease_owner', '=', token)
        .where('d.state', '=', 'pending')
        .execute();
    },

    /** Deliveries done (delivered or failed) before `before`, and their attempts; answers how many. */
    async sweep(before: number): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const old = trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('state', '<>', 'pending')
          .where('created_at', '<', before);
        await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', old).execute();
        const done = await trx
          .deleteFrom('webhook_deliveries')
          .where('state', '<>', 'pending')
          .where('created_at', '<', before)
          .executeTakeFirst();
        return Number(done.numDeletedRows);
      });
    },

    /** The first `limit` changes of a revision, and how many it made: a `rules.changed` body. */
    async revisionChanges(workspaceId: string, revision: number, limit: number) {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('changes')
          .select(['object_type', 'object_id', 'change', 'version', 'at', 'by_user'])
          .where('workspace_id', '=', workspaceId)
          .where('revision', '=', revision)
          .orderBy('seq')
          .limit(limit)
          .execute(),
        db
          .selectFrom('changes')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('revision', '=', revision)
          .executeTakeFirst(),
      ]);
      return { rows, total: num(count?.n) };
    },

    /**
     * The attempt's outcome, written only while `token` still holds the delivery's lease (a lease that
     * ran out went to another instance, whose outcome counts). Answers whether it was written.
     */
    async complete(
      token: string,
      delivery: { id: string; attempts: number },
      next: { state: string; next_at: number; last_status: number | null; delivered_at: number | null },
      attempt: AttemptRow & { id: string },
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const done = await trx
          .updateTable('webhook_deliveries')
          .set({ ...next, attempts: sql`attempts + 1`, lease_owner: null, lease_until: null })
          .where('id', '=', delivery.id)
          .where('lease_owner', '=', token)
          .executeTakeFirst();
        if (Number(done.numUpdatedRows) === 0) return false;
        await trx.insertInto('webhook_attempts').values(attempt).execute();
        return true;
      });
    },
  };
}

export type WebhooksStore = ReturnType<typeof createWebhooksStore>;
