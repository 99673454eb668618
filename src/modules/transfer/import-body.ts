// The body of POST /v1/import, kept as the bytes sent and read a record at a time, once per pass of
// the import: a 100,000-record file held as parsed objects made the main thread's heap ~300 MB larger,
// and its garbage collection paused every workspace's requests for hundreds of milliseconds. The bytes
// live outside the JavaScript heap; each record is parsed when its pass reaches it (exactly as a body
// is: the same depth limit, prototype keys and unstorable text refused) and dropped after.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { readJsonArray, skimRecord } from './json-array-reader.js';

/** An import's bytes, and their digest (what a retry with its Idempotency-Key is matched by). */
export class ImportFile {
  readonly digest: string;
  constructor(private readonly raw: Buffer) {
    this.digest = createHash('sha256').update(raw).digest('hex');
  }

  /** The file's records, read anew: the first pass skims them (see `skimRecord`), the second checks each whole. */
  records(pass: 'first' | 'second'): AsyncIterable<unknown> {
    return readJsonArray(chunksOf(this.raw), pass === 'first' ? skimRecord : undefined);
  }
}

/** Bytes handed to the reader at a time. */
const CHUNK_BYTES = 1 << 20;

async function* chunksOf(raw: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < raw.length; at += CHUNK_BYTES) yield raw.subarray(at, at + CHUNK_BYTES);
}

/** In `scope` (the import route's own), JSON bodies are kept as an `ImportFile`. */
export function useImportBodyParser(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request: unknown, raw: Buffer) =>
    Promise.resolve(new ImportFile(raw)),
  );
}
