// X-Request-Id: echo a sane incoming id, else make one; every response carries it (every-request.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The ids reused as sent (also in the OpenAPI document); anything else is replaced. */
export const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
const SANE_ID = new RegExp(REQUEST_ID_PATTERN);

/** Fastify's `genReqId`: an id a client sent may be reused only if it cannot inject into logs or headers. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
}
