// `rulekeeper invites create`: an invite to a workspace from the server's shell (the operator acts as
// the workspace's owner), its single-use link printed, and mailed when SMTP_URL is set. The link leads
// to PUBLIC_URL, or else to the HOST and PORT the service listens on.
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { ROLES, type Role } from '../model/role.js';
import { createActivityService } from '../modules/activity/activity-service.js';
import { createActivityStore } from '../modules/activity/activity-store.js';
import { createInvitesService } from '../modules/invites/invites-service.js';
import { createInvitesStore } from '../modules/invites/invites-store.js';
import { createMailer } from '../modules/mail/mailer.js';
import { createMembersStore } from '../modules/members/members-store.js';
import { createSessionsService } from '../modules/sessions/sessions-service.js';
import { createSessionsStore } from '../modules/sessions/sessions-store.js';
import { createUsersService } from '../modules/users/users-service.js';
import { createUsersStore } from '../modules/users/users-store.js';
import { type LocalWorkspace, UsageError, withLocalWorkspace } from './local-workspace.js';

/** Where the service is reached, as far as the command line can tell. */
function serviceOrigin(config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

function invitesOf(local: LocalWorkspace) {
  const { db, signals } = local.database;
  const usersStore = createUsersStore(db);
  const activity = createActivityService({ store: createActivityStore(db) });
  return createInvitesService({
    db,
    store: createInvitesStore(db),
    users: createUsersService({ db, store: usersStore, signals, forget: () => {} }),
    usersStore,
    members: createMembersStore(db),
    sessions: createSessionsService({
      db,
      store: createSessionsStore(db),
      users: usersStore,
      signals,
      activity,
      cacheTtlMs: 0,
    }),
    activity,
    signals,
    forget: () => {},
    mailer: createMailer(local.config),
    mailFailed: (error) =>
      process.stderr.write(
        `rulekeeper: the invite could not be mailed (${String((error as { code?: unknown })?.code ?? 'error')})\n`,
      ),
  });
}

export function registerInvitesCommands(program: Command): void {
  const invites = program.command('invites').description('invite people to a workspace');

  invites
    .command('create')
    .description('invite an email to a workspace with a role: prints the single-use link (7 days)')
    .requiredOption('--workspace <name>', 'workspace name')
    .requiredOption('--email <email>', 'who is invited')
    .addOption(
      new Option('--role <role>', 'viewer, editor, admin or owner').choices(ROLES).makeOptionMandatory(),
    )
    .option('--json', 'print JSON')
    .action(async (options: { workspace: string; email: string; role: Role; json?: boolean }) => {
      try {
        await withLocalWorkspace(options.workspace, undefined, async (local) => {
          const made = await invitesOf(local).create(
            local.principal,
            { email: options.email, role: options.role },
            serviceOrigin(local.config),
          );
          process.stdout.write(
            options.json
              ? `${JSON.stringify(made)}\n`
              : `Invited ${made.email} to ${options.workspace} as ${made.role}${made.mailed ? ' (mailed)' : ''}. ` +
                  `Hand over this link (works once, until ${new Date(made.expiresAt).toISOString()}):\n  ${made.link}\n`,
          );
        });
      } catch (error) {
        if (!(error instanceof AppError) && !(error instanceof UsageError)) throw error;
        const details = error instanceof AppError ? (error.details ?? []).map((d) => `: ${d.message}`) : [];
        process.stderr.write(`rulekeeper: ${error.message}${details.join('')}\n`);
        process.exitCode = error instanceof UsageError ? 2 : 1;
      }
    });
}
