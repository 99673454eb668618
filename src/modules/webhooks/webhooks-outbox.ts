// The outbox: deliveries queued in the transaction of the change they tell of, one per active webhook
// of the workspace subscribed to the event, in one INSERT … SELECT. A workspace without webhooks pays
// that one statement (an index probe that finds nothing) and no read; a change that rolls back takes
// its deliveries with it; a delivery committed is sent even if the service dies the next instant.
// changes-store.ts calls it for every revision taken; the change requests' module calls `enqueue`.
import { sql } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/tables.js';
import { randomSuffix } from '../../ids.js';
import {
  CHANGE_REQUEST_EVENTS,
  MAX_PENDING_PER_WEBHOOK,
  RETRY_FOR_MS,
  RULES_CHANGED,
} from './webhook-events.js';

const COLUMNS =
  'id, workspace_id, webhook_id, event_id, type, revision, data, created_at, state, attempts, next_at, give_up_at';

/**
 * A webhook behind by MAX_PENDING_PER_WEBHOOK deliveries already (a receiver down for long under many
 * writes) gets no more until it catches up: the outbox stays bounded, and the change feed keeps every
 * change. Read from the (webhook_id, state, created_at) index.
 */
const NOT_FULL = `not exists (select 1 from webhook_deliveries p where p.webhook_id = w.id and p.state = 'pending'
      limit 1 offset ${MAX_PENDING_PER_WEBHOOK - 1})`;
const SUBSCRIBED = `w.active = 1 and (w.events is null or w.events like '%,' || cast(TYPE as varchar(64)) || ',%')`;

/**
 * What PostgreSQL adds to a write's revision bump (changes-store.ts, BUMP_AND_INSERT_ONE), so that an
 * API write queues its deliveries in the same round trip: a CTE after `bumped`, with `$1` the
 * workspace and `$7` the change's time (epoch ms).
 */
export const OUTBOX_OF_BUMP = `outbox as (insert into webhook_deliveries (${COLUMNS})
  select 'dlv_r' || bumped.revision || '_' || substr(w.id, 5), w.workspace_id, w.id,
    'evt_r' || bumped.revision || '_' || w.workspace_id, '${RULES_CHANGED}', bumped.revision, null,
    $7::bigint, 'pending', 0, $7::bigint, $7::bigint + ${RETRY_FOR_MS}
  from bumped cross join webhooks w
  where w.workspace_id = $1 and ${SUBSCRIBED.replace('TYPE', `'${RULES_CHANGED}'`)} and ${NOT_FULL})`;

interface RevisionParams extends Record<string, unknown> {
  idPrefix: string;
  eventId: string;
  revision: number;
  at: number;
  giveUpAt: number;
  workspaceId: string;
}

/**
 * Queues `rules.changed` for a revision of the workspace, in the transaction that took it: the body is
 * built when sent, from the change log's records of that revision (as immutable as the delivery), so a
 * revision of 100,000 changes queues one small row per webhook. Compiled once for `db`'s database:
 * every write runs it.
 */
export function revisionOutbox(db: Db) {
  const query = prepared<RevisionParams, never>(
    db,
    ['idPrefix', 'eventId', 'revision', 'at', 'giveUpAt', 'workspaceId'],
    (db, p) => ({
      compile: () =>
        sql`insert into webhook_deliveries (${sql.raw(COLUMNS)})
          select cast(${p.idPrefix} as varchar(96)) || substr(w.id, 5), w.workspace_id, w.id,
            cast(${p.eventId} as varchar(96)), ${sql.lit(RULES_CHANGED)}, cast(${p.revision} as bigint), null,
            cast(${p.at} as bigint), 'pending', 0, cast(${p.at} as bigint), cast(${p.giveUpAt} as bigint)
          from webhooks w
          where w.workspace_id = ${p.workspaceId}
            and ${sql.raw(SUBSCRIBED.replace('TYPE', `'${RULES_CHANGED}'`))} and ${sql.raw(NOT_FULL)}`.compile(
          db,
        ),
    }),
  );
  return (trx: Db, workspaceId: string, revision: number, at: number): Promise<unknown> =>
    query.run(trx, {
      idPrefix: `dlv_r${revision}_`,
      eventId: `evt_r${revision}_${workspaceId}`,
      revision,
      at,
      giveUpAt: at + RETRY_FOR_MS,
      workspaceId,
    });
}

export type ChangeRequestEvent = (typeof CHANGE_REQUEST_EVENTS)[number];

/**
 * Queues `type` with `data` for every webhook of the workspace subscribed to it, in the caller's
 * transaction (a change request's module calls it as it opens, updates, reviews, merges or closes
 * one). `data` is sent as given: never put a secret or a key in it. Answers the event's id.
 */
export async function enqueue(
  trx: Db,
  workspaceId: string,
  type: ChangeRequestEvent,
  data: Record<string, unknown>,
  at: number = Date.now(),
): Promise<string> {
  if (!(CHANGE_REQUEST_EVENTS as readonly string[]).includes(type))
    throw new Error(`${type} is not an event a webhook can subscribe to`);
  const event = randomSuffix(16);
  await sql`insert into webhook_deliveries (${sql.raw(COLUMNS)})
    select ${`dlv_${event}_`} || substr(w.id, 5), w.workspace_id, w.id, ${`evt_${event}`}, ${type},
      null, ${JSON.stringify(data)}, cast(${at} as bigint), 'pending', 0, cast(${at} as bigint),
      cast(${at + RETRY_FOR_MS} as bigint)
    from webhooks w
    where w.workspace_id = ${workspaceId} and ${sql.raw(SUBSCRIBED.replace('TYPE', `'${type.replace(/'/g, '')}'`))}
      and ${sql.raw(NOT_FULL)}`.execute(trx);
  return `evt_${event}`;
}
