// What every request gets first, in one onRequest hook (each hook is a turn of Fastify's hook runner,
// a measurable share of a cached read): the security headers, X-Request-Id, and, while the service
// shuts down, the documented 503 and a closed connection (requests already in flight finish).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { SECURITY_HEADERS } from './security-headers.js';

export function everyRequestPlugin(app: FastifyInstance): void {
  app.decorateRequest('routeConfigOnce', null);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    reply.header('x-request-id', request.id);
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new AppError('UNAVAILABLE'));
  });
}
