// buildApp: the Fastify application with every plugin and module, wired explicitly in one place.
import { createRequire } from 'node:module';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { requestIdFor } from './http/request-id.js';
import { createPools } from './jobs/pools.js';
import type { BrowserRulesJob, BrowserRulesOutcome } from './modules/browser-rules/browser-rules-job.js';
import { registerBrowserRulesRoutes } from './modules/browser-rules/browser-rules-routes.js';
import { createBrowserRulesService } from './modules/browser-rules/browser-rules-service.js';
import { createChangesModule } from './modules/changes/changes-module.js';
import { registerGroupsRoutes } from './modules/groups/groups-routes.js';
import { createGroupsService } from './modules/groups/groups-service.js';
import { createGroupsStore } from './modules/groups/groups-store.js';
import { registerHistoryRoutes } from './modules/history/history-routes.js';
import { createHistoryService } from './modules/history/history-service.js';
import { createHistoryStore } from './modules/history/history-store.js';
import { createIdempotencyService } from './modules/idempotency/idempotency-service.js';
import { createIdempotencyStore } from './modules/idempotency/idempotency-store.js';
import { registerKeysRoutes } from './modules/keys/keys-routes.js';
import { createKeysService, type KeysService } from './modules/keys/keys-service.js';
import { createKeysStore } from './modules/keys/keys-store.js';
import type { LintJob, LintOutcome } from './modules/lint/lint-job.js';
import { registerLintRoutes } from './modules/lint/lint-routes.js';
import { createLintService } from './modules/lint/lint-service.js';
import { createLintStore } from './modules/lint/lint-store.js';
import { createRulesReadModel } from './modules/rules/rules-read-model.js';
import { registerRulesRoutes } from './modules/rules/rules-routes.js';
import { createRulesService } from './modules/rules/rules-service.js';
import { createRulesStore } from './modules/rules/rules-store.js';
import { createListedRulesStore } from './modules/shared/listed-rules-store.js';
import type { TraceJob, TraceOutcome } from './modules/trace/trace-job.js';
import { registerTraceRoutes } from './modules/trace/trace-routes.js';
import { createTraceService } from './modules/trace/trace-service.js';
import type { ImportJob, ImportOutcome } from './modules/transfer/import-job.js';
import { createImportRunner } from './modules/transfer/import-runner.js';
import { registerTransferRoutes } from './modules/transfer/transfer-routes.js';
import { createTransferService } from './modules/transfer/transfer-service.js';
import { createTransferStore } from './modules/transfer/transfer-store.js';
import { abandonedRequestsPlugin } from './plugins/abandoned-requests.js';
import { apiKeyAuthPlugin } from './plugins/api-key-auth.js';
import { clientErrorHandler } from './plugins/client-error.js';
import { consolePlugin } from './plugins/console.js';
import { errorHandlerPlugin, frameworkErrorHandler } from './plugins/error-handler.js';
import { everyRequestPlugin } from './plugins/every-request.js';
import { healthPlugin } from './plugins/health.js';
import { jsonBodyPlugin } from './plugins/json-body.js';
import { metricsPlugin } from './plugins/metrics.js';
import { openapiPlugin } from './plugins/openapi.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { writeBatchesPlugin } from './plugins/write-batches.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export interface AppOptions {
  config: Config;
  database: Database;
  /** Where logs go (tests capture them); defaults to stdout at the configured level. */
  logger?: FastifyServerOptions['logger'];
  /** The instance's keys, when the caller also issues and revokes them (tests); made here otherwise. */
  keysService?: KeysService;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database, logger } = options;
  const { db, dialect } = database;
  const keysService =
    options.keysService ??
    createKeysService({ db, keysStore: createKeysStore(db), cacheTtlMs: config.keyCacheTtlMs });
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    bodyLimit: config.maxBodyBytes,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Ids of any length reach the services, which answer them as the contract says (404 / 400).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 65_536 },
    frameworkErrors: frameworkErrorHandler(keysService),
    clientErrorHandler,
    // Slow or stalled clients must not hold connections forever: cut off after REQUEST_TIMEOUT_MS,
    // checked every second (Node's default check runs every 30 s). Node's request timeout stops
    // watching once the headers are in, so a body that stalls is cut by the socket's idle timeout.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs) },
    // Requests arriving while the service shuts down get the documented 503 (the closing hook below).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  });
  // Services validate bodies themselves (after the existence and access checks, as decided); the
  // schemas on routes describe the API for the OpenAPI document. Services build every response
  // object field by field, so nothing internal can leak through plain JSON serialisation.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  const groupsStore = createGroupsStore(db, dialect);
  const idempotency = createIdempotencyService({ db, store: createIdempotencyStore() });
  const rulesStore = createRulesStore(db, dialect);
  const changesModule = createChangesModule(app, { database, config, keys: keysService });
  const changes = changesModule.service;
  const groupsService = createGroupsService({ db, groupsStore, idempotency, changes });
  const historyService = createHistoryService({
    db,
    store: createHistoryStore(db),
    rulesStore,
    groupsStore,
    changes,
  });
  const rulesService = createRulesService({
    db,
    rulesStore,
    readModel: createRulesReadModel(rulesStore),
    groupsStore,
    idempotency,
    changes,
    config,
  });
  const transferService = createTransferService({
    db,
    store: createTransferStore(),
    idempotency,
    changes,
    config,
  });
  const pools = createPools(config);
  app.addHook('onClose', () => pools.close());
  const importPool = pools.of<ImportJob, ImportOutcome>('import');
  const importer = importPool && createImportRunner(database, config, importPool);
  const tracePool = pools.of<TraceJob, TraceOutcome>('trace');
  const listedRules = createListedRulesStore(db);
  const traceService = createTraceService({
    db,
    listedRules,
    rulesStore,
    groupsStore,
    changes,
    config,
    ...(tracePool ? { runner: tracePool } : {}),
  });

  const lintPool = pools.of<LintJob, LintOutcome>('lint');
  const lintService = createLintService({
    lintStore: createLintStore(db),
    listedRules,
    changes,
    ...(lintPool ? { runner: lintPool } : {}),
  });
  const browserRulesPool = pools.of<BrowserRulesJob, BrowserRulesOutcome>('browserRules');
  const browserRulesService = createBrowserRulesService({
    listedRules,
    changes,
    ...(browserRulesPool ? { runner: browserRulesPool } : {}),
  });

  errorHandlerPlugin(app);
  abandonedRequestsPlugin(app);
  writeBatchesPlugin(app);
  everyRequestPlugin(app);
  jsonBodyPlugin(app);
  metricsPlugin(app);
  healthPlugin(app, db);
  consolePlugin(app);
  await openapiPlugin(app, version);
  await app.register(
    async (api) => {
      apiKeyAuthPlugin(api, keysService);
      await rateLimitPlugin(api, config);
      changesModule.register(api);
      registerHistoryRoutes(api, historyService);
      registerGroupsRoutes(api, groupsService);
      registerKeysRoutes(api, keysService);
      registerRulesRoutes(api, rulesService, lintService.findingsOfRule);
      registerTraceRoutes(api, traceService);
      registerLintRoutes(api, lintService);
      registerBrowserRulesRoutes(api, browserRulesService);
      registerTransferRoutes(api, transferService, config, lintService.findingsAfterImport, importer);
    },
    { prefix: '/v1' },
  );
  return app;
}
