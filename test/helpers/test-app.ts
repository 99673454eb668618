// buildTestApp: the real app on a fresh real database (a SQLite file, or a PostgreSQL database created
// for the run), with keys for an owner, a teammate in the same workspace, and an outsider.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type Database, type DialectName, migrate, openDatabase } from '../../src/db/database.js';
import type { IssuedKey, KeysService } from '../../src/modules/keys/keys-service.js';
import { createKeys } from '../../src/services.js';
import { checkResponses } from './contract.js';
import { copySqliteTemplate, createFromPostgresTemplate } from './migrated-template.js';

/** The PostgreSQL server tests may create databases on, e.g. postgres://postgres@127.0.0.1:5432/postgres. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL;

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: Database;
  keysService: KeysService;
  /** Alice owns workspace "acme"; Bob is her teammate there; Carol is alone in workspace "other". */
  owner: IssuedKey;
  teammate: IssuedKey;
  outsider: IssuedKey;
  /** A request with `key` (the owner's by default; null for none) and a JSON body. */
  call(
    method: InjectOptions['method'],
    url: string,
    options?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * A new database of that kind for one test run, and how to drop it: empty, or with `migrated` a copy of
 * the migrated template (see migrated-template.ts), for a test that is not about migrating.
 */
export async function createTestDatabase(
  kind: DialectName,
  { migrated = false } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-test-'));
    if (migrated) await copySqliteTemplate(join(dir, 'test.db'));
    return {
      url: `sqlite:${join(dir, 'test.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!TEST_POSTGRES_URL) throw new Error('TEST_POSTGRES_URL is not set');
  const name = `rulekeeper_test_${randomBytes(6).toString('hex')}`;
  if (migrated) await createFromPostgresTemplate(TEST_POSTGRES_URL, name);
  else {
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface TestAppOptions {
  db?: DialectName;
  env?: Record<string, string>;
  logger?: unknown;
  /** Reach the new database through this URL instead (e.g. through a proxy); maps the created URL. */
  reach?: (url: string) => string;
  /** The clock of sessions and sign-in limits, for tests that move it. */
  now?: () => number;
  /** The timers of webhook deliveries, for tests that fire them (see test/api/webhooks.test.ts). */
  webhookTimers?: AppOptions['webhookTimers'];
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp & { config: Config }> {
  const created = await createTestDatabase(options.db ?? 'sqlite', { migrated: true });
  const url = options.reach ? options.reach(created.url) : created.url;
  // Rate limiting is off unless a test turns it on: suites send more than a minute's worth per key.
  // Passwords hashed at scrypt's least cost (2^10, not 2^15): suites sign in hundreds of people, each a
  // quarter of a second at the real cost. A test of the cost itself sets its own.
  const config = loadConfig({
    RATE_LIMIT_PER_MINUTE: '0',
    PASSWORD_SCRYPT_N: '1024',
    // Webhooks may reach the tests' receivers on loopback; their dispatcher runs when a test says
    // (app.webhookDispatcher.runOnce), its own round being a minute away.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '60000',
    // Tests read the warnings of a write's answer: it waits for the lint as long as it takes (the
    // service's default wait is short; test/api/lint.test.ts tries it at 0).
    LINT_WRITE_WAIT_MS: '600000',
    ...options.env,
    DATABASE_URL: url,
  });
  const database = openDatabase(config);
  await migrate(database);
  // The app's own keys: a key revoked through it is refused at once, as on the instance that revoked it.
  const keysService = createKeys(database, config);
  const owner = await keysService.issue('acme', 'alice');
  const teammate = await keysService.issue('acme', 'bob');
  const outsider = await keysService.issue('other', 'carol');
  const app = await buildApp({
    config,
    database,
    keysService,
    logger: (options.logger as never) ?? false,
    now: options.now,
    webhookTimers: options.webhookTimers,
  });
  await app.ready();
  // Every response a test receives (through call or app.inject) is checked against the OpenAPI document.
  await checkResponses(app);

  return {
    app,
    config,
    database,
    keysService,
    owner,
    teammate,
    outsider,
    async call(method, url, { key = owner.key, body, headers = {} } = {}) {
      const response = await app.inject({
        method,
        url,
        headers: { ...(key === null ? {} : { 'x-api-key': key }), ...headers },
        ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      });
      const text = response.body;
      return {
        status: response.statusCode,
        body: text ? JSON.parse(text) : undefined,
        headers: response.headers,
      };
    },
    async close() {
      await app.close();
      await database.close();
      await created.drop();
    },
  };
}

/**
 * A test app for the tests of the enclosing suite: built before them, closed after them. The object
 * returned stands for the app from the moment it is built (it forwards to it), so tests use it as is.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp & { config: Config } {
  let built: (TestApp & { config: Config }) | undefined;
  beforeAll(async () => {
    built = await buildTestApp(options);
  });
  afterAll(async () => {
    await built?.close();
  });
  return new Proxy({} as TestApp & { config: Config }, {
    get(_target, name) {
      if (!built) throw new Error('the test app is built in beforeAll: use it inside tests and hooks');
      return Reflect.get(built, name);
    },
  });
}

/**
 * Runs `suite` once per database: always on SQLite, and on PostgreSQL when TEST_POSTGRES_URL is set
 * (otherwise the PostgreSQL run is reported as skipped, with the reason in its name).
 */
export function forEachDatabase(suite: (db: DialectName) => void): void {
  describe('sqlite', () => suite('sqlite'));
  describe.skipIf(!TEST_POSTGRES_URL)(
    TEST_POSTGRES_URL ? 'postgres' : 'postgres (skipped: set TEST_POSTGRES_URL to run)',
    () => suite('postgres'),
  );
}
