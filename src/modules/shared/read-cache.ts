// Answers kept in memory for as long as the database has not changed at all. Asking SQLite whether
// anything changed costs a few microseconds; reading a rule costs ten times that and a page of 100
// rules a hundred times, and the clients that pull the same rules over and over (proxies, extensions,
// CI jobs) ask for the same ones between changes.

/** A number that changes whenever anyone commits (Database.dataVersion). */
export type DataVersion = () => number;

export interface ReadCache<T> {
  /** The value of `key`: kept while the database is unchanged, else built (and kept unless undefined). */
  read(key: string, build: () => Promise<T | undefined>): Promise<T | undefined>;
}

/**
 * Without `dataVersion` (PostgreSQL, which has no such cheap and exact check) every read is built.
 * The version is read before the value is built, so a change that lands while it is built leaves an
 * entry that is already stale: it is rebuilt on the next read, never served.
 */
export function createReadCache<T>(
  dataVersion: DataVersion | undefined,
  /** Bytes of memory the cache may hold; past it, the least recently used entries go. */
  maxBytes: number,
  sizeOf: (value: T) => number,
): ReadCache<T> {
  if (!dataVersion) return { read: (_key, build) => build() };
  const entries = new Map<string, { version: number; value: T; size: number }>();
  let total = 0;

  function forget(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.size;
  }

  return {
    async read(key, build) {
      const version = dataVersion();
      const hit = entries.get(key);
      if (hit?.version === version) {
        // Most recently used last: the Map's order is the eviction order.
        entries.delete(key);
        entries.set(key, hit);
        return hit.value;
      }
      const value = await build();
      forget(key);
      const size = value === undefined ? 0 : sizeOf(value);
      if (value !== undefined && size <= maxBytes) {
        while (total + size > maxBytes) forget(entries.keys().next().value as string);
        entries.set(key, { version, value, size });
        total += size;
      }
      return value;
    },
  };
}
