// How a request appears in the log: Fastify's own fields, but without the query of /auth/ pages, which
// carries what must never be written down (an OpenID provider's one-time code and the sign-in's state).
import type { FastifyRequest } from 'fastify';

export function requestForLog(request: FastifyRequest) {
  const url = request.url.startsWith('/auth/') ? request.url.replace(/\?.*$/s, '?…') : request.url;
  return {
    method: request.method,
    url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
