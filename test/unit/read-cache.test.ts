// The read cache on its own: an entry is served only under the revision it was built at, a build
// racing a change leaves a stale entry (never served), and memory stays within its bound.
import { describe, expect, it } from 'vitest';
import { createReadCache } from '../../src/modules/shared/read-cache.js';

describe('createReadCache', () => {
  it('serves an entry while the revision holds and rebuilds once it moves', async () => {
    const cache = createReadCache<string>(1000, (v) => v.length);
    let builds = 0;
    const build = async () => `value ${++builds}`;
    expect(await cache.read('k', 1, build)).toBe('value 1');
    expect(await cache.read('k', 1, build)).toBe('value 1');
    expect(await cache.read('k', 2, build)).toBe('value 2');
    expect(await cache.read('k', 2, build)).toBe('value 2');
    // Without a revision, nothing is kept or served.
    expect(await cache.read('k', undefined, build)).toBe('value 3');
    expect(builds).toBe(3);
  });

  it('keeps a value built while the data changed under the older revision, so the next read rebuilds it', async () => {
    const cache = createReadCache<string>(1000, (v) => v.length);
    let data = 'old';
    // The revision (1) is read, then the data changes (revision 2) while the value is built.
    const racing = cache.read('k', 1, async () => {
      data = 'new';
      return data;
    });
    expect(await racing).toBe('new');
    expect(await cache.read('k', 2, async () => `${data} rebuilt`)).toBe('new rebuilt');
  });

  it('does not let a slow build of an older revision replace a newer entry', async () => {
    const cache = createReadCache<string>(1000, (v) => v.length);
    let release: () => void = () => {};
    const slow = cache.read('k', 1, () => new Promise((resolve) => (release = () => resolve('at 1'))));
    expect(await cache.read('k', 2, async () => 'at 2')).toBe('at 2');
    release();
    await slow;
    expect(await cache.read('k', 2, async () => 'rebuilt')).toBe('at 2');
  });

  it('shares one build among the reads that miss the same entry at the same revision meanwhile', async () => {
    const cache = createReadCache<string>(1000, (v) => v.length);
    let builds = 0;
    let release: () => void = () => {};
    const slow = () =>
      new Promise<string>((resolve) => {
        builds++;
        release = () => resolve(`value ${builds}`);
      });
    const first = cache.read('k', 1, slow);
    const second = cache.read('k', 1, slow);
    // Another revision is built apart: a build begun before a change may not answer after it.
    const newer = cache.read('k', 2, async () => 'at 2');
    expect(builds).toBe(1);
    release();
    expect([await first, await second, await newer]).toStrictEqual(['value 1', 'value 1', 'at 2']);
    // A failed build is not shared with the reads that come after it.
    await expect(cache.read('f', 1, async () => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(await cache.read('f', 1, async () => 'found')).toBe('found');
  });

  it('does not keep undefined, and evicts the least recently used past its size', async () => {
    const cache = createReadCache<string>(10, (v) => v.length);
    let builds = 0;
    const nothing = async () => {
      builds++;
      return undefined;
    };
    expect(await cache.read('none', 1, nothing)).toBeUndefined();
    expect(await cache.read('none', 1, nothing)).toBeUndefined();
    expect(builds).toBe(2);
    await cache.read('a', 1, async () => 'aaaa');
    await cache.read('b', 1, async () => 'bbbb');
    await cache.read('a', 1, async () => 'rebuilt a'); // a is used again: b is now the oldest
    await cache.read('c', 1, async () => 'cccc');
    expect(await cache.read('a', 1, async () => 'a again')).toBe('aaaa');
    expect(await cache.read('b', 1, async () => 'b again')).toBe('b again');
  });

  it('answers a kept value at once, without a promise', async () => {
    const cache = createReadCache<string>(1000, (v) => v.length);
    expect(await cache.read('k', 1, async () => 'built')).toBe('built');
    expect(cache.read('k', 1, async () => 'rebuilt')).toBe('built');
    expect(cache.read('k', 2, async () => 'at 2')).toBeInstanceOf(Promise);
  });

  it('answers but does not keep what `keep` refuses', async () => {
    const cache = createReadCache<string>(1000, (v) => v.length);
    const mineOnly = (value: string | undefined) => value?.startsWith('mine') ?? false;
    let builds = 0;
    const theirs = async () => `theirs ${++builds}`;
    expect(await cache.read('k', 1, theirs, mineOnly)).toBe('theirs 1');
    expect(await cache.read('k', 1, theirs, mineOnly)).toBe('theirs 2');
    expect(await cache.read('k', 1, async () => 'mine', mineOnly)).toBe('mine');
    expect(await cache.read('k', 1, theirs, mineOnly)).toBe('mine');
  });
});
