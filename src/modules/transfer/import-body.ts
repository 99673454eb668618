// The body of POST /v1/import, kept as the chunks that arrived and read a record at a time, once per
// pass of the import: a 100,000-record file held as parsed objects made the main thread's heap ~300 MB
// larger, and its garbage collection paused every workspace's requests; joined into one buffer, its
// 50 MB were copied in one go. The chunks live outside the JavaScript heap; each record is parsed when
// its pass reaches it (exactly as a body is: the same depth limit, prototype keys and unstorable text
// refused) and dropped after.
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { readJsonArray, skimRecord } from './json-array-reader.js';

/** An import's bytes, and their digest (what a retry with its Idempotency-Key is matched by). */
export class ImportFile {
  constructor(
    private readonly chunks: readonly Buffer[],
    readonly digest: string,
  ) {}

  /** The file's records, read anew: the first pass skims them (see `skimRecord`), the second checks each whole. */
  records(pass: 'first' | 'second'): AsyncIterable<unknown> {
    return readJsonArray(this.#chunks(), pass === 'first' ? skimRecord : undefined);
  }

  async *#chunks(): AsyncGenerator<Buffer> {
    yield* this.chunks;
  }
}

/**
 * The body's chunks, as Fastify's own reader checks them: refused past the route's body limit
 * (declared or counted) and when fewer or more bytes came than Content-Length said.
 */
function readChunks(request: FastifyRequest, payload: Readable): Promise<ImportFile> {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const digest: Hash = createHash('sha256');
    let received = 0;
    const stop = (error: Error) => {
      payload.removeAllListeners('data');
      payload.removeAllListeners('end');
      reject(error);
    };
    payload.on('data', (chunk: Buffer | string) => {
      // A copy: the socket's chunk may be a view of memory it reuses.
      const bytes = Buffer.from(chunk);
      received += bytes.length;
      if (received > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      chunks.push(bytes);
      digest.update(bytes);
    });
    payload.once('error', (error: Error & { statusCode?: number }) => {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      stop(error);
    });
    payload.once('end', () => {
      if (!Number.isNaN(declared) && received !== declared)
        return reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      resolve(new ImportFile(chunks, digest.digest('hex')));
    });
  });
}

/** In `scope` (the import route's own), JSON bodies are kept as an `ImportFile`. */
export function useImportBodyParser(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (request: FastifyRequest, payload: Readable) =>
    readChunks(request, payload),
  );
}
