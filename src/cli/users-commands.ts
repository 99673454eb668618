// `rulekeeper users create|list|disable`: people who sign in with an email and a password, from the
// server's shell. A user made here belongs to no workspace until `rulekeeper members add` (or an
// invite) makes them a member; running services hear a disabled user at once.
import { type Command, Option } from 'commander';
import { loadConfig } from '../config.js';
import { migrate, openDatabase } from '../db/database.js';
import { AppError } from '../errors.js';
import { createUsersService, type UsersService } from '../modules/users/users-service.js';
import { createUsersStore, type UserListing } from '../modules/users/users-store.js';
import { UsageError } from './local-workspace.js';
import { readNewPassword } from './password-input.js';

/** Runs `work` with the users service of the configured database; a refusal is printed as the API words it. */
async function withUsers(work: (users: UsersService, db: ReturnType<typeof openDatabase>) => Promise<void>) {
  const config = loadConfig();
  const database = openDatabase(config);
  try {
    await migrate(database);
    const users = createUsersService({
      db: database.db,
      store: createUsersStore(database.db),
      signals: database.signals,
      forget: () => {},
      passwordScryptN: config.passwordScryptN,
    });
    await work(users, database);
  } catch (error) {
    if (!(error instanceof AppError) && !(error instanceof UsageError)) throw error;
    const details =
      error instanceof AppError ? (error.details ?? []).map((d) => `: ${d.path} ${d.message}`) : [];
    process.stderr.write(`rulekeeper: ${error.message}${details.join('')}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  } finally {
    await database.close();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

function listLine(user: UserListing): string {
  const state = user.disabledAt === null ? 'active' : `disabled ${iso(user.disabledAt)}`;
  const kind = user.service ? '  (machine)' : '';
  return `${user.id}  ${user.name}  ${user.email ?? '-'}  created ${iso(user.createdAt)}  ${state}${kind}\n`;
}

export function registerUsersCommands(program: Command): void {
  const users = program
    .command('users')
    .description('manage people who sign in with an email and a password');

  users
    .command('create')
    .description(
      'make a user who signs in with an email and a password (asked for at the terminal, or read from ' +
        'standard input; never an argument); a user of that name without an email (from keys create) gets them',
    )
    .requiredOption('--email <email>', 'their email address')
    .option('--name <name>', 'their display name (default: the email)')
    .option('--json', 'print JSON')
    .action((options: { email: string; name?: string; json?: boolean }) =>
      withUsers(async (service, database) => {
        const password = await readNewPassword();
        const input = { email: options.email, password, ...(options.name ? { name: options.name } : {}) };
        const user = await database.db.transaction().execute((trx) => service.create(trx, input, Date.now()));
        process.stdout.write(
          options.json
            ? `${JSON.stringify(user)}\n`
            : `created ${user.name} (${user.id}), who signs in as ${user.email}; make them a member with rulekeeper members add\n`,
        );
      }),
    );

  users
    .command('list')
    .description('list users: id, name, email, creation and state (never a password)')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) =>
      withUsers(async (service) => {
        const rows = await service.list();
        process.stdout.write(options.json ? `${JSON.stringify(rows)}\n` : rows.map(listLine).join(''));
      }),
    );

  users
    .command('disable')
    .description('disable a user: they can no longer sign in, and their sessions and keys stop at once')
    .addOption(new Option('--email <email>', 'the user with this email').conflicts('id'))
    .addOption(new Option('--id <id>', 'the user with this id (from users list)'))
    .action((options: { email?: string; id?: string }) =>
      withUsers(async (service) => {
        const who = options.email ?? options.id;
        if (who === undefined) throw new UsageError('say which user: --email E or --id ID');
        if (options.id !== undefined && !options.id.startsWith('usr_'))
          throw new UsageError('a user id starts with usr_ (see rulekeeper users list)');
        if (!(await service.disable(who))) {
          process.stderr.write(`rulekeeper: no active user ${who}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`disabled ${who}\n`);
      }),
    );
}
