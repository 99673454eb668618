// Short and long modes of the heavy suites, and seeded randomness that a failure can be replayed with.

/** RULEKEEPER_LONG_TESTS=1 runs the heavy suites at full length; by default they run a short, meaningful pass. */
export const LONG_TESTS = process.env.RULEKEEPER_LONG_TESTS === '1';

export function byMode<T>(short: T, long: T): T {
  return LONG_TESTS ? long : short;
}

/** The seed in `envName` when set (to replay a failure), else a fresh one; printed either way. */
export function seedFor(envName: string, suite: string): number {
  const raw = process.env[envName];
  const seed = raw !== undefined && raw !== '' ? Number(raw) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isSafeInteger(seed)) throw new Error(`${envName} must be an integer, got "${raw}"`);
  console.log(`[${suite}] seed ${seed} (replay with ${envName}=${seed})`);
  return seed;
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same sequence. */
export function randomFrom(seed: number): { next(): number; int(min: number, max: number): number } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}
