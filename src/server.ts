// serve: load config → open db → migrate → buildApp → listen; on SIGTERM, finish in-flight requests,
// then close the database.
import closeWithGrace from 'close-with-grace';
import type { FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { migrate, openDatabase } from './db/database.js';
import { createSetupInvite } from './modules/invites/invites-service.js';
import { createInvitesStore } from './modules/invites/invites-store.js';
import { linkTo } from './modules/shared/single-use-links.js';
import { createKeys } from './services.js';

export async function serve(config: Config): Promise<void> {
  const database = openDatabase(config);
  await migrate(database);
  // The same keys the app checks requests with: made once, here, for the first key of a new database.
  const keysService = createKeys(database, config);
  const firstKey = await keysService.ensureDefaultKey();
  // Beside it, the link that makes the first owner a person with an email and a password.
  const setup =
    firstKey &&
    (await createSetupInvite(
      { db: database.db, store: createInvitesStore(database.db) },
      firstKey.workspaceId,
      Date.now(),
    ));
  const app = await buildApp({ config, database, keysService, logger: loggerFor(config) });

  closeWithGrace({ delay: 20_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await database.close();
  });

  const address = await app.listen({ port: config.port, host: config.host });
  const lines = [
    `Rulekeeper is listening on ${address}: the console is at ${address}/, the API under /v1, its docs at /docs`,
  ];
  if (firstKey) {
    // Printed to the terminal once, never logged: this is the only time the key can be read.
    lines.push(
      'A new database: created workspace "default" with user "admin" and this API key (shown once: keep it, and sign in to the console with it):',
      `  ${firstKey.key}`,
      `Try: curl -H 'x-api-key: ${firstKey.key}' ${address}/v1/rules`,
    );
  }
  if (setup) {
    // Printed once, never logged, as the key is: it makes whoever opens it the workspace's owner.
    lines.push(
      `To become an owner of "default" with an email and a password, open this setup link (works once, for 24 hours, until ${new Date(setup.expiresAt).toISOString()}):`,
      `  ${linkTo(config.publicUrl ?? address, 'accept', setup.token)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** JSON lines for machines (files, collectors); one readable line per event on a terminal. */
function loggerFor(config: Config): FastifyServerOptions['logger'] {
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY);
  if (!readable) return { level: config.logLevel };
  // Synchronous, in this thread: a crash's last lines are written before the process ends.
  const stream = pretty({
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat:
      '{if req.method}{req.method} {req.url} {end}{if res.statusCode}{res.statusCode} {end}{msg}',
    ignore: 'pid,hostname,req,res',
  });
  return { level: config.logLevel, stream };
}
