// Webhooks assembled: the service behind the routes, and the dispatcher every instance runs from the
// app's start to its close (sends under way get a moment to end before the database closes).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/tables.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher.js';
import type { Timers } from './webhook-sender.js';
import { registerWebhooksRoutes } from './webhooks-routes.js';
import { createWebhooksService } from './webhooks-service.js';
import { createWebhooksStore } from './webhooks-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's webhook dispatcher: tests run its rounds themselves, moving their clock. */
    webhookDispatcher: WebhookDispatcher;
  }
}

export function createWebhooksModule(
  app: FastifyInstance,
  { db, config, now, timers }: { db: Db; config: Config; now?: () => number; timers?: Timers },
) {
  const store = createWebhooksStore(db);
  const service = createWebhooksService({ db, store, allowPrivate: config.webhookAllowPrivate, now });
  const dispatcher = createWebhookDispatcher({
    store,
    allowPrivate: config.webhookAllowPrivate,
    timeoutMs: config.webhookTimeoutMs,
    pollMs: config.webhookPollMs,
    now,
    timers,
    // The error alone: a delivery's URL, body and secret are never logged.
    warn: (error, message) => app.log.warn({ code: (error as { code?: unknown })?.code }, message),
  });
  app.decorate('webhookDispatcher', dispatcher);
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('preClose', () => dispatcher.close());
  return {
    service,
    dispatcher,
    register(api: FastifyInstance): void {
      registerWebhooksRoutes(api, service);
    },
  };
}
