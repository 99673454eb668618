// Webhooks assembled: the service behind the routes, and the dispatcher every instance runs from the
// app's start to its close (sends under way get a moment to end before the database closes).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/tables.js';
import type { ActivityService } from '../activity/activity-service.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher.js';
import { KEEP_DELIVERIES_MS } from './webhook-events.js';
import type { Timers } from './webhook-sender.js';
import { registerWebhooksRoutes } from './webhooks-routes.js';
import { createWebhooksService } from './webhooks-service.js';
import { createWebhooksStore } from './webhooks-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's webhook dispatcher: tests run its rounds themselves, moving their clock. */
    webhookDispatcher: WebhookDispatcher;
    /** Sweeps deliveries done past their keeping (hourly on its own; tests run it after moving time). */
    webhookSweep: () => Promise<unknown>;
  }
}

export function createWebhooksModule(
  app: FastifyInstance,
  {
    db,
    config,
    activity,
    now,
    timers,
  }: {
    db: Db;
    config: Config;
    activity: Pick<ActivityService, 'record'>;
    now?: () => number;
    timers?: Timers;
  },
) {
  const store = createWebhooksStore(db);
  const service = createWebhooksService({
    db,
    store,
    activity,
    allowPrivate: config.webhookAllowPrivate,
    now,
  });
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
  // Deliveries done are kept KEEP_DELIVERIES_MS, swept hourly (as the change log is).
  const sweep = () =>
    store
      .sweep((now ?? Date.now)() - KEEP_DELIVERIES_MS)
      .catch((error: unknown) =>
        app.log.warn(
          { code: (error as { code?: unknown })?.code },
          'webhook deliveries sweep failed; retrying later',
        ),
      );
  app.decorate('webhookSweep', sweep);
  const sweeper = setInterval(sweep, 60 * 60 * 1000);
  sweeper.unref();
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('preClose', async () => {
    clearInterval(sweeper);
    await dispatcher.close();
  });
  return {
    service,
    dispatcher,
    sweep,
    register(api: FastifyInstance): void {
      registerWebhooksRoutes(api, service);
    },
  };
}
