// Liveness and readiness for load balancers and orchestrators; no key needed.
import type { FastifyInstance } from 'fastify';
import { ping } from '../db/database.js';
import type { Db } from '../db/tables.js';
import { AppError } from '../errors.js';

export function healthPlugin(app: FastifyInstance, db: Db): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ success: true, status: 'alive' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    if (!(await ping(db))) throw new AppError('UNAVAILABLE');
    return { success: true, status: 'ready' };
  });
}
