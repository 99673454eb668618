// `rulekeeper browser-rules` as a person or a build step runs it: against a real server with a read key
// (RULEKEEPER_KEY) and against a workspace of the local database; a summary of what compiled and why
// the rest did not, or with --json the rules to install and the report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

// Each run of the command starts a process (seconds on a loaded two-core machine): generous timeouts.
const CLI_TIMEOUT = 180_000;

describe('rulekeeper browser-rules', () => {
  let database: ScratchDatabase;
  let service: ServiceProcess;
  let readKey: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    database = await scratchDatabase('sqlite');
    const writeKey = (await createKeyWithCli(database.url, 'qa', 'ci')).key;
    readKey = (await createKeyWithCli(database.url, 'qa', 'ci', ['--scope', 'read'])).key;
    service = await startService({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    const create = async (body: Record<string, unknown>) => {
      const response = await fetch(`${service.url}/v1/rules`, {
        method: 'POST',
        headers: { 'x-api-key': writeKey, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'Active', ...body }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { data: { id: string } }).data.id;
    };
    ids.block = await create({
      name: 'ads',
      ruleType: 'Cancel',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
    });
    // Its page's policy left alone (removeCSPHeader false), nothing of it is a browser rule.
    ids.script = await create({
      name: 'inject',
      ruleType: 'Script',
      removeCSPHeader: false,
      pairs: [
        {
          source: { key: 'Url', operator: 'Contains', value: 'example.com' },
          scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: 'window.x = 1' }],
        },
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  }, CLI_TIMEOUT);

  it(
    'prints what did not compile and why, then the count, from a server with a read key',
    async () => {
      const result = await runCli(['browser-rules', '--server', service.url], { RULEKEEPER_KEY: readKey });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`not_compiled ${ids.script}`);
      expect(result.stdout).toContain('content scripts inject them');
      expect(result.stdout.trim().split('\n').at(-1)).toBe(
        '1 browser rule from 2 active rules: 1 compiled, 0 partial, 1 not compiled',
      );
    },
    CLI_TIMEOUT,
  );

  it(
    'prints the rules and the report as JSON, from the local database too; usage problems exit 2',
    async () => {
      const local = await runCli(['browser-rules', '--workspace', 'qa', '--json'], {
        DATABASE_URL: database.url,
      });
      expect(local.code, local.stderr).toBe(0);
      const data = JSON.parse(local.stdout);
      expect(data.rules).toEqual([
        expect.objectContaining({
          id: 1,
          action: { type: 'block' },
          condition: expect.objectContaining({ regexFilter: expect.stringContaining('ads\\.example\\.com') }),
        }),
      ]);
      expect(data.report.map((r: { ruleId: string; status: string }) => [r.ruleId, r.status])).toEqual([
        [ids.block, 'compiled'],
        [ids.script, 'not_compiled'],
      ]);
      const neither = await runCli(['browser-rules'], { DATABASE_URL: database.url });
      expect(neither.code).toBe(2);
      expect(neither.stderr).toContain('give either --server URL');
      const noKey = await runCli(['browser-rules', '--server', service.url], {});
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain('RULEKEEPER_KEY');
    },
    CLI_TIMEOUT,
  );
});
