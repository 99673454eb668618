// X-Request-Id: echo a sane incoming id, else make one; every response carries it (every-request.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's `genReqId`: an id a client sent may be reused only if it cannot inject into logs or headers. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
}
