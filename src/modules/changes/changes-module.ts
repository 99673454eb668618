// The journal assembled: the service every writer records through, the stream hub and the retention
// sweep, with what the app must register and close. History (modules/history) reads what it keeps.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { KeysService } from '../keys/keys-service.js';
import { createChangeHub } from './change-hub.js';
import { registerChangesRoutes } from './changes-routes.js';
import { createChangesService } from './changes-service.js';
import { createChangesStore } from './changes-store.js';
import { revisionHooks } from './revision-hooks.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export function createChangesModule(
  app: FastifyInstance,
  { database, config, keys }: { database: Database; config: Config; keys: Pick<KeysService, 'stillValid'> },
) {
  const { db, dataVersion, signals } = database;
  const store = createChangesStore(db, database.dialect);
  const service = createChangesService({ store, dataVersion, signals });
  const hub = createChangeHub({
    changes: service,
    signals,
    pollMs: config.changesPollMs,
    heartbeatMs: config.changesHeartbeatMs,
    limits: {
      perKey: config.maxStreamsPerKey,
      total: config.maxStreams,
      bufferBytes: config.maxStreamBufferBytes,
      // Two heartbeat periods: a client that reads nothing meanwhile is not just momentarily slow.
      stallMs: 2 * config.changesHeartbeatMs,
    },
    stillValid: (principal) => keys.stillValid(principal),
    // A revoked key's streams end within the key cache's time, give or take one check: a fifth of it,
    // within a quarter to one second (each check asks the database at most once per key and cache time).
    keyCheckMs: Math.min(1000, Math.max(250, config.keyCacheTtlMs / 5)),
    onError: (err) => app.log.warn({ err }, 'change stream delivery failed; retrying on the next poll'),
  });

  const sweep = () =>
    service.sweep(config.historyRetentionDays * DAY_MS).catch((err: unknown) => {
      app.log.warn({ err }, 'history retention sweep failed; retrying later');
    });
  // A minute after start (instances restarted more often than hourly still sweep), then hourly.
  const first = setTimeout(sweep, 60_000);
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  first.unref();
  sweeper.unref();
  // Streams end before the server waits for its connections to finish.
  app.addHook('preClose', async () => {
    clearTimeout(first);
    clearInterval(sweeper);
    await hub.close();
  });

  return {
    service,
    hub,
    /** Registers the routes and hooks of the /v1 scope (after authentication and rate limiting). */
    register(api: FastifyInstance): void {
      revisionHooks(api, service);
      registerChangesRoutes(api, service, hub);
    },
  };
}
