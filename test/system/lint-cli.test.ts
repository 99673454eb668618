// `rulekeeper lint` as a CI job runs it: against a real server (key from RULEKEEPER_KEY) and against a
// workspace of the local database; findings printed with rule names; exit 0, 1 (a finding at
// --fail-on or worse) or 2 (a usage problem).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

// Each run of the command starts a process (seconds on a loaded two-core machine): generous timeouts.
const CLI_TIMEOUT = 180_000;

describe('rulekeeper lint', () => {
  let database: ScratchDatabase;
  let service: ServiceProcess;
  let key: string;
  let cleanKey: string;
  const ids: Record<string, string> = {};

  async function create(body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${service.url}/v1/rules`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'Active', ...body }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { id: string } }).data.id;
  }

  const redirect = (name: string, value: string, destination: string) =>
    create({
      name,
      ruleType: 'Redirect',
      pairs: [{ source: { key: 'Url', operator: 'Equals', value }, destinationType: 'url', destination }],
    });

  beforeAll(async () => {
    database = await scratchDatabase('sqlite');
    key = (await createKeyWithCli(database.url, 'qa', 'ci')).key;
    cleanKey = (await createKeyWithCli(database.url, 'clean', 'ci', ['--scope', 'read'])).key;
    service = await startService({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    ids.a = await redirect('old to new', 'https://a.example/old', 'https://a.example/new');
    ids.b = await redirect('new to old', 'https://a.example/new', 'https://a.example/old');
    ids.all = await create({
      name: 'mock everything',
      ruleType: 'Response',
      pairs: [{ source: { key: 'Url', operator: 'Contains', value: '' }, type: 'static', value: '{}' }],
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  }, CLI_TIMEOUT);

  it(
    'prints each finding with rule names and hints, and exits 1 on an error',
    async () => {
      const result = await runCli(['lint', '--server', service.url], { RULEKEEPER_KEY: key });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain(
        `error   redirect_loop  "old to new" (${ids.a}), "new to old" (${ids.b})`,
      );
      expect(result.stdout).toContain(`warning matches_everything  "mock everything" (${ids.all})`);
      expect(result.stdout).toContain('hint: ');
      expect(result.stdout.trim().split('\n').at(-1)).toBe('1 error, 1 warning, 0 info');
    },
    CLI_TIMEOUT,
  );

  it(
    'exits 0 on a clean workspace, and --fail-on warning fails on a warning',
    async () => {
      const clean = await runCli(['lint', '--server', service.url], { RULEKEEPER_KEY: cleanKey });
      expect(clean.code, clean.stderr).toBe(0);
      expect(clean.stdout.trim()).toBe('0 errors, 0 warnings, 0 info');

      const local = (args: string[]) =>
        runCli(['lint', '--workspace', 'qa', ...args], { DATABASE_URL: database.url });
      const errorsOnly = await local([]);
      expect(errorsOnly.code).toBe(1);
      // Without the loop, only a warning is left: it fails with --fail-on warning, not without.
      await fetch(`${service.url}/v1/rules/${ids.b}`, {
        method: 'PUT',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'Inactive' }),
      });
      expect((await local([])).code).toBe(0);
      const warned = await local(['--fail-on', 'warning']);
      expect(warned.code).toBe(1);
      expect(warned.stdout).toContain('matches_everything');
      const json = await local(['--json']);
      expect(JSON.parse(json.stdout).counts).toEqual({ error: 0, warning: 1, info: 0 });
    },
    CLI_TIMEOUT,
  );

  it(
    'exits 2 on a usage problem, never asking for a key on the command line',
    async () => {
      const noKey = await runCli(['lint', '--server', service.url], {});
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain('RULEKEEPER_KEY');
      const badKey = await runCli(['lint', '--server', service.url], { RULEKEEPER_KEY: 'rk_nope' });
      expect(badKey.code).toBe(2);
      expect(badKey.stderr).toContain('401');
      expect((await runCli(['lint'], {})).code).toBe(2);
      expect((await runCli(['lint', '--workspace', 'qa', '--fail-on', 'never'], {})).code).toBe(2);
      expect((await runCli(['lint', '--workspace', 'nowhere'], { DATABASE_URL: database.url })).code).toBe(2);
    },
    CLI_TIMEOUT,
  );
});
