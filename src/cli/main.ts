// The `rulekeeper` command: serve, migrate, and API keys (create, list, revoke).
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { migrate, openDatabase } from '../db/database.js';
import { createKeysService, type KeysService } from '../modules/keys/keys-service.js';
import { createKeysStore } from '../modules/keys/keys-store.js';
import { registerOpenapiCommand } from './openapi-command.js';
import { registerProxyCommand } from './proxy-command.js';
import { registerTestCommand } from './test-command.js';
import { registerTransferCommands } from './transfer-commands.js';

/** Opens and migrates the configured database, runs `work` with the keys service, closes. */
async function withKeys(work: (keys: KeysService) => Promise<void>): Promise<void> {
  const database = openDatabase(loadConfig());
  try {
    await migrate(database);
    await work(createKeysService({ db: database.db, keysStore: createKeysStore(database.db) }));
  } finally {
    await database.close();
  }
}

const program = new Command('rulekeeper').description('Traffic-modification rules over HTTP.');

program
  .command('serve')
  .description('start the HTTP service (migrates the database first)')
  // Loaded when asked for: the HTTP stack is a third of every other command's start-up time.
  .action(async () => (await import('../server.js')).serve(loadConfig()));

program
  .command('migrate')
  .description('bring the database schema up to date, then exit')
  .action(() =>
    withKeys(async () => {
      process.stdout.write('database is up to date\n');
    }),
  );

const keys = program.command('keys').description('manage API keys');

keys
  .command('create')
  .description('issue a key for a user of a workspace, creating either as needed; the key is shown once')
  .requiredOption('--workspace <name>', 'workspace name')
  .requiredOption('--user <name>', 'user name')
  .option('--json', 'print one JSON line {"key","workspaceId","userId"}')
  .action((options: { workspace: string; user: string; json?: boolean }) =>
    withKeys(async (service) => {
      const issued = await service.issue(options.workspace, options.user);
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ key: issued.key, workspaceId: issued.workspaceId, userId: issued.userId })}\n`
          : `key ${issued.keyId} for user ${options.user} (${issued.userId}) in workspace ${options.workspace} (${issued.workspaceId}):\n${issued.key}\n`,
      );
    }),
  );

keys
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--json', 'print JSON')
  .action((options: { json?: boolean }) =>
    withKeys(async (service) => {
      const rows = await service.list();
      if (options.json) {
        process.stdout.write(`${JSON.stringify(rows)}\n`);
        return;
      }
      for (const row of rows) {
        const state = row.revokedAt ? `revoked ${new Date(row.revokedAt).toISOString()}` : 'active';
        process.stdout.write(
          `${row.id}  ${row.workspace}/${row.user}  created ${new Date(row.createdAt).toISOString()}  ${state}\n`,
        );
      }
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

registerTestCommand(program);
registerOpenapiCommand(program);
registerTransferCommands(program);
registerProxyCommand(program);

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`rulekeeper: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
