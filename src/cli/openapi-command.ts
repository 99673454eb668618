// `rulekeeper openapi`: the OpenAPI document the service serves at /v1/openapi.json, without a running
// service or a database of one's own (for client generators and linters).
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { migrate, openDatabase } from '../db/database.js';

export function registerOpenapiCommand(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI document the service serves at /v1/openapi.json')
    .option('--output <file>', 'write it to a file instead of standard output')
    .action(async (options: { output?: string }) => {
      // The document does not depend on the data: an empty in-memory database builds the same app.
      const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' });
      const database = openDatabase(config);
      try {
        await migrate(database);
        const { buildApp } = await import('../app.js'); // loaded only for this command
        const app = await buildApp({ config, database, logger: false });
        const document = `${JSON.stringify((await app.inject({ url: '/v1/openapi.json' })).json(), null, 2)}\n`;
        await app.close();
        if (options.output) writeFileSync(options.output, document);
        else process.stdout.write(document);
      } finally {
        await database.close();
      }
    });
}
