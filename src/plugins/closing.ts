// While the service shuts down, requests still arriving get the documented 503 and a closed connection;
// the ones already in flight finish.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

export function closingPlugin(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new AppError('UNAVAILABLE');
  });
}
