// Runs the compiled `rulekeeper` command (bin/rulekeeper.js) as the operator would, and scratch databases
// for the real-process suites (a SQLite file, or a PostgreSQL database created for the run and dropped).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const BIN = fileURLToPath(new URL('../../bin/rulekeeper.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `rulekeeper ...args` with only `env` (and PATH) in its environment. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface IssuedCliKey {
  key: string;
  keyId: string;
  workspaceId: string;
  userId: string;
  role: 'viewer' | 'editor' | 'admin' | 'owner';
  scope: 'read' | 'write' | 'admin';
  expiresAt: number | null;
  name: string | null;
  /** The environment it is bound to (`--environment`); null: none. */
  environment: string | null;
}

/**
 * `rulekeeper keys create --workspace W --user U --json` (with `options` such as `--scope read`),
 * parsed; fails loudly when the command does.
 */
export async function createKeyWithCli(
  databaseUrl: string,
  workspace: string,
  user: string,
  options: string[] = [],
) {
  const args = ['keys', 'create', '--workspace', workspace, '--user', user, ...options, '--json'];
  const result = await runCli(args, { DATABASE_URL: databaseUrl });
  if (result.code !== 0) throw new Error(`keys create failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim()) as IssuedCliKey;
}

export type ScratchKind = 'sqlite' | 'postgres';

export interface ScratchDatabase {
  /** DATABASE_URL for the service and the CLI. */
  url: string;
  /** The SQLite file (sqlite only). */
  file?: string;
  drop(): Promise<void>;
}

/** A new, empty database: a SQLite file in a temporary folder, or a PostgreSQL database on TEST_POSTGRES_URL. */
export async function scratchDatabase(kind: ScratchKind): Promise<ScratchDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-resilience-'));
    const file = join(dir, 'service.db');
    return { url: `sqlite:${file}`, file, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = process.env.TEST_POSTGRES_URL;
  if (!admin) throw new Error('TEST_POSTGRES_URL is not set');
  const name = `rulekeeper_resilience_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
