// `rulekeeper test FILE` as a CI job runs it: against a real server and against a workspace of the
// local database, with passing and failing files in JSON and YAML; exit 0 only when every case passes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

describe('rulekeeper test', () => {
  let database: ScratchDatabase;
  let service: ServiceProcess;
  let key: string;
  let dir: string;
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

  beforeAll(async () => {
    database = await scratchDatabase('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'rulekeeper-rule-tests-'));
    key = (await createKeyWithCli(database.url, 'qa', 'ci')).key;
    service = await startService({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    ids.redirect = await create({
      name: 'checkout to staging',
      ruleType: 'Redirect',
      pairs: [
        {
          source: { key: 'Url', operator: 'Wildcard_Matches', value: '*://shop.example.com/*' },
          destinationType: 'url',
          destination: 'https://staging.example.com/$2',
        },
      ],
    });
    ids.debug = await create({
      name: 'debug header',
      ruleType: 'Headers',
      pairs: [
        {
          source: { key: 'host', operator: 'Contains', value: 'example.com' },
          modifications: [{ Request: [{ header: 'X-Debug', type: 'Add', value: '1' }] }],
        },
      ],
    });
    ids.idle = await create({
      name: 'block ads',
      ruleType: 'Cancel',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.net' } }],
    });
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  const passing = () =>
    file(
      'passing.json',
      JSON.stringify([
        {
          name: 'checkout goes to staging',
          request: { url: 'https://shop.example.com/checkout', resourceType: 'main_frame' },
          expect: {
            url: 'https://staging.example.com/checkout',
            redirected: true,
            requestHeaders: { 'X-DEBUG': '1' },
            acted: [ids.redirect, ids.debug],
          },
        },
        {
          name: 'other sites are left alone',
          request: { url: 'https://other.org/' },
          expect: { redirected: false, cancelled: false, requestHeaders: { 'x-debug': null } },
        },
      ]),
    );

  const failing = () =>
    file(
      'failing.yaml',
      [
        '- name: checkout goes to production',
        '  request:',
        '    url: https://shop.example.com/checkout',
        '  expect:',
        '    url: https://www.example.com/checkout',
        '    delayMs: 0',
        '- name: still fine',
        '  request: { url: "https://other.org/" }',
        '  expect: { cancelled: false }',
      ].join('\n'),
    );

  it.each(['server', 'workspace'])(
    'passes a passing file (%s) and names the rules no case exercised',
    async (mode) => {
      const args = mode === 'server' ? ['--server', service.url, '--key', key] : ['--workspace', 'qa'];
      const result = await runCli(['test', passing(), ...args], { DATABASE_URL: database.url });
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('ok    checkout goes to staging');
      expect(result.stdout).toContain('ok    other sites are left alone');
      expect(result.stdout).toMatch(
        new RegExp(`Active rules no case exercised \\(1\\):\\n  ${ids.idle}  block ads`),
      );
      expect(result.stdout).toMatch(/^2 passed, 0 failed$/m);
      expect(result.code).toBe(0);
    },
  );

  it.each(['server', 'workspace'])('fails a failing YAML file (%s), saying what differed', async (mode) => {
    const env: Record<string, string> =
      mode === 'server'
        ? { DATABASE_URL: database.url, RULEKEEPER_KEY: key }
        : { DATABASE_URL: database.url };
    const args = mode === 'server' ? ['--server', service.url] : ['--workspace', 'qa'];
    const result = await runCli(['test', failing(), ...args], env);
    expect(result.stdout).toContain('FAIL  checkout goes to production');
    expect(result.stdout).toContain(
      'outcome.url: expected "https://www.example.com/checkout", got "https://staging.example.com/checkout"',
    );
    expect(result.stdout).toContain('ok    still fine');
    expect(result.stdout).toMatch(/^1 passed, 1 failed$/m);
    expect(result.code).toBe(1);
  });

  it('reports a case whose request the server refuses as failed', async () => {
    const path = file(
      'bad-request.json',
      JSON.stringify([{ name: 'relative', request: { url: '/x' }, expect: {} }]),
    );
    const result = await runCli(['test', path, '--server', service.url, '--key', key], {});
    expect(result.stdout).toMatch(/FAIL {2}relative\n.*400 Invalid trace request \/request\/url/);
    expect(result.code).toBe(1);
  });

  it.each([
    ['not a list', 'not-a-list.json', '{"name": "x"}', /must hold a list of cases/],
    ['not JSON', 'broken.json', '[{', /is not valid JSON/],
    [
      'a case without expect',
      'no-expect.yaml',
      '- name: x\n  request: { url: "https://a.example/" }\n',
      /case 1 must have/,
    ],
  ])('refuses a file that is %s with exit code 2', async (_title, name, text, message) => {
    const result = await runCli(['test', file(name, text), '--workspace', 'qa'], {
      DATABASE_URL: database.url,
    });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('runs the cases in the environment --environment names, on a server and in a local workspace', async () => {
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBe(201);
    };
    await post('/v1/environments', { name: 'staging' });
    await post('/v1/variables', {
      name: 'ORDERS',
      values: { default: 'http://localhost:3000', staging: 'https://staging.example.com' },
    });
    await create({
      name: 'orders to {{ORDERS}}',
      ruleType: 'Redirect',
      pairs: [
        {
          source: { key: 'Url', operator: 'Contains', value: 'orders.example.com' },
          destination: '{{ORDERS}}/orders',
        },
      ],
    });
    const staging = file(
      'staging.json',
      JSON.stringify([
        {
          name: 'orders go to staging',
          request: { url: 'https://orders.example.com/' },
          expect: { url: 'https://staging.example.com/orders' },
        },
      ]),
    );
    const server = ['--server', service.url, '--key', key];
    for (const args of [server, ['--workspace', 'qa']]) {
      const env = { DATABASE_URL: database.url };
      const chosen = await runCli(['test', staging, ...args, '--environment', 'staging'], env);
      expect(chosen.stdout + chosen.stderr).toMatch(/1 passed, 0 failed/);
      expect(chosen.code).toBe(0);
      // Without it, the key's environment, else default: localhost, not staging.
      const unnamed = await runCli(['test', staging, ...args], env);
      expect(unnamed.stdout).toContain('http://localhost:3000/orders');
      expect(unnamed.code).toBe(1);
      // One the workspace does not have: the trace is refused, the case fails saying so.
      const missing = await runCli(['test', staging, ...args, '--environment', 'nowhere'], env);
      expect(missing.stdout).toMatch(/environment/i);
      expect(missing.code).toBe(1);
    }
    const malformed = await runCli(['test', staging, ...server, '--environment', 'a b'], {});
    expect(malformed.stderr).toMatch(/--environment must be an environment name/);
    expect(malformed.code).toBe(2);
  });

  it('needs a server and key, or a workspace', async () => {
    const result = await runCli(['test', passing()], { DATABASE_URL: database.url });
    expect(result.stderr).toMatch(/give --server URL with RULEKEEPER_KEY \(or --key-file FILE\)/);
    expect(result.code).toBe(2);
  });
});
