// The `rulekeeper proxy` command as a user starts it: it starts even when the server is down (with no
// rules, saying so, and listening), refuses to start without a key, and `proxy ca` prints the
// certificate to trust, the same one each time; it reports the rules that acted when it stops, unless
// started with --no-hits; with --environment its rules act with that environment's variables.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, runCli, scratchDatabase } from '../helpers/cli.js';
import { startService } from '../helpers/service-process.js';

const BIN = fileURLToPath(new URL('../../bin/rulekeeper.js', import.meta.url));

describe('rulekeeper proxy (command)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-proxy-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts with no rules while the server is down, and says so', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'proxy', '--server', 'http://127.0.0.1:9', '--port', '0', '--ca-dir', join(dir, 'ca')],
      {
        env: { PATH: process.env.PATH ?? '', RULEKEEPER_KEY: 'rk_not_checked_yet' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/listening on port \d+/.test(stderr)) resolve();
      });
      child.on('exit', (code) => reject(new Error(`exited (${code}): ${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(stderr).toMatch(/created a certificate authority/);
    expect(stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9 .*: no rules yet; retrying/);
    expect(readFileSync(join(dir, 'ca', 'ca.key'), 'utf8')).toMatch(/PRIVATE KEY/);
  });

  it('prints the CA certificate it created, the same each time', async () => {
    const first = await runCli(['proxy', 'ca', '--ca-dir', join(dir, 'ca')], {});
    const second = await runCli(['proxy', 'ca', '--ca-dir', join(dir, 'ca')], {});
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(second.stdout).toBe(first.stdout);
  });

  it('refuses to start without a key (exit 2)', async () => {
    const result = await runCli(['proxy', '--ca-dir', join(dir, 'ca')], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/RULEKEEPER_KEY or --key-file FILE/);
  });

  it('tells the server which rules acted (counts only) when it stops; with --no-hits it tells nothing', async () => {
    const database = await scratchDatabase('sqlite');
    const service = await startService({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    const upstream = createServer((_req, res) => res.end('upstream'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    try {
      const { key } = await createKeyWithCli(database.url, 'hits', 'qa');
      const api = (path: string, body?: unknown) =>
        fetch(`${service.url}/v1${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }).then((response) => response.json() as Promise<any>);
      const created = await api('/rules', {
        name: 'redirect',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'path', operator: 'Equals', value: '/hit' },
            destinationType: 'url',
            destination: 'https://x.example/',
          },
        ],
      });
      const ruleId = created.data.id as string;
      /** The proxy started with `flags`, two requests through it, then stopped as a person stops it. */
      const run = async (flags: string[]) => {
        const child: ChildProcess = spawn(
          process.execPath,
          [BIN, 'proxy', '--server', service.url, '--port', '0', '--ca-dir', join(dir, 'ca'), ...flags],
          { env: { PATH: process.env.PATH ?? '', RULEKEEPER_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        const port = await new Promise<number>((resolve, reject) => {
          child.stderr?.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
            const listening = /listening on port (\d+)/.exec(stderr);
            if (listening && /following/.test(stderr)) resolve(Number(listening[1]));
          });
          child.on('exit', (code) => reject(new Error(`exited (${code}): ${stderr}`)));
        });
        const dispatcher = new ProxyAgent(`http://127.0.0.1:${port}`);
        for (let i = 0; i < 2; i++) {
          const response = await undiciFetch(`${origin}/hit`, { dispatcher, redirect: 'manual' });
          expect(response.status).toBe(307);
        }
        await dispatcher.close();
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      };
      // The default batch is 10 s: what acted is sent when the proxy stops, not lost.
      await run([]);
      const hits = async () => (await api(`/rules/${ruleId}/hits`)).data;
      expect(await hits()).toMatchObject({ total7Days: 2, sources: [{ source: 'proxy', total7Days: 2 }] });
      await run(['--no-hits']);
      expect((await hits()).total7Days).toBe(2);
    } finally {
      upstream.close();
      await service.stop();
      await database.drop();
    }
  });

  it("acts in the environment --environment names: dev's value, then its new value, without a restart", async () => {
    const database = await scratchDatabase('sqlite');
    const service = await startService({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    const upstream = createServer((_req, res) => res.end('upstream'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    let child: ChildProcess | undefined;
    try {
      const { key } = await createKeyWithCli(database.url, 'environments', 'qa');
      const api = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${service.url}/v1${path}`, {
          method,
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        expect(response.status, `${method} ${path}`).toBeLessThan(300);
      };
      await api('POST', '/environments', { name: 'dev' });
      await api('POST', '/environments', { name: 'staging' });
      const values = { dev: 'http://localhost:3000', staging: 'https://staging.example.com' };
      await api('POST', '/variables', { name: 'API', description: '', secret: false, values });
      await api('POST', '/rules', {
        name: 'api to the environment',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'path', operator: 'Equals', value: '/api/users' },
            destinationType: 'url',
            destination: '{{API}}/api/users',
          },
        ],
      });
      child = spawn(
        process.execPath,
        [
          BIN,
          'proxy',
          '--server',
          service.url,
          '--port',
          '0',
          '--ca-dir',
          join(dir, 'ca'),
          '--environment',
          'dev',
        ],
        { env: { PATH: process.env.PATH ?? '', RULEKEEPER_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      const running = child;
      const port = await new Promise<number>((resolve, reject) => {
        running.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const listening = /listening on port (\d+)/.exec(stderr);
          if (listening && /following/.test(stderr)) resolve(Number(listening[1]));
        });
        running.on('exit', (code) => reject(new Error(`exited (${code}): ${stderr}`)));
      });
      expect(stderr).toMatch(/following http:\/\/127\.0\.0\.1:\d+ \(environment dev\): 1 rules/);
      const dispatcher = new ProxyAgent(`http://127.0.0.1:${port}`);
      const location = async () =>
        (await undiciFetch(`${origin}/api/users`, { dispatcher, redirect: 'manual' })).headers.get(
          'location',
        );
      expect(await location()).toBe('http://localhost:3000/api/users');
      // The change reaches the running proxy through the change stream: no restart.
      await api('PUT', '/variables/API', {
        description: '',
        secret: false,
        values: { ...values, dev: 'http://localhost:4000' },
      });
      await expect.poll(location).toBe('http://localhost:4000/api/users');
      await dispatcher.close();
    } finally {
      child?.kill('SIGTERM');
      upstream.close();
      await service.stop();
      await database.drop();
    }
  });

  it('refuses an --environment that cannot be a name (exit 2), and says when the workspace has none such', async () => {
    const bad = await runCli(['proxy', '--environment', 'not a name', '--ca-dir', join(dir, 'ca')], {
      RULEKEEPER_KEY: 'rk_not_checked',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--environment must be an environment name/);
    const database = await scratchDatabase('sqlite');
    const service = await startService({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    try {
      const { key } = await createKeyWithCli(database.url, 'no-such', 'qa');
      const child = spawn(
        process.execPath,
        [
          BIN,
          'proxy',
          '--server',
          service.url,
          '--port',
          '0',
          '--ca-dir',
          join(dir, 'ca'),
          '--environment',
          'stagign',
        ],
        { env: { PATH: process.env.PATH ?? '', RULEKEEPER_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/listening on port \d+/.test(stderr)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`exited (${code}): ${stderr}`)));
      });
      child.kill('SIGTERM');
      expect(stderr).toMatch(
        /the workspace has no environment "stagign"; no longer following .*, no rules yet/,
      );
    } finally {
      await service.stop();
      await database.drop();
    }
  });

  it('reads the key from --key-file, never from a command line, and never shows it', async () => {
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, 'rk_from_a_file_not_shown\n', { mode: 0o600 });
    const missing = await runCli(['proxy', '--key-file', join(dir, 'none'), '--ca-dir', join(dir, 'ca')], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read --key-file: ENOENT/);
    const child = spawn(
      process.execPath,
      [
        BIN,
        'proxy',
        '--key-file',
        keyFile,
        '--server',
        'http://127.0.0.1:9',
        '--port',
        '0',
        '--ca-dir',
        join(dir, 'ca'),
      ],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/listening on port \d+/.test(stderr)) resolve();
      });
      child.on('exit', (code) => reject(new Error(`exited (${code}): ${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(stderr).not.toContain('rk_from_a_file_not_shown');
  });
});
