// What the Keys page says of a key: its state now, and what each scope lets it do.
import type { Schemas } from '../api.js';

export type Key = Schemas['Key'];
export type Scope = Key['scope'];
export type KeyState = 'active' | 'revoked' | 'expired';

export function stateOf(key: Key, now = Date.now()): KeyState {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

export const SCOPE_WORDS: Record<Scope, string> = {
  read: 'read: reads rules and groups, tries requests, exports',
  write: 'write: also changes rules and groups, imports',
  admin: 'admin: also manages members and workspace keys',
};

/**
 * The end of the day a date field names (`2026-05-01`), in the browser's time zone, as epoch ms: a key
 * set to expire "on the 1st" works through the 1st.
 */
export function endOfDay(date: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59, 999).getTime();
}

/** Today as a date field writes it, in the browser's time zone (the earliest expiry offered). */
export function today(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
