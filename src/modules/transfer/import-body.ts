// The body of POST /v1/import, read a slice at a time: a 50 MB file parsed in one go held every other
// request of every workspace for seconds. Its records are parsed one by one (exactly as a body is:
// the same depth limit, prototype keys and unstorable text refused), and between every few hundred
// the event loop serves everyone else.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import { MalformedBody } from '../shared/payload.js';
import { nextSlice, SLICE_ITEMS } from '../shared/slices.js';
import { readJsonArray } from './json-array-reader.js';
import { MAX_IMPORT_RECORDS } from './transfer-schemas.js';

/** An import's records, and a digest of the bytes sent (what a retry with its Idempotency-Key is matched by). */
export class ImportFile {
  constructor(
    readonly records: unknown[],
    readonly digest: string,
  ) {}
}

/** Bytes handed to the reader at a time. */
const CHUNK_BYTES = 1 << 20;

async function* chunksOf(raw: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < raw.length; at += CHUNK_BYTES) yield raw.subarray(at, at + CHUNK_BYTES);
}

/** The file's records, or why they cannot be read (handed on, as every malformed body is). */
export async function readImportBody(raw: Buffer): Promise<ImportFile | MalformedBody> {
  const records: unknown[] = [];
  try {
    for await (const record of readJsonArray(chunksOf(raw))) {
      if (records.length === MAX_IMPORT_RECORDS)
        return new MalformedBody(
          `holds more than ${MAX_IMPORT_RECORDS} records; at most ${MAX_IMPORT_RECORDS} are taken at once`,
        );
      records.push(record);
      if (records.length % SLICE_ITEMS === 0) await nextSlice();
    }
  } catch (error) {
    const detail = error instanceof AppError ? error.details?.[0] : undefined;
    if (!detail) throw error;
    return new MalformedBody(detail.message, detail.path);
  }
  return new ImportFile(records, createHash('sha256').update(raw).digest('hex'));
}

/** In `scope` (the import route's own), JSON bodies are read by `readImportBody`. */
export function useImportBodyParser(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request: unknown, raw: Buffer) =>
    readImportBody(raw),
  );
}
