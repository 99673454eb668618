// Answers kept in memory for as long as their data has not changed, as told by a version: the
// workspace revision (read for every request anyway, for Rulekeeper-Revision and ETags), or on SQLite
// its data_version. Reading a rule costs far more, a page of 100 rules a hundred times more, and the
// clients that pull the same rules over and over (proxies, extensions, CI jobs) ask for the same ones
// between changes. Exact on every instance: a change through any instance moves the revision that
// the next read checks.

/** A number that changes whenever anyone commits (Database.dataVersion). */
export type DataVersion = () => number;

export interface ReadCache<T> {
  /**
   * The value of `key` built at `revision` (a version of its data): kept while the version holds,
   * else built, once for all who ask meanwhile at that version (and kept when `keep` says so, by
   * default unless undefined). Without a version, always
   * built. A value kept is answered at once, not as a promise: the hottest reads wait on nothing.
   */
  read(
    key: string,
    revision: number | undefined,
    build: () => Promise<T | undefined>,
    keep?: (value: T | undefined) => boolean,
  ): T | Promise<T | undefined>;
}

/**
 * The version must be read before the value is built: a change that lands while it is built then
 * leaves an entry already stale (kept under the older revision), rebuilt on the next read, never served.
 */
export function createReadCache<T>(
  /** Bytes of memory the cache may hold; past it, entries not read for longest go (clock algorithm). */
  maxBytes: number,
  sizeOf: (value: T) => number,
): ReadCache<T> {
  // In insertion order, oldest first; `used` marks an entry read since it was last passed over for
  // eviction (the clock algorithm: a hit sets a flag instead of moving the entry, which on a Map is a
  // delete and an insert, a measurable share of a cached read).
  const entries = new Map<string, { revision: number; value: T; size: number; used: boolean }>();
  /**
   * Builds under way, by key: the requests that miss the same entry at the same version together (the
   * clients that read again right after a change, all at once) wait for one build, not one each.
   */
  const building = new Map<string, { revision: number; value: Promise<T | undefined> }>();
  let total = 0;

  function forget(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.size;
  }

  /** Builds the value of `key` at `revision` and keeps it (see read). */
  async function build<V extends T | undefined>(
    key: string,
    revision: number,
    make: () => Promise<V>,
    keep: (value: V) => boolean,
  ): Promise<V> {
    const value = await make();
    // A slower build of an older revision must not replace a newer entry.
    const current = entries.get(key);
    if (current && current.revision > revision) return value;
    forget(key);
    if (value === undefined || !keep(value)) return value;
    const size = sizeOf(value as T);
    if (size <= maxBytes) {
      while (total + size > maxBytes) {
        const [oldestKey, oldest] = entries.entries().next().value as [string, { used: boolean }];
        if (!oldest.used) forget(oldestKey);
        else {
          // Read since it was last passed over: it goes to the end, unmarked.
          oldest.used = false;
          entries.delete(oldestKey);
          entries.set(oldestKey, oldest as never);
        }
      }
      entries.set(key, { revision, value: value as T, size, used: false });
      total += size;
    }
    return value;
  }

  return {
    read(key, revision, make, keep = (value) => value !== undefined) {
      if (revision === undefined) return make();
      const hit = entries.get(key);
      if (hit?.revision === revision) {
        hit.used = true;
        return hit.value;
      }
      const pending = building.get(key);
      if (pending?.revision === revision) return pending.value;
      const value = build(key, revision, make, keep);
      const entry = { revision, value };
      building.set(key, entry);
      const done = () => {
        if (building.get(key) === entry) building.delete(key);
      };
      value.then(done, done);
      return value;
    },
  };
}
