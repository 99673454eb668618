// A key's hit reports per minute (HITS_REPORTS_PER_MINUTE): counted by every instance together through
// Redis when REDIS_URL is set, as the request rate limit is (plugins/rate-limit.ts), else by this
// instance alone. Past it, 429 with the exact Retry-After: the seconds left of the key's minute, which
// starts with its first report. A Redis that does not answer does not lift the limit: the instance
// counts alone meanwhile (the house's request limit lets requests pass instead; reports are cheap to
// refuse and a runtime sends them again).
import type { Redis } from 'ioredis';
import { AppError } from '../../errors.js';

const WINDOW_MS = 60_000;
/** Keys whose report counts this instance remembers; the oldest windows are dropped past it. */
const MAX_LIMITED_KEYS = 10_000;
/** A Redis that fails is said at most this often in the log (a flood of reports is not a flood of lines). */
const WARN_EVERY_MS = 60_000;
const NAMESPACE = 'rulekeeper-hits:';

/**
 * One report counted in the key's window, atomically: its reports so far (this one included) and the
 * milliseconds left. The window is set with the first report, and again should a key have lost it.
 */
const COUNT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

export interface ReportLimit {
  /** Counts a report of the key; throws RATE_LIMITED (429, Retry-After) past the limit. */
  count(keyId: string): Promise<void>;
}

export function createReportLimit(deps: {
  perMinute: number;
  /** Shared with the other instances when set; else (and while it fails) this instance counts alone. */
  redis?: Redis;
  now: () => number;
  warn?(err: unknown): void;
}): ReportLimit {
  const { perMinute, redis, now } = deps;
  /** Per key, the current minute's start and its reports (this instance's own count). */
  const windows = new Map<string, { start: number; reports: number }>();
  let warnedAt = Number.NEGATIVE_INFINITY;

  const refuse = (msLeft: number) =>
    new AppError('RATE_LIMITED', undefined, Math.max(1, Math.ceil(msLeft / 1000)));

  function countHere(keyId: string): void {
    const at = now();
    let window = windows.get(keyId);
    if (!window || at - window.start >= WINDOW_MS) {
      windows.delete(keyId);
      if (windows.size >= MAX_LIMITED_KEYS) windows.delete(windows.keys().next().value as string);
      window = { start: at, reports: 0 };
      windows.set(keyId, window);
    }
    window.reports++;
    if (window.reports > perMinute) throw refuse(window.start + WINDOW_MS - at);
  }

  async function countShared(shared: Redis, keyId: string): Promise<void> {
    let answer: unknown;
    try {
      answer = await shared.eval(COUNT_SCRIPT, 1, `${NAMESPACE}${keyId}`, WINDOW_MS);
    } catch (err) {
      if (now() - warnedAt >= WARN_EVERY_MS) {
        warnedAt = now();
        deps.warn?.(err);
      }
      return countHere(keyId);
    }
    const [reports, msLeft] = (answer as [number, number]).map(Number) as [number, number];
    if (reports > perMinute) throw refuse(msLeft);
  }

  return {
    count: async (keyId) => (redis ? countShared(redis, keyId) : countHere(keyId)),
  };
}
