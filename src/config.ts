// The environment, parsed once into a typed Config; nothing else reads process.env.
import { MAX_CONFIGURABLE_DELAY_MS } from './model/rule-types/delay.js';

export interface Config {
  port: number;
  host: string;
  /**
   * Where people reach the service (https://rules.example.com), when it is behind a proxy: the origin
   * a session's changes must come from, and, when https, secure `__Host-` cookies.
   */
  publicUrl: string | undefined;
  databaseUrl: string;
  /**
   * The mail server invite and password reset links are sent through (smtp:// or smtps://, with its
   * user and password); without it nothing is mailed: invite links are shown once, and "forgot
   * password" answers as always and sends nothing.
   */
  smtpUrl: string | undefined;
  /** The sender of those mails. */
  mailFrom: string;
  logLevel: string;
  /** `json` lines, `pretty` lines for people, or `auto`: pretty when the logs go to a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Requests per minute per API key (or per client address without a valid key); 0 turns limiting off. */
  rateLimitPerMinute: number;
  /** When set, rate-limit counters live in Redis and are shared by every instance. */
  redisUrl: string | undefined;
  maxBodyBytes: number;
  /** Body limit of POST /v1/import alone: a whole Requestly export in one request. */
  maxImportBytes: number;
  maxDelayMs: number;
  /** Longest an import may run (after its body is in); past it, it is abandoned and rolled back. */
  importTimeLimitMs: number;
  /** Longest an export may run; past it, it stops and the connection is cut before the file's end. */
  exportTimeLimitMs: number;
  /** Longest a client may take to send a whole request (headers and body); slower ones are cut off. */
  requestTimeoutMs: number;
  /** scrypt's cost (N) for new password hashes; each hash keeps its own, so a change never locks anyone out. */
  passwordScryptN: number;
  /** How long a valid API key is remembered; a key revoked by another process may work this long. */
  keyCacheTtlMs: number;
  /** Database connections in the PostgreSQL pool. */
  dbPoolSize: number;
  /** PostgreSQL statement timeout; also how long a request may wait for the database. */
  dbStatementTimeoutMs: number;
  /** How long to wait for a new PostgreSQL connection before answering 503. */
  dbConnectTimeoutMs: number;
  /** Days a change record (a version in history) is kept; an object's latest version stays. */
  historyRetentionDays: number;
  /**
   * Days a security event (GET /v1/activity) is kept. Rule and group changes in the activity come from
   * the change log, kept historyRetentionDays.
   */
  activityRetentionDays: number;
  /** Hit reports (POST /v1/hits) per API key per minute on this instance; past it, 429. */
  hitsReportsPerMinute: number;
  /** How often a change stream without anything to send gets a heartbeat comment. */
  changesHeartbeatMs: number;
  /** How often streams look for changes they were not woken for (the safety net of NOTIFY). */
  changesPollMs: number;
  /** Open change streams per API key on this instance; past it, 429. */
  maxStreamsPerKey: number;
  /** Open change streams on this instance, all keys together; past it, 503. */
  maxStreams: number;
  /** Bytes a change stream may have unsent before it waits for its client (which is cut if it never reads). */
  maxStreamBufferBytes: number;
  /** Worker threads that run traces (0: on the event loop, as the CLI does). */
  traceWorkers: number;
  /** Longest one trace may run; past it, its worker is ended and the answer is 503. */
  traceTimeLimitMs: number;
  /** Heap of each trace worker, in MiB. */
  traceWorkerMemoryMb: number;
  /** Worker threads that run the rule lint (0: on the event loop, as the CLI does). */
  lintWorkers: number;
  /** Longest one lint may run; past it, its worker is ended (GET /v1/lint answers 503; writes stand). */
  lintTimeLimitMs: number;
  /** Heap of each lint worker, in MiB: it keeps the workspaces it linted last, within a quarter of it. */
  lintWorkerMemoryMb: number;
  /**
   * Past this many rules in a workspace, a write's lint reads only the rules around the written one,
   * and no worker holds the workspace for writes (lint-service.ts).
   */
  lintScopedFromRules: number;
  /**
   * How long a write's answer waits for the lint of its rule (its `warnings`); past it, the answer goes
   * with none and the findings are in GET /v1/lint.
   */
  lintWriteWaitMs: number;
  /** Worker threads that compile GET /v1/browser-rules (0: on the event loop, as the CLI does). */
  browserRulesWorkers: number;
  /** Longest one compile may run; past it, its worker is ended and the answer is 503. */
  browserRulesTimeLimitMs: number;
  /** Heap of each browser rules worker, in MiB. */
  browserRulesWorkerMemoryMb: number;
  /** Heap of the worker that runs imports, in MiB (a 100,000-record import and its lint take ~600). */
  importWorkerMemoryMb: number;
  /** Test suites a workspace may keep (/v1/test-suites). */
  maxTestSuites: number;
  /** Cases one test suite may hold; a suite's body is also within maxBodyBytes. */
  maxTestSuiteCases: number;
  /** Environments a workspace may have, `default` included (decisions §20). */
  maxEnvironments: number;
  /** Variables a workspace may have. */
  maxVariables: number;
  /** Characters of one variable's value in one environment. */
  maxVariableValueChars: number;
  /** Single sign-on with OpenID Connect, when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set. */
  oidc: OidcConfig | undefined;
  /**
   * Webhooks may target loopback, private, link-local and other inner addresses (a test's receiver, a
   * service on the operator's own network). Off: such targets are refused when made and at every send.
   */
  webhookAllowPrivate: boolean;
  /** Longest one webhook delivery may take, connecting and reading the answer included. */
  webhookTimeoutMs: number;
  /** How often each instance looks for webhook deliveries due. */
  webhookPollMs: number;
}

