// `rulekeeper keys create|list|revoke`: the operator issues keys (with a scope, an expiry, a name),
// lists them (never the keys themselves) and revokes them.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.js';
import { migrate, openDatabase } from '../db/database.js';
import { AppError } from '../errors.js';
import { ENVIRONMENT_NAME_PATTERN } from '../model/environment-names.js';
import { DEFAULT_SCOPE, grants, KEY_SCOPES, type KeyScope, ROLE_REACH } from '../modules/keys/key-scopes.js';
import { createKeysService, type KeysService } from '../modules/keys/keys-service.js';
import { createKeysStore, type KeyListing } from '../modules/keys/keys-store.js';

/** Opens and migrates the configured database, runs `work` with the keys service, closes. */
export async function withKeys(work: (keys: KeysService) => Promise<void>): Promise<void> {
  const database = openDatabase(loadConfig());
  try {
    await migrate(database);
    await work(createKeysService({ db: database.db, keysStore: createKeysStore(database.db) }));
  } finally {
    await database.close();
  }
}

const UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const MAX_NAME = 256;

/** `30d`, `12h`, `90m`, `2w` from now, or an ISO date (`2026-12-31`, `2026-12-31T18:00Z`): epoch ms. */
export function parseExpiry(text: string, now = Date.now()): number {
  const relative = /^(\d{1,6})([mhdw])$/.exec(text);
  const at = relative
    ? now + Number(relative[1]) * (UNITS_MS[relative[2] as string] as number)
    : ISO_DATE.test(text)
      ? Date.parse(text)
      : Number.NaN;
  if (Number.isNaN(at)) {
    throw new InvalidArgumentError('expected a duration such as 30d, 12h, 90m or 2w, or an ISO date.');
  }
  if (at <= now) throw new InvalidArgumentError(`${new Date(at).toISOString()} is not in the future.`);
  return at;
}

function parseName(text: string): string {
  const name = text.trim();
  // Names are printed by `keys list` and shown in consoles: no control characters.
  if (name.length < 1 || name.length > MAX_NAME || /\p{Cc}/u.test(name)) {
    throw new InvalidArgumentError(`expected 1 to ${MAX_NAME} characters, without control characters.`);
  }
  return name;
}

function parseEnvironment(text: string): string {
  if (!ENVIRONMENT_NAME_PATTERN.test(text))
    throw new InvalidArgumentError(
      'expected a letter or digit, then up to 63 letters, digits, "_", "." or "-".',
    );
  return text;
}

const iso = (ms: number) => new Date(ms).toISOString();

function listLine(row: KeyListing, now: number): string {
  const state = row.revokedAt
    ? `revoked ${iso(row.revokedAt)}`
    : row.expiresAt !== null && row.expiresAt <= now
      ? 'expired'
      : 'active';
  const expiry = row.expiresAt === null ? 'no expiry' : `expires ${iso(row.expiresAt)}`;
  const name = row.name === null ? '' : `  "${row.name}"`;
  const environment = row.environment ? `  environment ${row.environment}` : '';
  return `${row.id}  ${row.workspace}/${row.user}  ${row.scope}  created ${iso(row.createdAt)}  ${expiry}  ${state}${environment}${name}\n`;
}

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('issue a key for a user of a workspace, creating either as needed; the key is shown once')
    .requiredOption('--workspace <name>', 'workspace name')
    .requiredOption('--user <name>', 'user name')
    .addOption(
      new Option(
        '--scope <scope>',
        'read: reads, traces, follows changes; write: also changes; admin: also settings',
      )
        .choices(KEY_SCOPES)
        .default(DEFAULT_SCOPE),
    )
    .option(
      '--expires <when>',
      'stop working after a duration (30d, 12h, 90m, 2w) or at an ISO date',
      (text) => parseExpiry(text),
    )
    .option('--name <name>', 'a name to tell the key by ("CI reader")', parseName)
    .option(
      '--environment <name>',
      "the workspace's environment its evaluations use when they name none (default: default)",
      parseEnvironment,
    )
    .option(
      '--json',
      'print one JSON line {"key","keyId","workspaceId","userId","role","scope","expiresAt","name","environment"}',
    )
    .action(
      (options: {
        workspace: string;
        user: string;
        scope: KeyScope;
        expires?: number;
        name?: string;
        environment?: string;
        json?: boolean;
      }) =>
        withKeys(async (service) => {
          const chosen = {
            scope: options.scope,
            expiresAt: options.expires ?? null,
            name: options.name ?? null,
            environment: options.environment ?? null,
          };
          const issued = await service.issue(options.workspace, options.user, chosen).catch((error) => {
            // An environment the workspace does not have: said as the CLI says a bad option.
            if (error instanceof AppError && error.details?.[0]) throw new Error(error.details[0].message);
            throw error;
          });
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ ...issued, ...chosen })}\n`);
            return;
          }
          const named = chosen.name === null ? '' : ` "${chosen.name}"`;
          const expiry = chosen.expiresAt === null ? 'no expiry' : `expires ${iso(chosen.expiresAt)}`;
          const bound = chosen.environment === null ? '' : `, environment ${chosen.environment}`;
          // A member keeps their role: a key of a broader scope does no more than it allows.
          const capped = grants(ROLE_REACH[issued.role], chosen.scope)
            ? ''
            : ` (capped by the role: it does what a ${ROLE_REACH[issued.role]} key does)`;
          process.stdout.write(
            `key ${issued.keyId}${named} for user ${options.user} (${issued.userId}, ${issued.role}) in ` +
              `workspace ${options.workspace} (${issued.workspaceId}), scope ${chosen.scope}${capped}${bound}, ` +
              `${expiry}:\n${issued.key}\n`,
          );
        }),
    );

  keys
    .command('list')
    .description('list keys with their scope, expiry and name (never the keys themselves)')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) =>
      withKeys(async (service) => {
        const rows = await service.list();
        const now = Date.now();
        process.stdout.write(
          options.json ? `${JSON.stringify(rows)}\n` : rows.map((row) => listLine(row, now)).join(''),
        );
      }),
    );

  keys
    .command('revoke')
    .description(
      'revoke a key by its id (from `keys list`); running services refuse it within KEY_CACHE_TTL_MS',
    )
    .argument('<keyId>')
    .action((keyId: string) =>
      withKeys(async (service) => {
        if (!(await service.revoke(keyId))) {
          process.stderr.write(`no active key with id ${keyId}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`revoked ${keyId}\n`);
      }),
    );
}
