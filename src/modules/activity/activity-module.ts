// The activity assembled: its service (which other modules record through) and the retention sweep of
// security events, with what the app must register and close.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/tables.js';
import { registerActivityRoutes } from './activity-routes.js';
import { createActivityService } from './activity-service.js';
import { createActivityStore } from './activity-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export function createActivityModule(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  const service = createActivityService({ store: createActivityStore(db) });
  const sweep = () =>
    service.sweep(config.activityRetentionDays * DAY_MS).catch((err: unknown) => {
      app.log.warn({ err }, 'activity retention sweep failed; retrying later');
    });
  // As the change log's sweep: a minute after start (instances restarted often still sweep), then hourly.
  const first = setTimeout(sweep, 60_000);
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  first.unref();
  sweeper.unref();
  app.addHook('preClose', async () => {
    clearTimeout(first);
    clearInterval(sweeper);
  });

  return {
    service,
    register(api: FastifyInstance): void {
      registerActivityRoutes(api, service);
    },
  };
}
