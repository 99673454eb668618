// While the service shuts down, requests still arriving get the documented 503 and a closed connection;
// the ones already in flight finish.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

export function closingPlugin(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new AppError('UNAVAILABLE'));
  });
}
