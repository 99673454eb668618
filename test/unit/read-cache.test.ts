// The read cache, tested directly: a kept value is served only while the data version is unchanged,
// a change racing a build never leaves a value served as current, and memory stays within its bound,
// least recently used out first.
import { describe, expect, it } from 'vitest';
import { createReadCache } from '../../src/modules/shared/read-cache.js';

/** A data version the test moves by hand, and a builder that counts its builds. */
function setUp(maxBytes = 100) {
  let version = 1;
  const builds: string[] = [];
  const cache = createReadCache<string>(
    () => version,
    maxBytes,
    (value) => value.length,
  );
  const read = (key: string, value = `${key}@${version}`) =>
    cache.read(key, async () => {
      builds.push(key);
      return value;
    });
  return { cache, read, builds, bump: () => version++ };
}

describe('read cache', () => {
  it('serves a kept value while nothing changed, and builds it again after any change', async () => {
    const { read, builds, bump } = setUp();
    expect(await read('a')).toBe('a@1');
    expect(await read('a')).toBe('a@1');
    expect(builds).toEqual(['a']);
    bump();
    expect(await read('a')).toBe('a@2');
    expect(builds).toEqual(['a', 'a']);
  });

  it('never serves a value built while a change landed: the version is read before the build', async () => {
    let version = 1;
    let stored = 'old';
    const cache = createReadCache<string>(
      () => version,
      100,
      (value) => value.length,
    );
    const built = await cache.read('k', async () => {
      const value = stored; // read from the database...
      stored = 'new'; // ...while another writer commits
      version++;
      return value;
    });
    expect(built).toBe('old');
    expect(await cache.read('k', async () => stored)).toBe('new');
  });

  it('keeps at most maxBytes, dropping the least recently used first', async () => {
    const { read, builds } = setUp(10);
    await read('a', 'aaaa'); // 4 bytes
    await read('b', 'bbbb'); // 8
    await read('a', 'aaaa'); // a is now the most recently used
    await read('c', 'cccc'); // 12 > 10: b goes
    builds.length = 0;
    await read('a', 'aaaa');
    await read('c', 'cccc');
    expect(builds).toEqual([]);
    await read('b', 'bbbb');
    expect(builds).toEqual(['b']);
  });

  it('keeps neither a value larger than the whole cache nor an absent one', async () => {
    const { cache, read, builds } = setUp(10);
    await read('big', 'x'.repeat(11));
    await read('big', 'x'.repeat(11));
    expect(builds).toEqual(['big', 'big']);

    let absentBuilds = 0;
    const absent = () =>
      cache.read('gone', async () => {
        absentBuilds++;
        return undefined;
      });
    expect(await absent()).toBeUndefined();
    expect(await absent()).toBeUndefined();
    expect(absentBuilds).toBe(2);
  });

  it('builds every read when there is no data version to check', async () => {
    let builds = 0;
    const cache = createReadCache<string>(undefined, 100, (value) => value.length);
    for (let i = 0; i < 3; i++) {
      await cache.read('a', async () => {
        builds++;
        return 'a';
      });
    }
    expect(builds).toBe(3);
  });
});
