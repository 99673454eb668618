// buildApp: the Fastify application with every plugin and module, wired explicitly in one place.
import { createRequire } from 'node:module';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { requestIdFor } from './http/request-id.js';
import { requestForLog } from './http/request-log.js';
import { registerBrowserRulesRoutes } from './modules/browser-rules/browser-rules-routes.js';
import { registerChangeRequestsRoutes } from './modules/change-requests/change-requests-routes.js';
import type { ChangeRequestEvents } from './modules/change-requests/change-requests-service.js';
import type { SuitesOf } from './modules/change-requests/evidence-service.js';
import { registerGroupsRoutes } from './modules/groups/groups-routes.js';
import { registerHistoryRoutes } from './modules/history/history-routes.js';
import { registerInvitesRoutes } from './modules/invites/invites-routes.js';
import { registerKeysRoutes } from './modules/keys/keys-routes.js';
import type { KeysService } from './modules/keys/keys-service.js';
import { registerLintRoutes } from './modules/lint/lint-routes.js';
import { registerMembersRoutes } from './modules/members/members-routes.js';
import { registerOidcRoutes, registerSignInProvidersRoute } from './modules/oidc/oidc-routes.js';
import { registerPasswordResetsRoutes } from './modules/password-resets/password-resets-routes.js';
import { registerRulesRoutes } from './modules/rules/rules-routes.js';
import { registerSessionsRoutes } from './modules/sessions/sessions-routes.js';
import { registerReviewGate } from './modules/settings/review-gate.js';
import { registerSettingsRoutes } from './modules/settings/settings-routes.js';
import { registerTestSuitesRoutes } from './modules/test-suites/test-suites-routes.js';
import { registerTraceRoutes } from './modules/trace/trace-routes.js';
import { registerTransferRoutes } from './modules/transfer/transfer-routes.js';
import { registerVariablesRoutes } from './modules/variables/variables-routes.js';
import type { Timers } from './modules/webhooks/webhook-sender.js';
import { abandonedRequestsPlugin } from './plugins/abandoned-requests.js';
import { authenticationPlugin } from './plugins/authentication.js';
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
import { createKeys, createServices } from './services.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export interface AppOptions {
  config: Config;
  database: Database;
  /** Where logs go (tests capture them); defaults to stdout at the configured level. */
  logger?: FastifyServerOptions['logger'];
  /** The instance's keys, when the caller also issues and revokes them (tests); made here otherwise. */
  keysService?: KeysService;
  /** The clock of sessions and sign-in limits (tests move it); Date.now otherwise. */
  now?: () => number;
  /** The test suites a change request's evidence runs; the workspace's stored ones otherwise (tests). */
  suites?: SuitesOf;
  /** Told of each change request's step in its transaction (the webhooks' outbox, wired at landing). */
  changeRequestEvents?: ChangeRequestEvents;
  /** The timers of webhook deliveries (tests fire them); real ones otherwise. */
  webhookTimers?: Timers;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database, logger } = options;
  const keysService = options.keysService ?? createKeys(database, config);
  const logOptions = logger ?? { level: config.logLevel };
  const app = Fastify({
    // Requests are logged without what an /auth/ query carries (http/request-log.ts).
    logger:
      typeof logOptions === 'object'
        ? { ...logOptions, serializers: { req: requestForLog as never, ...logOptions.serializers } }
        : logOptions,
    bodyLimit: config.maxBodyBytes,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Ids of any length reach the services, which answer them as the contract says (404 / 400).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 65_536 },
    frameworkErrors: frameworkErrorHandler(() => authenticators),
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

  const services = createServices(app, {
    config,
    database,
    keys: keysService,
    now: options.now,
    suites: options.suites,
    changeRequestEvents: options.changeRequestEvents,
    webhookTimers: options.webhookTimers,
  });
  const authenticators = { keys: keysService, sessions: services.sessions };
  const { changesModule, lint } = services;

  errorHandlerPlugin(app);
  abandonedRequestsPlugin(app);
  writeBatchesPlugin(app);
  everyRequestPlugin(app);
  jsonBodyPlugin(app);
  metricsPlugin(app, services.hitsModule.metrics);
  healthPlugin(app, database.db);
  consolePlugin(app);
  await openapiPlugin(app, version);
  // Single sign-on's pages are navigations of a browser, outside /v1 and its key check; limited per
  // address as keyless requests are, since every start writes a row.
  const { oidc } = services;
  if (oidc)
    await app.register(async (pages) => {
      await rateLimitPlugin(pages, config);
      registerOidcRoutes(pages, oidc, config);
    });
  await app.register(
    async (api) => {
      authenticationPlugin(api, authenticators, config);
      await rateLimitPlugin(api, config);
      registerReviewGate(api, services.settings);
      changesModule.register(api);
      registerHistoryRoutes(api, services.history);
      registerGroupsRoutes(api, services.groups);
      registerKeysRoutes(api, keysService, services.keyManagement);
      registerSessionsRoutes(api, services.sessions, config);
      registerSignInProvidersRoute(api, services.oidc !== undefined);
      registerMembersRoutes(api, services.members);
      registerInvitesRoutes(api, services.invites, config);
      registerPasswordResetsRoutes(api, services.passwordResets, config);
      services.activityModule.register(api);
      registerRulesRoutes(api, services.rules, lint.findingsOfRule);
      registerTraceRoutes(api, services.trace);
      registerLintRoutes(api, lint);
      registerBrowserRulesRoutes(api, services.browserRules);
      registerTransferRoutes(api, services.transfer, config, lint.findingsAfterImport, services.importer);
      registerTestSuitesRoutes(api, services.testSuites);
      registerVariablesRoutes(api, services.variables, services.environments);
      services.hitsModule.register(api);
      registerSettingsRoutes(api, services.settings);
      registerChangeRequestsRoutes(api, services.changeRequests);
      services.webhooks.register(api);
    },
    { prefix: '/v1' },
  );
  return app;
}
