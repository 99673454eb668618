// The real app listening on loopback over a SQLite file that outlives it: a test can stop the server
// and start it again on the same data and port (a restart), or on a copy of older data (a restore).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Database, migrate, openDatabase } from '../../src/db/database.js';
import { createKeysService, type KeysService } from '../../src/modules/keys/keys-service.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';

export interface ServedApp {
  url: string;
  port: number;
  app: FastifyInstance;
  keysService: KeysService;
  /** A call through the network with `key`: status, JSON body, revision. */
  api(
    key: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; revision: number }>;
  stop(): Promise<void>;
}

export interface ServedData {
  /** Starts the app on this data; on `port` when given (a restart keeps its clients' address). */
  serve(options?: {
    port?: number;
    env?: Record<string, string>;
    before?: (app: ServedApp) => Promise<void>;
  }): Promise<ServedApp>;
  /** A copy of the data as it is now (a backup; the server must be stopped), for `restore`. */
  backup(): string;
  /** Replaces the data with a backup (the server must be stopped). */
  restore(backup: string): void;
  remove(): void;
}

export function servedData(): ServedData {
  const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-served-'));
  const file = join(dir, 'rulekeeper.db');
  let backups = 0;
  return {
    async serve({ port = 0, env = {}, before } = {}) {
      const config = loadConfig({ RATE_LIMIT_PER_MINUTE: '0', ...env, DATABASE_URL: `sqlite:${file}` });
      const database: Database = openDatabase(config);
      await migrate(database);
      const keysService = createKeysService({
        db: database.db,
        keysStore: createKeysStore(database.db),
        cacheTtlMs: config.keyCacheTtlMs,
      });
      const app = await buildApp({ config, database, keysService, logger: false });
      await app.ready();
      const served: ServedApp = {
        url: '',
        port,
        app,
        keysService,
        async api(key, method, path, body) {
          // Through inject before listening (`before`), through the network after.
          const reply = await app.inject({
            method: method as 'GET',
            url: `/v1${path}`,
            headers: {
              'x-api-key': key,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
          });
          return {
            status: reply.statusCode,
            body: reply.body ? JSON.parse(reply.body) : undefined,
            revision: Number(reply.headers['rulekeeper-revision']),
          };
        },
        async stop() {
          await app.close();
          await database.close();
        },
      };
      await before?.(served);
      served.url = await app.listen({ port, host: '127.0.0.1' });
      served.port = Number(new URL(served.url).port);
      return served;
    },
    backup() {
      const copy = join(dir, `backup-${++backups}.db`);
      copyFileSync(file, copy);
      return copy;
    },
    restore(backup) {
      for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      copyFileSync(backup, file);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
