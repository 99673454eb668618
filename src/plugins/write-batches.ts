// Short API writes join their workspace's batch on PostgreSQL (db/postgres-write-batches.ts): one
// COMMIT for the writes of a workspace that arrive together. Routes with a time limit of their own
// (import) are long work and keep a transaction of their own. On SQLite this changes nothing: its
// driver batches every transaction already.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { batchedFor } from '../db/postgres-write-batches.js';
import { isWriteRoute } from './abandoned-requests.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's writes touch neither the workspace's revision nor its rules (hit reports): in a
     * batch they would only make the workspace's rule writes wait behind them.
     */
    unbatched?: boolean;
  }
}

function join(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const workspaceId = request.principal?.workspaceId;
  if (workspaceId === undefined) done();
  else batchedFor(workspaceId, done);
}

export function writeBatchesPlugin(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!isWriteRoute(route) || route.config?.timeLimit || route.config?.unbatched) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), join];
  });
}
