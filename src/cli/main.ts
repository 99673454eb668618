// The `rulekeeper` command: serve, migrate, keys, members, users, invites, and the commands of the modules.
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { registerBrowserRulesCommand } from './browser-rules-command.js';
import { registerInvitesCommands } from './invites-commands.js';
import { registerKeysCommands, withKeys } from './keys-commands.js';
import { registerLintCommand } from './lint-command.js';
import { registerMembersCommands } from './members-commands.js';
import { registerOpenapiCommand } from './openapi-command.js';
import { registerProxyCommand } from './proxy-command.js';
import { registerTestCommand } from './test-command.js';
import { registerTransferCommands } from './transfer-commands.js';
import { registerUsersCommands } from './users-commands.js';

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

registerKeysCommands(program);
registerMembersCommands(program);
registerUsersCommands(program);
registerInvitesCommands(program);
registerTestCommand(program);
registerLintCommand(program);
registerBrowserRulesCommand(program);
registerOpenapiCommand(program);
registerTransferCommands(program);
registerProxyCommand(program);

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`rulekeeper: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