export interface OidcConfig {
  /** The provider's issuer URL; its `/.well-known/openid-configuration` is read on the first sign-in. */
  issuer: string;
  clientId: string;
  /** Never logged, never answered. */
  clientSecret: string;
  /** Lower-cased email domains that may sign in (`example.com` allows `a@example.com` alone); undefined: any. */
  allowedDomains: string[] | undefined;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

const OIDC_VARIABLES = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;
/** A host name an http:// issuer may have: a provider on this machine (a test's, a developer's). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Single sign-on: all three of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or none (and then no
 * OIDC_ALLOWED_DOMAINS either). Half a configuration would show a button that cannot work, or quietly
 * drop an operator's domain limit: refused at start instead.
 */
function oidcConfig(env: NodeJS.ProcessEnv): OidcConfig | undefined {
  const set = OIDC_VARIABLES.filter((name) => env[name]);
  const domains = env.OIDC_ALLOWED_DOMAINS;
  if (set.length === 0) {
    if (domains)
      throw new ConfigError(
        'OIDC_ALLOWED_DOMAINS is set but single sign-on is not: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too',
      );
    return undefined;
  }
  if (set.length < OIDC_VARIABLES.length) {
    const missing = OIDC_VARIABLES.filter((name) => !env[name]);
    throw new ConfigError(
      `single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    );
  }
  const issuer = env.OIDC_ISSUER as string;
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
  // Tokens and the provider's keys travel over this URL: https, except to a provider on loopback.
  const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.test(url.hostname));
  if (!url || !secure || url.search !== '' || url.hash !== '') {
    throw new ConfigError(
      `OIDC_ISSUER must be the provider's https URL, without query or fragment (http only on loopback), got "${issuer}"`,
    );
  }
  let allowedDomains: string[] | undefined;
  if (domains !== undefined && domains.trim() !== '') {
    allowedDomains = domains.split(',').map((domain) => domain.trim().toLowerCase().replace(/^@/, ''));
    const bad = allowedDomains.find((domain) => !DOMAIN.test(domain));
    if (bad !== undefined)
      throw new ConfigError(
        `OIDC_ALLOWED_DOMAINS must be email domains separated by commas (example.com,example.org), got "${bad}"`,
      );
  }
  return {
    issuer,
    clientId: env.OIDC_CLIENT_ID as string,
    clientSecret: env.OIDC_CLIENT_SECRET as string,
    allowedDomains,
  };
}

/** `true` or `false` (or unset: false); anything else is refused rather than guessed. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** An integer setting that must be a power of two (scrypt's N). */
function powerOfTwo(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = integer(env, name, fallback, min, max);
  if ((value & (value - 1)) !== 0) throw new ConfigError(`${name} must be a power of two, got "${value}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/rulekeeper.db';
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be sqlite:PATH or postgres://…');
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const logFormat = (env.LOG_FORMAT || 'auto') as Config['logFormat'];
  if (!LOG_FORMATS.includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${logFormat}"`);
  }
  const publicUrl = env.PUBLIC_URL || undefined;
  if (publicUrl !== undefined && !/^https?:\/\/[^/?#\s]+\/?$/.test(publicUrl)) {
    throw new ConfigError(
      `PUBLIC_URL must be an origin such as https://rules.example.com, got "${publicUrl}"`,
    );
  }
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl))
    throw new ConfigError('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…');
  // A mailed link must lead to this service whatever Host a request claimed: a "forgot password"
  // request with a forged Host would otherwise mail the victim a link to the forger's site.
  if (smtpUrl !== undefined && publicUrl === undefined)
    throw new ConfigError(
      'SMTP_URL needs PUBLIC_URL: the links it mails must say where people reach the service',
    );
  const mailFrom =
    env.MAIL_FROM || `Rulekeeper <rulekeeper@${publicUrl ? new URL(publicUrl).hostname : 'localhost'}>`;
  if (/[\r\n]/.test(mailFrom)) throw new ConfigError('MAIL_FROM must be one line');
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    publicUrl,
    databaseUrl,
    smtpUrl,
    mailFrom,
    logLevel,
    logFormat,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1200, 0, 1_000_000_000),
    redisUrl: env.REDIS_URL || undefined,
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    maxImportBytes: integer(env, 'MAX_IMPORT_BYTES', 52_428_800, 1024, 1_073_741_824),
    maxDelayMs: integer(env, 'MAX_DELAY_MS', 60_000, 0, MAX_CONFIGURABLE_DELAY_MS),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    importTimeLimitMs: integer(env, 'IMPORT_TIME_LIMIT_MS', 120_000, 100, 3_600_000),
    exportTimeLimitMs: integer(env, 'EXPORT_TIME_LIMIT_MS', 300_000, 100, 3_600_000),
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 5000, 0, 3_600_000),
    passwordScryptN: powerOfTwo(env, 'PASSWORD_SCRYPT_N', 2 ** 15, 2 ** 10, 2 ** 20),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 1000),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 1, 3_600_000),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 2000, 1, 600_000),
    historyRetentionDays: integer(env, 'HISTORY_RETENTION_DAYS', 90, 1, 36_500),
    activityRetentionDays: integer(env, 'ACTIVITY_RETENTION_DAYS', 400, 1, 36_500),
    hitsReportsPerMinute: integer(env, 'HITS_REPORTS_PER_MINUTE', 60, 1, 1_000_000),
    changesHeartbeatMs: integer(env, 'CHANGES_HEARTBEAT_MS', 15_000, 10, 3_600_000),
    changesPollMs: integer(env, 'CHANGES_POLL_MS', 1000, 10, 60_000),
    maxStreamsPerKey: integer(env, 'MAX_STREAMS_PER_KEY', 20, 1, 1_000_000),
    maxStreams: integer(env, 'MAX_STREAMS', 5000, 1, 1_000_000),
    maxStreamBufferBytes: integer(env, 'MAX_STREAM_BUFFER_BYTES', 1_048_576, 1024, 1_073_741_824),
    traceWorkers: integer(env, 'TRACE_WORKERS', 2, 0, 64),
    traceTimeLimitMs: integer(env, 'TRACE_TIME_LIMIT_MS', 10_000, 10, 600_000),
    traceWorkerMemoryMb: integer(env, 'TRACE_WORKER_MEMORY_MB', 256, 32, 16_384),
    lintWorkers: integer(env, 'LINT_WORKERS', 2, 0, 64),
    lintTimeLimitMs: integer(env, 'LINT_TIME_LIMIT_MS', 60_000, 10, 3_600_000),
    lintWorkerMemoryMb: integer(env, 'LINT_WORKER_MEMORY_MB', 1024, 64, 16_384),
    lintScopedFromRules: integer(env, 'LINT_SCOPED_FROM_RULES', 50_000, 0, 100_000_000),
    lintWriteWaitMs: integer(env, 'LINT_WRITE_WAIT_MS', 20, 0, 600_000),
    browserRulesWorkers: integer(env, 'BROWSER_RULES_WORKERS', 2, 0, 64),
    browserRulesTimeLimitMs: integer(env, 'BROWSER_RULES_TIME_LIMIT_MS', 60_000, 10, 3_600_000),
    browserRulesWorkerMemoryMb: integer(env, 'BROWSER_RULES_WORKER_MEMORY_MB', 512, 64, 16_384),
    importWorkerMemoryMb: integer(env, 'IMPORT_WORKER_MEMORY_MB', 2048, 64, 16_384),
    maxTestSuites: integer(env, 'MAX_TEST_SUITES', 100, 1, 100_000),
    maxTestSuiteCases: integer(env, 'MAX_TEST_SUITE_CASES', 1000, 1, 100_000),
    maxEnvironments: integer(env, 'MAX_ENVIRONMENTS', 20, 1, 1000),
    maxVariables: integer(env, 'MAX_VARIABLES', 500, 1, 100_000),
    maxVariableValueChars: integer(env, 'MAX_VARIABLE_VALUE_CHARS', 8192, 1, 1_000_000),
    oidc: oidcConfig(env),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000),
  };
}
