// Success envelopes of single objects and pages, with the headers that go with them (ETag, Location):
// services return data, and only this layer turns it into answers and bytes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { nextTurn, SLICE_ITEMS } from '../jobs/slices.js';
import { etagOf, ifNoneMatchHolds } from './etag.js';
import { recordedAt } from './revision-header.js';

export function one<T extends { modificationDate: number }>(reply: FastifyReply, data: T) {
  reply.header('etag', etagOf(data));
  if (notModified(reply)) return reply;
  return { success: true as const, data };
}

/**
 * Answers 304 with no body when the request is a GET whose If-None-Match holds the ETag already set
 * on the reply; true when it did.
 */
export function notModified(reply: FastifyReply): boolean {
  const { request } = reply;
  if (
    request.method !== 'GET' ||
    !ifNoneMatchHolds(request.headers['if-none-match'], String(reply.getHeader('etag')))
  )
    return false;
  reply.code(304).send();
  return true;
}

/** An object already serialised (by the database), with its version for the ETag. */
export interface SerializedOne {
  json: string;
  modificationDate: number;
}

/** The envelope of `one`, around an object that is already JSON text: nothing is serialised again. */
export function oneSerialized(reply: FastifyReply, object: SerializedOne) {
  if (notModified(reply.header('etag', etagOf(object)))) return reply;
  return sendJson(reply, `{"success":true,"data":${object.json}}`);
}

/**
 * A page of a list as a service returns it: its items, the total they are part of, and where it starts.
 * Never changed once built: a kept page is served again as the bytes built from it (pageBytesOf).
 */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly offset: number;
}

function nextOffset(page: Page<unknown>): number | null {
  const count = page.items.length;
  return count > 0 && page.offset + count < page.total ? page.offset + count : null;
}

/** The envelope of a page. */
export function paged<T>(page: Page<T>) {
  return { success: true as const, data: page.items, total: page.total, nextOffset: nextOffset(page) };
}

/**
 * The bytes of pages whose items are already JSON text, built once per page object: a page kept by a
 * read model and served again is not joined nor encoded again, and its bytes go when it does.
 */
const pageBytes = new WeakMap<Page<string>, Buffer>();

/** The envelope of `paged` as UTF-8 bytes, around items that are already JSON text. */
export function pageBytesOf(page: Page<string>): Buffer {
  let bytes = pageBytes.get(page);
  if (!bytes) {
    const { items, total } = page;
    bytes = Buffer.from(
      `{"success":true,"data":[${items.join(',')}],"total":${total},"nextOffset":${nextOffset(page)}}`,
    );
    pageBytes.set(page, bytes);
  }
  return bytes;
}

export function pageSerialized(reply: FastifyReply, page: Page<string>) {
  return sendJson(reply, pageBytesOf(page));
}

/**
 * A JSON array as text, in pieces, from its items a page at a time: a long array is sent as it is
 * read, never whole in memory.
 */
export async function* jsonArrayPieces(pages: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  let separator = '';
  yield '[';
  for await (const items of pages) {
    if (items.length === 0) continue;
    yield separator + items.map((item) => JSON.stringify(item)).join(',');
    separator = ',';
  }
  yield ']\n';
}

/**
 * `{success: true, data}` as pieces of JSON text, `data[field]` (a long list) a slice of items at a
 * time: an import's report of 100,000 items is 20 MB of JSON, which one serialisation made every
 * other request wait for. Only for data already in its documented shape (nothing is left out).
 */
export async function* successPieces(data: Record<string, unknown>, field: string): AsyncGenerator<string> {
  const { [field]: list, ...rest } = data;
  const head = JSON.stringify({ success: true, data: { ...rest, [field]: null } });
  yield head.slice(0, -'null}}'.length);
  yield* jsonArrayPieces(inSlices(list as readonly unknown[]));
  yield '}}';
}

async function* inSlices(list: readonly unknown[]): AsyncGenerator<readonly unknown[]> {
  for (let at = 0; at < list.length; at += SLICE_ITEMS) {
    if (at > 0) await nextTurn();
    yield list.slice(at, at + SLICE_ITEMS);
  }
}

/** Sends what is already JSON (text, or its UTF-8 bytes) as it is. */
export function sendJson(reply: FastifyReply, json: string | Buffer) {
  return reply
    .type('application/json; charset=utf-8')
    .serializer((text: string) => text)
    .send(json);
}

/** What a create returns: the object, and whether it is the remembered answer to an earlier request
 * with the same Idempotency-Key (declared here, where it is answered; idempotency-service makes it). */
export interface Created<T> {
  data: T;
  replayed: boolean;
  /** The revision the create recorded (its Rulekeeper-Revision); none on a replay. */
  revision?: number;
}

/** 201 with the new object's path; a replay of an idempotent POST says so in a header. */
export function created<T extends { id: string; modificationDate: number }>(
  reply: FastifyReply,
  collectionPath: string,
  result: Created<T>,
) {
  recordedAt(reply, result.revision).code(201).header('location', `${collectionPath}/${result.data.id}`);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return one(reply, result.data);
}

/** The answer to a write (never a conditional GET): the object with its ETag, and what was found about it. */
export function written<T extends { modificationDate: number }, W>(
  reply: FastifyReply,
  data: T,
  warnings: W[],
) {
  reply.header('etag', etagOf(data));
  return { success: true as const, data, warnings };
}

/** A request header as one string (repeated headers joined, as HTTP allows for lists). */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
