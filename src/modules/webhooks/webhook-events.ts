// The events a webhook may subscribe to. Rule and group changes come as one `rules.changed` per
// revision, whatever its size: an import of 100,000 rules is one revision and so one delivery, which
// lists its first changes and their count; receivers read the change feed for the rest.
export const RULES_CHANGED = 'rules.changed';

/** The events of change requests (decisions §19), queued by their module through `enqueue`. */
export const CHANGE_REQUEST_EVENTS = [
  'change_request.opened',
  'change_request.updated',
  'change_request.reviewed',
  'change_request.merged',
  'change_request.closed',
] as const;

export const EVENT_TYPES = [RULES_CHANGED, ...CHANGE_REQUEST_EVENTS] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Changes a `rules.changed` body lists at most; `total` says how many the revision made. */
export const MAX_CHANGES_IN_BODY = 100;

/** Webhooks a workspace may have. */
export const MAX_WEBHOOKS = 20;

/**
 * Deliveries waiting for one webhook, at most: past it (a receiver down for long under many writes) new
 * events are not queued for it until it catches up; the change feed still has every change.
 */
export const MAX_PENDING_PER_WEBHOOK = 10_000;

/** How long a delivery is retried: a day from when it was queued (or replayed). */
export const RETRY_FOR_MS = 24 * 60 * 60 * 1000;

/** The events column's form: `,a,b,` (one LIKE finds a subscription), or null for every event. */
export const eventsColumn = (events: readonly string[] | null): string | null =>
  events === null ? null : `,${events.join(',')},`;

export const eventsOfColumn = (column: string | null): string[] | null =>
  column === null ? null : column.split(',').filter((e) => e !== '');

/** How long a delivery done (delivered or failed) is kept, with its attempts, for the deliveries list. */
export const KEEP_DELIVERIES_MS = 30 * 24 * 60 * 60 * 1000;
