// Serialised list pages kept in memory, valid for as long as the database has not changed at all.
// Reading a page of 100 rules costs the database far more than asking whether anything changed, and
// the clients that pull the same rules over and over (proxies, extensions, CI jobs) ask for the same
// pages between changes.

/** Most characters of JSON kept (about twice as many bytes); past it, the least recently used go. */
const MAX_CHARS = 8 * 1024 * 1024;

export type PageCache = (key: string, build: () => Promise<string>) => Promise<string>;

/**
 * `dataVersion` must change whenever anyone commits; without it (PostgreSQL), every page is built.
 * The version is read before the page, so a change that lands while the page is built leaves an entry
 * that is already stale: it is rebuilt on the next request, never served.
 */
export function createPageCache(dataVersion: (() => Promise<number>) | undefined): PageCache {
  if (!dataVersion) return (_key, build) => build();
  const entries = new Map<string, { version: number; text: string }>();
  let chars = 0;

  function forget(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    chars -= entry.text.length;
  }

  return async (key, build) => {
    const version = await dataVersion();
    const hit = entries.get(key);
    if (hit?.version === version) {
      // Most recently used last: the Map's order is the eviction order.
      entries.delete(key);
      entries.set(key, hit);
      return hit.text;
    }
    const text = await build();
    forget(key);
    if (text.length <= MAX_CHARS) {
      while (chars + text.length > MAX_CHARS) forget(entries.keys().next().value as string);
      entries.set(key, { version, text });
      chars += text.length;
    }
    return text;
  };
}
