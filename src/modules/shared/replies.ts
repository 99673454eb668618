// Success envelopes of single objects, with the headers that go with them (ETag, Location).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Created } from '../idempotency/idempotency-service.js';
import { etagOf, ifNoneMatchHolds } from './etag.js';

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

/** Sends what is already JSON (text, or its UTF-8 bytes) as it is. */
export function sendJson(reply: FastifyReply, json: string | Buffer) {
  return reply
    .type('application/json; charset=utf-8')
    .serializer((text: string) => text)
    .send(json);
}

/** 201 with the new object's path; a replay of an idempotent POST says so in a header. */
export function created<T extends { id: string; modificationDate: number }>(
  reply: FastifyReply,
  collectionPath: string,
  result: Created<T>,
) {
  reply.code(201).header('location', `${collectionPath}/${result.data.id}`);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return one(reply, result.data);
}

/** A request header as one string (repeated headers joined, as HTTP allows for lists). */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
