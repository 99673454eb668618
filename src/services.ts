// The service assembled once: every module's store and service, the journal, and the worker pools (one
// per job kind of jobs/job-kinds.ts), wired with explicit dependencies. app.ts registers their routes;
// server.ts makes the keys first (the first key of a new database) and hands them to the app.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { createPools } from './jobs/pools.js';
import { createActivityModule } from './modules/activity/activity-module.js';
import type { BrowserRulesJob, BrowserRulesOutcome } from './modules/browser-rules/browser-rules-job.js';
import { createBrowserRulesService } from './modules/browser-rules/browser-rules-service.js';
import type { ChangeRequest, Evidence } from './modules/change-requests/change-requests-schemas.js';
import {
  type ChangeRequestEvents,
  createChangeRequestsService,
} from './modules/change-requests/change-requests-service.js';
import { createChangeRequestsStore } from './modules/change-requests/change-requests-store.js';
import type { EvidenceJob } from './modules/change-requests/evidence-job.js';
import { createEvidence, type SuitesOf } from './modules/change-requests/evidence-service.js';
import { createChangesModule } from './modules/changes/changes-module.js';
import { createGroupsService } from './modules/groups/groups-service.js';
import { createGroupsStore } from './modules/groups/groups-store.js';
import { createHistoryService } from './modules/history/history-service.js';
import { createHistoryStore } from './modules/history/history-store.js';
import { createHitsModule } from './modules/hits/hits-module.js';
import { createIdempotencyService } from './modules/idempotency/idempotency-service.js';
import { createIdempotencyStore } from './modules/idempotency/idempotency-store.js';
import { createInvitesService } from './modules/invites/invites-service.js';
import { createInvitesStore } from './modules/invites/invites-store.js';
import { createKeyManagementService } from './modules/keys/key-management-service.js';
import { createKeysService, type KeysService } from './modules/keys/keys-service.js';
import { createKeysStore } from './modules/keys/keys-store.js';
import type { LintJob, LintOutcome } from './modules/lint/lint-job.js';
import { createLintService } from './modules/lint/lint-service.js';
import { createLintStore } from './modules/lint/lint-store.js';
import { createMailer } from './modules/mail/mailer.js';
import { createMembersService } from './modules/members/members-service.js';
import { createMembersStore } from './modules/members/members-store.js';
import { createOidcClient } from './modules/oidc/oidc-client.js';
import { createOidcService } from './modules/oidc/oidc-service.js';
import { createOidcStore } from './modules/oidc/oidc-store.js';
import { createPasswordResetsService } from './modules/password-resets/password-resets-service.js';
import { createPasswordResetsStore } from './modules/password-resets/password-resets-store.js';
import { createRulesReadModel } from './modules/rules/rules-read-model.js';
import { createRulesService } from './modules/rules/rules-service.js';
import { createRulesStore } from './modules/rules/rules-store.js';
import { createSessionsService, type SessionPrincipal } from './modules/sessions/sessions-service.js';
import { createSessionsStore } from './modules/sessions/sessions-store.js';
import { createSettingsService } from './modules/settings/settings-service.js';
import { createSettingsStore } from './modules/settings/settings-store.js';
import { createEvaluationEnvironments } from './modules/shared/evaluation-environment.js';
import { createListedRulesStore } from './modules/shared/listed-rules-store.js';
import { createVariablesCatalogStore } from './modules/shared/variables-catalog-store.js';
import { createTestSuitesService } from './modules/test-suites/test-suites-service.js';
import { createTestSuitesStore } from './modules/test-suites/test-suites-store.js';
import type { TraceJob, TraceOutcome } from './modules/trace/trace-job.js';
import { createTraceService } from './modules/trace/trace-service.js';
import type { ImportJob, ImportOutcome } from './modules/transfer/import-job.js';
import { createImportRunner } from './modules/transfer/import-runner.js';
import { createTransferService } from './modules/transfer/transfer-service.js';
import { createTransferStore } from './modules/transfer/transfer-store.js';
import { createUsersService } from './modules/users/users-service.js';
import { createUsersStore } from './modules/users/users-store.js';
import { createEnvironmentsService } from './modules/variables/environments-service.js';
import { createEnvironmentsStore } from './modules/variables/environments-store.js';
import { createVariablesService } from './modules/variables/variables-service.js';
import { createVariablesStore } from './modules/variables/variables-store.js';
import type { Timers } from './modules/webhooks/webhook-sender.js';
import { createWebhooksModule } from './modules/webhooks/webhooks-module.js';
import { enqueue as enqueueWebhookEvent } from './modules/webhooks/webhooks-outbox.js';

