// The import's streaming reader: the same records as a whole-file parse, wherever the file's chunks
// happen to end, and the documented error (with the pointer of the record at fault) for what is not
// one JSON array.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { readJsonArray } from '../../src/modules/transfer/json-array-reader.js';

/** The file's bytes, cut after each of `cuts` bytes, as a stream gives them. */
async function* chunked(text: string, cuts: number[] = []): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= at || cut >= bytes.length) continue;
    yield bytes.subarray(at, cut);
    at = cut;
  }
  yield bytes.subarray(at);
}

async function read(text: string, cuts?: number[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const value of readJsonArray(chunked(text, cuts))) out.push(value);
  return out;
}

async function failure(text: string): Promise<{ path: string; message: string }> {
  try {
    await read(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe('IMPORT_INVALID');
    return appError.details?.[0] as { path: string; message: string };
  }
  throw new Error(`${JSON.stringify(text)} was read without an error`);
}

describe('readJsonArray', () => {
  it('gives what JSON.parse gives, for any array cut anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 12 }),
        fc.constantFrom('', ' ', '\n\t '),
        async (array, cuts, space) => {
          const text = space + JSON.stringify(array, null, space.length > 0 ? 1 : 0) + space;
          // Prototype keys are refused on purpose (a test below); JSON.parse would take them.
          fc.pre(!/"(__proto__|constructor)"/.test(text));
          expect(await read(text, cuts)).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads escaped quotes, backslashes and multi-byte characters split between chunks', async () => {
    const records = [{ name: 'a "quoted" \\ name, with ] and }' }, { name: 'Grüße 日本 🎉' }];
    const text = JSON.stringify(records);
    for (let cut = 1; cut < Buffer.byteLength(text); cut++) expect(await read(text, [cut])).toEqual(records);
  });

  it('takes an empty array and a UTF-8 byte order mark', async () => {
    expect(await read('[]')).toEqual([]);
    expect(await read(' [ \n ] \n')).toEqual([]);
    expect(await read('\uFEFF[{"a":1}]')).toEqual([{ a: 1 }]);
  });

  it('refuses what is not one JSON array, naming where', async () => {
    expect(await failure('{"objectType":"rule"}')).toMatchObject({ path: '', message: /JSON array/ });
    expect(await failure('')).toMatchObject({ path: '', message: /ends before/ });
    expect(await failure('[{"a":1},{"b":2}')).toMatchObject({ path: '/1', message: /ends before/ });
    expect(await failure('[1,2] [3]')).toMatchObject({ path: '', message: /more than one JSON value/ });
    expect(await failure('[1,,2]')).toMatchObject({ path: '/1', message: /expected a record/ });
    expect(await failure('[1,]')).toMatchObject({ path: '/1' });
    expect(await failure('[{"a":1},{"b":}]')).toMatchObject({
      path: '/1',
      message: /record 1 is not valid JSON/,
    });
  });

  it('refuses prototype keys and text no database stores, as a request body is', async () => {
    expect(await failure('[{},{"__proto__":{"x":1}}]')).toMatchObject({ path: '/1' });
    expect(await failure('[{"a":"ok"},{"name":"a\\u0000b"}]')).toMatchObject({ path: '/1/name' });
  });

  it('refuses a record nested past 64 levels of the file (the array is one), at the place', async () => {
    const record = (levels: number) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    expect(await read(`[${record(62)}]`)).toHaveLength(1);
    const deep = await failure(`[{},${record(100_000)}]`);
    expect(deep).toStrictEqual({
      path: `/1/a${'/0'.repeat(62)}`,
      message: expect.stringContaining('64 levels'),
    });
  });
});
