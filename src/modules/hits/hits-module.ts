// The hits assembled: the service (its report limit from the config, shared through Redis when
// REDIS_URL is set; its clock the app's), the Prometheus counters of reports, and the hourly retention
// sweep, with what the app must register.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Counter, type Metric } from 'prom-client';
import type { Config } from '../../config.js';
import type { Db } from '../../db/tables.js';
import { registerHitsRoutes } from './hits-routes.js';
import { createHitsService } from './hits-service.js';
import { createHitsStore } from './hits-store.js';

const SWEEP_EVERY_MS = 60 * 60 * 1000;

export function createHitsModule(
  app: FastifyInstance,
  { db, config, now }: { db: Db; config: Config; now?: () => number },
) {
  // Registered into the app's registry by metricsPlugin; labels bounded by the four sources.
  const reports = new Counter({
    name: 'rulekeeper_hit_reports_total',
    help: 'Hit reports taken (POST /v1/hits), by source.',
    labelNames: ['source'],
    registers: [],
  });
  const entries = new Counter({
    name: 'rulekeeper_hit_entries_total',
    help: "Entries of hit reports, by source and outcome: accepted (the workspace's rules) or ignored.",
    labelNames: ['source', 'outcome'],
    registers: [],
  });
  // As the request rate limit's (plugins/rate-limit.ts): a slow Redis costs a report half a second at most.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { connectTimeout: 500, commandTimeout: 500, maxRetriesPerRequest: 1 })
    : undefined;
  redis?.on('error', (err) => app.log.warn({ err }, 'hits report-limit store unreachable'));
  app.addHook('onClose', async () => redis?.disconnect());
  const service = createHitsService({
    db,
    store: createHitsStore(db),
    reportsPerMinute: config.hitsReportsPerMinute,
    redis,
    warn: (err) => app.log.warn({ err }, 'hits report limit counted on this instance alone meanwhile'),
    now,
    reported({ source, accepted, ignored }) {
      reports.inc({ source });
      if (accepted > 0) entries.inc({ source, outcome: 'accepted' }, accepted);
      if (ignored > 0) entries.inc({ source, outcome: 'ignored' }, ignored);
    },
  });
  const sweep = () =>
    service.sweep().catch((err: unknown) => {
      app.log.warn({ err }, 'hits retention sweep failed; retrying later');
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
    metrics: [reports, entries] as Metric[],
    register(api: FastifyInstance): void {
      registerHitsRoutes(api, service);
    },
  };
}