/** What a change request's webhook event says of it: who, what state, how big; never its bodies. */
function changeRequestSummary(changeRequest: ChangeRequest): Record<string, unknown> {
  const review = changeRequest.reviews.at(-1);
  return {
    id: changeRequest.id,
    title: changeRequest.title,
    state: changeRequest.state,
    author: changeRequest.author,
    authorName: changeRequest.authorName,
    version: changeRequest.version,
    baseRevision: changeRequest.baseRevision,
    mergedRevision: changeRequest.mergedRevision,
    operationCount: changeRequest.operations.length,
    endedBy: changeRequest.endedBy,
    review: review ? { by: review.by, byName: review.byName, verdict: review.verdict, at: review.at } : null,
  };
}

/** The instance's keys: made once, by the server (or a test) or else by buildApp. */
export function createKeys(database: Database, config: Config): KeysService {
  const { db } = database;
  return createKeysService({ db, keysStore: createKeysStore(db), cacheTtlMs: config.keyCacheTtlMs });
}

/** Every service of the API; the pools and the journal's timers end with `app`. */
export function createServices(
  app: FastifyInstance,
  {
    config,
    database,
    keys: keysService,
    now,
    suites,
    changeRequestEvents,
    webhookTimers,
  }: {
    config: Config;
    database: Database;
    keys: KeysService;
    now?: () => number;
    /** Suites for change requests' evidence instead of the workspace's stored ones (tests). */
    suites?: SuitesOf;
    /** Told of each change request's step inside its transaction (none until webhooks are wired). */
    changeRequestEvents?: ChangeRequestEvents;
    /** The timers of webhook deliveries (tests fire them). */
    webhookTimers?: Timers;
  },
) {
  const { db, dialect } = database;
  const pools = createPools(config);
  app.addHook('onClose', () => pools.close());
  const activityModule = createActivityModule(app, { db, config });
  const usersStore = createUsersStore(db);
  const sessionsStore = createSessionsStore(db);
  const sessions = createSessionsService({
    db,
    store: sessionsStore,
    users: usersStore,
    signals: database.signals,
    activity: activityModule.service,
    passwordScryptN: config.passwordScryptN,
    cacheTtlMs: config.keyCacheTtlMs,
    now,
  });
  /** Forgets every key and session this instance remembered: who may do what changed. */
  const forgetAll = () => {
    keysService.forget();
    sessions.forget();
  };
  const groupsStore = createGroupsStore(db, dialect);
  const idempotency = createIdempotencyService({ db, store: createIdempotencyStore() });
  const rulesStore = createRulesStore(db, dialect);
  const changesModule = createChangesModule(app, {
    database,
    config,
    // A stream lives as long as the key or session it was opened with.
    keys: {
      stillValid: (principal) =>
        principal.via === 'session'
          ? sessions.stillValid(principal as SessionPrincipal)
          : keysService.stillValid(principal),
    },
  });
  const changes = changesModule.service;
  const groupsService = createGroupsService({ db, groupsStore, idempotency, changes });
  // Environments and variables (decisions §20); `valuesFor` and `environmentFor` are what evaluations
  // (traces, browser rules, lint) resolve `{{NAME}}` with.
  const variablesStore = createVariablesStore(db, dialect);
  const variables = createVariablesService({ db, store: variablesStore, changes, config });
  const environments = createEnvironmentsService({
    db,
    store: createEnvironmentsStore(db, dialect),
    variablesStore,
    changes,
    config,
  });
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
  // The environment of each evaluation and its values (decisions §20): traces, browser rules, the lint
  // and exports resolve `{{NAME}}` with them.
  const evaluationVariables = {
    choose: createEvaluationEnvironments((workspaceId, environment) =>
      variables.valuesFor(workspaceId, environment),
    ),
    catalog: createVariablesCatalogStore(db),
  };
  const transferService = createTransferService({
    db,
    store: createTransferStore(),
    idempotency,
    changes,
    config,
    variables: evaluationVariables,
  });
  // A kind without workers (its setting 0) has no pool: its service runs its jobs on this thread.
  const importPool = pools.of<ImportJob, ImportOutcome>('import');
  const importer = importPool && createImportRunner(database, config, importPool);
  const listedRules = createListedRulesStore(db);
  const traceService = createTraceService({
    db,
    listedRules,
    rulesStore,
    groupsStore,
    changes,
    config,
    runner: pools.of<TraceJob, TraceOutcome>('trace'),
    variables: evaluationVariables,
  });
  const testSuitesStore = createTestSuitesStore(db, dialect);
  const testSuites = createTestSuitesService({
    db,
    store: testSuitesStore,
    trace: traceService,
    config,
    activity: activityModule.service,
  });
  // What the runtimes report of the rules that acted; the lint's never_acted reads it.
  const hitsModule = createHitsModule(app, { db, config, now });
  const lintService = createLintService({
    lintStore: createLintStore(db),
    neverActed: hitsModule.service.neverActed,
    neverActedMark: hitsModule.service.neverActedMark,
    listedRules,
    changes,
    runner: pools.of<LintJob, LintOutcome>('lint'),
    variables: evaluationVariables,
    scopedFromRules: config.lintScopedFromRules,
    writeWaitMs: config.lintWriteWaitMs,
  });
  const browserRulesService = createBrowserRulesService({
    listedRules,
    changes,
    runner: pools.of<BrowserRulesJob, BrowserRulesOutcome>('browserRules'),
    variables: evaluationVariables,
  });

  // The security events every module records into, inside its own transactions.
  const membersStore = createMembersStore(db);
  const membersService = createMembersService({
    db,
    store: membersStore,
    signals: database.signals,
    forget: (workspaceId) => {
      keysService.forget(workspaceId);
      sessions.forget();
    },
    activity: activityModule.service,
  });
  const keyManagement = createKeyManagementService({
    db,
    keysStore: createKeysStore(db),
    signals: database.signals,
    forget: keysService.forget,
    activity: activityModule.service,
  });
  const users = createUsersService({
    db,
    store: usersStore,
    signals: database.signals,
    forget: forgetAll,
    passwordScryptN: config.passwordScryptN,
  });
  // Invite and reset links are mailed only with SMTP_URL; a failure is logged without the mail.
  const mailer = createMailer(config);
  if (mailer) app.addHook('onClose', () => mailer.close());
  const mailFailed = (error: unknown) =>
    app.log.warn({ code: (error as { code?: unknown })?.code }, 'a mail could not be sent');
  const invites = createInvitesService({
    db,
    store: createInvitesStore(db),
    users,
    usersStore,
    members: membersStore,
    sessions,
    activity: activityModule.service,
    signals: database.signals,
    forget: (workspaceId) => {
      keysService.forget(workspaceId);
      sessions.forget();
    },
    mailer,
    mailFailed,
    now,
  });
  // Single sign-on, when configured: its sign-ins end in the sessions a password opens.
  const oidc =
    config.oidc &&
    createOidcService({
      config: config.oidc,
      client: createOidcClient(config.oidc),
      store: createOidcStore(db),
      users: usersStore,
      sessions,
      invites,
      now,
    });
  const passwordResets = createPasswordResetsService({
    db,
    store: createPasswordResetsStore(db),
    users: usersStore,
    sessions: sessionsStore,
    activity: activityModule.service,
    signals: database.signals,
    forget: forgetAll,
    passwordScryptN: config.passwordScryptN,
    mailer,
    publicUrl: config.publicUrl,
    failed: (error) =>
      app.log.warn({ code: (error as { code?: unknown })?.code }, 'a password reset asked for failed'),
    now,
  });
  // A link asked for by mail is sent before the service stops.
  app.addHook('onClose', () => passwordResets.idle());
  // What another instance changed of who may do what: this one forgets the keys and sessions it
  // remembered there (sessions are few: all of them).
  // The workspace's settings (review required or not), read on every write, kept like keys are.
  const settings = createSettingsService({
    db,
    store: createSettingsStore(db),
    signals: database.signals,
    activity: activityModule.service,
  });
  const access = database.signals.followAccess(
    (workspaceId) => {
      keysService.forget(workspaceId);
      sessions.forget();
      settings.forget(workspaceId);
    },
    () => {
      forgetAll();
      settings.forget();
    },
  );
  app.addHook('onClose', () => access.close());
  // Signed webhooks: their routes, and the dispatcher of the outbox every write fills.
  const webhooks = createWebhooksModule(app, {
    db,
    config,
    activity: activityModule.service,
    now,
    timers: webhookTimers,
  });
  // Reviewed changes: proposed, reviewed, merged through the rules' and groups' own writes.
  const changeRequestsStore = createChangeRequestsStore(db);
  const changeRequests = createChangeRequestsService({
    db,
    store: changeRequestsStore,
    rules: rulesService,
    groups: groupsService,
    rulesStore,
    groupsStore,
    changes,
    settings,
    config,
    evidence: createEvidence({
      store: changeRequestsStore,
      listedRules,
      changes,
      // The workspace's stored suites, unless the caller (a test) gives its own.
      suites: suites ?? ((workspaceId) => testSuitesStore.all(db, workspaceId)),
      runner: pools.of<EvidenceJob, Evidence>('evidence'),
      variables: evaluationVariables,
    }),
    // Each step queues its webhook deliveries in its own transaction (a summary: never the
    // operations' bodies nor the evidence), and tells the caller's listener (tests) too.
    events: async (trx, workspaceId, type, changeRequest) => {
      await enqueueWebhookEvent(
        trx,
        workspaceId,
        `change_request.${type}`,
        changeRequestSummary(changeRequest),
      );
      await changeRequestEvents?.(trx, workspaceId, type, changeRequest);
    },
    activity: activityModule.service,
  });

  return {
    webhooks,
    changesModule,
    activityModule,
    members: membersService,
    sessions,
    oidc,
    users,
    keyManagement,
    invites,
    passwordResets,
    groups: groupsService,
    variables,
    environments,
    history: historyService,
    rules: rulesService,
    trace: traceService,
    lint: lintService,
    browserRules: browserRulesService,
    transfer: transferService,
    importer,
    testSuites,
    hitsModule,
    settings,
    changeRequests,
  };
}
