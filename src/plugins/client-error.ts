// Requests Node's HTTP parser refuses before any route sees them (a control character in a header, a
// header line without a colon, headers too large, headers that never finish arriving) get the same
// error body as every other answer, with an X-Request-Id, instead of Fastify's bare one.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { type ErrorCode, errorTable } from '../errors.js';
import { SECURITY_HEADERS } from './security-headers.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** The error a parser refusal deserves, by Node's code for it. */
function codeFor(error: NodeJS.ErrnoException): ErrorCode {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'MALFORMED_REQUEST';
}

/** The whole answer, as raw HTTP: the request could not be read, so nothing of it (its id) is reused. */
export function clientErrorResponse(error: NodeJS.ErrnoException, requestId = randomUUID()): string {
  const code = codeFor(error);
  const { status, message } = errorTable[code];
  const body = JSON.stringify({ success: false, message, code, requestId });
  const headers = {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    // What else was on the connection cannot be trusted to start where the parser thinks.
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`. */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> = (
  error: NodeJS.ErrnoException,
  socket: Socket,
) => {
  // A connection reset or already closed: there is no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(clientErrorResponse(error));
  socket.destroy(error);
};
