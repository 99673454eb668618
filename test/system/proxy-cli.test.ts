// The `rulekeeper proxy` command as a user starts it: it starts even when the server is down (with no
// rules, saying so, and listening), refuses to start without a key, and `proxy ca` prints the
// certificate to trust, the same one each time.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

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
