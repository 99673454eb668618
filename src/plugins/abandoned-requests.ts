// An answer or nothing: a request that changes something, or has a time limit, runs under a signal
// that is aborted when its client goes away before the answer, or when the route's time limit
// passes. Its transaction then rolls back instead of committing (db/abandon.ts): no write is ever
// committed for a client that is no longer there to be told. Reads without a time limit skip this.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { abandonableWith, ClientGone } from '../db/abandon.js';
import { AppError } from '../errors.js';

/** A route's time limit: how long its work may take, and the setting that changes it. */
export interface TimeLimit {
  ms: number;
  /** The configuration variable, named in the error so that an operator knows what to raise. */
  setting: string;
  /** What took too long, for the error ("the import"). */
  what: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    timeLimit?: TimeLimit;
  }
  interface FastifyRequest {
    /** Aborted once the request is abandoned (on routes that write or have a time limit). */
    abandoned?: AbortSignal;
  }
}

/** Room to send the time limit's error before the connection's own idle timeout would cut it. */
const ANSWER_GRACE_MS = 10_000;

function watch(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const controller = new AbortController();
  const response = reply.raw;
  const limit = request.routeOptions.config.timeLimit;
  let timer: NodeJS.Timeout | undefined;
  const abandon = (reason: Error) => {
    clearTimeout(timer);
    if (controller.signal.aborted) return;
    request.log.info({ reason: reason.message }, 'request abandoned: its work stops and is rolled back');
    controller.abort(reason);
  };
  if (limit) {
    timer = setTimeout(() => {
      const message = `${limit.what} took longer than ${limit.ms} ms (${limit.setting}): abandoned, nothing was written`;
      abandon(new AppError('TIME_LIMIT_EXCEEDED', [{ path: '', message }]));
    }, limit.ms);
    // The connection's idle timeout (REQUEST_TIMEOUT_MS) would otherwise cut a client that waits
    // quietly for long work: it stays open until the work is done or its time limit answered.
    request.raw.socket?.setTimeout?.(limit.ms + ANSWER_GRACE_MS);
  }
  response.once('close', () => {
    if (response.writableFinished) clearTimeout(timer);
    else abandon(new ClientGone());
  });
  // The client may be gone already, while the body was being read.
  if (request.raw.socket?.destroyed) abandon(new ClientGone());
  request.abandoned = controller.signal;
  abandonableWith(controller.signal, done);
}

/** A route that changes something: any method but GET and HEAD. */
export function isWriteRoute(route: { method: string | string[] }): boolean {
  return [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD');
}

export function abandonedRequestsPlugin(app: FastifyInstance): void {
  app.decorateRequest('abandoned', undefined);
  app.addHook('onRoute', (route) => {
    if (!isWriteRoute(route) && !route.config?.timeLimit) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), watch];
  });
}
