// `rulekeeper members …`: who belongs to a workspace and in what role, from the server's shell (the
// operator acts as the workspace's owner). Running services hear each change at once.
import { type Command, Option } from 'commander';
import { AppError } from '../errors.js';
import { randomSuffix } from '../ids.js';
import { ROLES, type Role } from '../model/role.js';
import { createActivityService } from '../modules/activity/activity-service.js';
import { createActivityStore } from '../modules/activity/activity-store.js';
import { createKeysStore } from '../modules/keys/keys-store.js';
import { createMembersService } from '../modules/members/members-service.js';
import { createMembersStore } from '../modules/members/members-store.js';
import { type LocalWorkspace, UsageError, withLocalWorkspace } from './local-workspace.js';

/** Runs `work` with the workspace's members service; a refusal is printed as the API words it. */
async function withMembers(
  workspace: string,
  work: (members: ReturnType<typeof createMembersService>, local: LocalWorkspace) => Promise<void>,
): Promise<void> {
  try {
    await withLocalWorkspace(workspace, undefined, (local) =>
      work(
        createMembersService({
          db: local.database.db,
          store: createMembersStore(local.database.db),
          signals: local.database.signals,
          forget: () => {},
          activity: createActivityService({ store: createActivityStore(local.database.db) }),
        }),
        local,
      ),
    );
  } catch (error) {
    if (!(error instanceof AppError) && !(error instanceof UsageError)) throw error;
    const details = error instanceof AppError ? (error.details ?? []).map((d) => `: ${d.message}`) : [];
    process.stderr.write(`rulekeeper: ${error.message}${details.join('')}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}

/** The user id of the member named `name`. */
async function userIdOf(local: LocalWorkspace, name: string): Promise<string> {
  const found = await createKeysStore(local.database.db).findUser(name);
  if (!found) throw new UsageError(`no user named "${name}"`);
  return found.id;
}

const roleOption = () => new Option('--role <role>', 'viewer, editor, admin or owner').choices(ROLES);

export function registerMembersCommands(program: Command): void {
  const members = program.command('members').description("manage a workspace's members and their roles");

  members
    .command('list')
    .description('list the members of a workspace with their roles')
    .requiredOption('--workspace <name>', 'workspace name')
    .option('--json', 'print JSON')
    .action((options: { workspace: string; json?: boolean }) =>
      withMembers(options.workspace, async (service, local) => {
        const rows = await service.list(local.principal);
        process.stdout.write(
          options.json
            ? `${JSON.stringify(rows)}\n`
            : rows.map((m) => `${m.userId}  ${m.name}  ${m.role}\n`).join(''),
        );
      }),
    );

  members
    .command('add')
    .description('make a user a member of the workspace with a role, creating the user as needed')
    .requiredOption('--workspace <name>', 'workspace name')
    .requiredOption('--user <name>', 'user name')
    .addOption(roleOption().makeOptionMandatory())
    .action((options: { workspace: string; user: string; role: Role }) =>
      withMembers(options.workspace, async (service, local) => {
        const { db } = local.database;
        const userId = await db
          .transaction()
          .execute((trx) =>
            createKeysStore(db).ensureUser(trx, options.user, `usr_${randomSuffix(12)}`, Date.now()),
          );
        await service.add(local.principal, userId, options.role);
        process.stdout.write(`${options.user} is now ${options.role} of ${options.workspace}\n`);
      }),
    );

  members
    .command('set-role')
    .description("change a member's role; their keys do no more than it allows, at once")
    .requiredOption('--workspace <name>', 'workspace name')
    .requiredOption('--user <name>', 'user name')
    .addOption(roleOption().makeOptionMandatory())
    .action((options: { workspace: string; user: string; role: Role }) =>
      withMembers(options.workspace, async (service, local) => {
        const userId = await userIdOf(local, options.user);
        await service.setRole(local.principal, userId, { role: options.role });
        process.stdout.write(`${options.user} is now ${options.role} of ${options.workspace}\n`);
      }),
    );

  members
    .command('remove')
    .description('remove a member; their keys in the workspace stop working at once')
    .requiredOption('--workspace <name>', 'workspace name')
    .requiredOption('--user <name>', 'user name')
    .action((options: { workspace: string; user: string }) =>
      withMembers(options.workspace, async (service, local) => {
        await service.remove(local.principal, await userIdOf(local, options.user));
        process.stdout.write(`${options.user} is no longer a member of ${options.workspace}\n`);
      }),
    );
}
