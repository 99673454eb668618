// The activity of a workspace: security events and steps of the team's work (change requests, test
// suites) recorded by the modules they happen in (inside their own transactions, so an event exists
// exactly when its change does), and GET /v1/activity, which merges them with the change log's rule and
// group changes, newest first, a page at a time.
import type { Db } from '../../db/tables.js';
import { AppError, pointerToken } from '../../errors.js';
import { isStorableText } from '../../http/payload.js';
import { randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import { schemaErrors } from '../../validation.js';
import type { Actor } from './activity-actor.js';
import {
  type ActivityKind,
  type ActivityObjectType,
  type ChangeKind,
  isChangeKind,
  isSecurityKind,
  isWorkKind,
  type RecordedKind,
  WORK_KINDS,
} from './activity-kinds.js';
import { checkActivityQuery, DEFAULT_ACTIVITY_PAGE, MAX_ACTIVITY_PAGE } from './activity-schemas.js';
import type { ActivityStore, ListedChange, ListedEvent } from './activity-store.js';

/** What a module records: `record(trx, event)` inside the transaction of the change it tells of. */
export interface SecurityEvent {
  workspaceId: string;
  kind: RecordedKind;
  actor: Actor;
  object?: { type: ActivityObjectType; id: string };
  /** A few facts (never a secret: no password, token, key or session id). */
  detail?: Record<string, string | number | boolean | null>;
  /** When; now by default. */
  at?: number;
}

export interface ActivityEntry {
  id: string;
  at: number;
  kind: ActivityKind;
  by: string | null;
  byName: string | null;
  via: { type: 'session' | 'key' | 'cli'; keyId: string | null; keyName: string | null } | null;
  address: string | null;
  object: { type: ActivityObjectType; id: string } | null;
  detail: Record<string, unknown> | null;
}

export interface ActivityPage {
  items: ActivityEntry[];
  nextCursor: string | null;
}

/** Where a page starts in each source: strictly before these positions (undefined: the newest). */
interface Cursor {
  change?: { revision: number; seq: number };
  event?: { at: number; id: string };
}

const ADMIN_ROLES = new Set(['admin', 'owner']);

/**
 * Admins and owners see the security events; everyone else the changes alone. A key does the smaller
 * of its scope and its user's role, so an admin's read or write key sees what an editor sees.
 */
const seesSecurity = (principal: Principal & { scope?: string }) =>
  ADMIN_ROLES.has(principal.role) && (principal.scope === undefined || principal.scope === 'admin');

function readQuery(query: unknown) {
  const raw = (query ?? {}) as Record<string, unknown>;
  const details = schemaErrors(checkActivityQuery, raw);
  for (const [name, value] of Object.entries(raw))
    if (typeof value === 'string' && !isStorableText(value))
      details.push({
        path: `/${pointerToken(name)}`,
        message: 'holds a NUL character or a lone UTF-16 surrogate',
      });
  const q = raw as {
    cursor?: string;
    pageSize?: string;
    actor?: string;
    kind?: ActivityKind;
    object?: string;
  };
  const pageSize = q.pageSize === undefined ? DEFAULT_ACTIVITY_PAGE : Number(q.pageSize);
  if (details.length === 0 && (pageSize < 1 || pageSize > MAX_ACTIVITY_PAGE))
    details.push({ path: '/pageSize', message: `must be from 1 to ${MAX_ACTIVITY_PAGE}` });
  if (details.length > 0) throw new AppError('INVALID_QUERY', details);
  return { ...q, pageSize, cursor: parseCursor(q.cursor) };
}

/** The cursor's text (its form checked by the query's pattern): `rev-seq.at-id`, `-` for a side not begun. */
function parseCursor(text: string | undefined): Cursor {
  if (text === undefined) return {};
  const [change = '-', event = '-'] = text.split('.');
  const cursor: Cursor = {};
  if (change !== '-') {
    const [revision, seq] = change.split('-');
    cursor.change = { revision: Number(revision), seq: Number(seq) };
  }
  if (event !== '-') {
    const dash = event.indexOf('-');
    cursor.event = { at: Number(event.slice(0, dash)), id: event.slice(dash + 1) };
  }
  return cursor;
}

const cursorText = ({ change, event }: Cursor) =>
  `${change ? `${change.revision}-${change.seq}` : '-'}.${event ? `${event.at}-${event.id}` : '-'}`;

function fromChange(row: ListedChange): ActivityEntry {
  return {
    id: `chg_${row.revision}_${row.seq}`,
    at: Number(row.at),
    kind: `${row.object_type}_${row.change}` as ChangeKind,
    by: row.by_user,
    byName: row.by_name,
    via: null,
    address: null,
    object: { type: row.object_type, id: row.object_id },
    detail: {
      revision: Number(row.revision),
      // A merged change request names itself; an admin's direct write while review was required says so.
      ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
      ...(row.review_bypassed ? { reviewBypassed: true } : {}),
    },
  };
}

/** An event as listed; its address only for those who see the security events (`withAddress`). */
function fromEvent(row: ListedEvent, withAddress: boolean): ActivityEntry {
  const { via } = row;
  return {
    id: row.id,
    at: Number(row.at),
    kind: row.kind as RecordedKind,
    by: row.actor_user_id,
    byName: row.actor_name,
    via:
      via === null
        ? null
        : via === 'session' || via === 'cli'
          ? { type: via, keyId: null, keyName: null }
          : { type: 'key', keyId: via, keyName: row.key_name },
    address: withAddress ? row.address : null,
    object:
      row.object_type && row.object_id
        ? { type: row.object_type as ActivityObjectType, id: row.object_id }
        : null,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
  };
}

export function createActivityService(deps: { store: ActivityStore }) {
  const { store } = deps;

  return {
    /** Writes `event` in `trx`, the transaction of the change it tells of. */
    async record(trx: Db, event: SecurityEvent): Promise<void> {
      await store.insert(trx, {
        id: `evt_${randomSuffix(16)}`,
        workspace_id: event.workspaceId,
        at: event.at ?? Date.now(),
        kind: event.kind,
        actor_user_id: event.actor.userId,
        via: event.actor.via,
        address: event.actor.address,
        object_type: event.object?.type ?? null,
        object_id: event.object?.id ?? null,
        detail: event.detail === undefined ? null : JSON.stringify(event.detail),
      });
    },

    /**
     * GET /v1/activity: the workspace's changes and (for admins) security events, newest first. Each
     * source is read from its own position, one more than a page, and the two are merged by time (an
     * event before a change of the same millisecond); the cursor keeps each source's position, so no
     * entry is skipped or listed twice, whatever arrives between pages.
     */
    async list(principal: Principal & { scope?: string }, query: unknown): Promise<ActivityPage> {
      const q = readQuery(query);
      const { workspaceId } = principal;
      const kind = q.kind;
      const security = seesSecurity(principal);
      // Every member sees the team's work; the security events are for admins alone.
      const wantEvents = kind === undefined || isWorkKind(kind) || (security && isSecurityKind(kind));
      const wantChanges = kind === undefined || isChangeKind(kind);
      const filters = { actor: q.actor, object: q.object };
      const kinds = security ? undefined : WORK_KINDS;
      const [objectType, change] = kind && isChangeKind(kind) ? (kind.split('_') as [never, never]) : [];
      const fetch = q.pageSize + 1;
      const [changes, events] = await Promise.all([
        wantChanges
          ? store.changes(workspaceId, { ...filters, objectType, change }, q.cursor.change, fetch)
          : [],
        wantEvents ? store.events(workspaceId, { ...filters, kind, kinds }, q.cursor.event, fetch) : [],
      ]);

      const items: ActivityEntry[] = [];
      let c = 0;
      let e = 0;
      while (items.length < q.pageSize && (c < changes.length || e < events.length)) {
        const nextChange = changes[c];
        const nextEvent = events[e];
        if (nextEvent && (!nextChange || Number(nextEvent.at) >= Number(nextChange.at))) {
          items.push(fromEvent(nextEvent, security));
          e++;
        } else if (nextChange) {
          items.push(fromChange(nextChange));
          c++;
        }
      }
      if (c >= changes.length && e >= events.length) return { items, nextCursor: null };
      return { items, nextCursor: cursorText(next(q.cursor, changes, c, events, e)) };
    },

    /** Removes the security events older than `maxAgeMs` (at `now`); answers how many went. */
    sweep: (maxAgeMs: number, now = Date.now()) => store.sweep(now - maxAgeMs),
  };
}

/**
 * Each source's position after a page that took `c` changes and `e` events. A source of which nothing
 * was taken starts, next time, at the first entry it offered (so that an entry written meanwhile, newer
 * than what was listed, does not come later out of order), or stays where it was if it offered none.
 */
function next(cursor: Cursor, changes: ListedChange[], c: number, events: ListedEvent[], e: number): Cursor {
  const lastChange = changes[c - 1];
  const firstChange = changes[0];
  const lastEvent = events[e - 1];
  const firstEvent = events[0];
  return {
    change: lastChange
      ? { revision: Number(lastChange.revision), seq: lastChange.seq }
      : firstChange
        ? { revision: Number(firstChange.revision), seq: firstChange.seq + 1 }
        : cursor.change,
    // Before (at + 1, '') is everything at that millisecond or earlier.
    event: lastEvent
      ? { at: Number(lastEvent.at), id: lastEvent.id }
      : firstEvent
        ? { at: Number(firstEvent.at) + 1, id: '' }
        : cursor.event,
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
