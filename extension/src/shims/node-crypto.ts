// The engine's one use of node:crypto (Requestly's `rq_rand(N)` digits), from the Web Crypto API that
// a service worker has: the build points `node:crypto` here, so the engine runs unchanged.

/** A uniform integer from 0 to `max` - 1, as Node's `randomInt(max)` answers. */
export function randomInt(max: number): number {
  // Rejection sampling: values past the last whole multiple of `max` would favour the small ones.
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  const word = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(word);
    const value = word[0] as number;
    if (value < limit) return value % max;
  }
}
