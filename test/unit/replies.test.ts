// Pages in the reply layer: the bytes of a page of JSON text say what the envelope of its objects
// says, and a page served again (the same object, kept by a read model) is not encoded again.
import { describe, expect, it } from 'vitest';
import { jsonArrayPieces, type Page, pageBytesOf, paged } from '../../src/http/replies.js';

const objects = [
  { id: 'a', name: 'zwölf "quoted"' },
  { id: 'b', pairs: [{ n: 1 }] },
];
const asText = (page: Page<unknown>): Page<string> => ({
  ...page,
  items: page.items.map((item) => JSON.stringify(item)),
});

describe('pages', () => {
  it('serialised, hold exactly the envelope of the same objects', () => {
    for (const page of [
      { items: objects, total: 2, offset: 0 },
      { items: objects, total: 5, offset: 1 },
      { items: [], total: 3, offset: 3 },
    ]) {
      const bytes = pageBytesOf(asText(page));
      expect(JSON.parse(bytes.toString('utf8'))).toEqual(paged(page));
    }
    expect(paged({ items: objects, total: 5, offset: 1 }).nextOffset).toBe(3);
    expect(paged({ items: objects, total: 3, offset: 1 }).nextOffset).toBeNull();
  });

  it('are encoded once per page object', () => {
    const page = asText({ items: objects, total: 2, offset: 0 });
    expect(pageBytesOf(page)).toBe(pageBytesOf(page));
    expect(pageBytesOf({ ...page })).not.toBe(pageBytesOf(page));
  });
});

describe('jsonArrayPieces', () => {
  async function text(pages: unknown[][]): Promise<string> {
    async function* from() {
      yield* pages;
    }
    let all = '';
    for await (const piece of jsonArrayPieces(from())) all += piece;
    return all;
  }

  it('writes the items of every page as one JSON array, pages of none included', async () => {
    expect(JSON.parse(await text([objects, [], [{ id: 'c' }]]))).toEqual([...objects, { id: 'c' }]);
    expect(JSON.parse(await text([[], objects]))).toEqual(objects);
    expect(await text([])).toBe('[]\n');
  });
});
