// Serialised list pages kept in memory, valid for as long as the database has not changed at all.
// Reading a page of 100 rules costs the database far more than asking whether anything changed, and
// the clients that pull the same rules over and over (proxies, extensions, CI jobs) ask for the same
// pages between changes.

/** Most bytes of JSON kept; past it, the least recently used pages go. */
const MAX_BYTES = 16 * 1024 * 1024;

/** Pages are kept as UTF-8 bytes, as they go on the wire: a page served again is not encoded again. */
export type PageCache = (key: string, build: () => Promise<string>) => Promise<Buffer>;

/**
 * `dataVersion` must change whenever anyone commits; without it (PostgreSQL), every page is built.
 * The version is read before the page, so a change that lands while the page is built leaves an entry
 * that is already stale: it is rebuilt on the next request, never served.
 */
export function createPageCache(dataVersion: (() => Promise<number>) | undefined): PageCache {
  if (!dataVersion) return async (_key, build) => Buffer.from(await build());
  const entries = new Map<string, { version: number; bytes: Buffer }>();
  let total = 0;

  function forget(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.bytes.length;
  }

  return async (key, build) => {
    const version = await dataVersion();
    const hit = entries.get(key);
    if (hit?.version === version) {
      // Most recently used last: the Map's order is the eviction order.
      entries.delete(key);
      entries.set(key, hit);
      return hit.bytes;
    }
    const bytes = Buffer.from(await build());
    forget(key);
    if (bytes.length <= MAX_BYTES) {
      while (total + bytes.length > MAX_BYTES) forget(entries.keys().next().value as string);
      entries.set(key, { version, bytes });
      total += bytes.length;
    }
    return bytes;
  };
}
