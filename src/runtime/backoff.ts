// Waiting between attempts while the server is away: exponential, capped, with jitter so that the
// proxies and browsers of a whole team do not all come back in the same millisecond after a restart.

export interface Backoff {
  /** The first wait (default 250 ms); each failure after it doubles the wait up to `maxMs`. */
  minMs: number;
  /** The longest wait (default 30 s). */
  maxMs: number;
}

/** The wait before attempt `failures + 1`: between half and all of the capped exponential delay. */
export function backoffDelay({ minMs, maxMs }: Backoff, failures: number, random = Math.random): number {
  const capped = Math.min(maxMs, minMs * 2 ** Math.min(failures, 30));
  return capped / 2 + random() * (capped / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
