// A PostgreSQL database for one run: found through BENCH_POSTGRES_URL, TEST_POSTGRES_URL or a server on
// the default local port, created empty, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const LOCAL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface RunDatabase {
  url: string;
  /** Gathers the planner's statistics, as autovacuum would on a database in service. */
  analyze(): Promise<void>;
  /** Where the server was found, without the password. */
  server: string;
  drop(): Promise<void>;
}

async function run(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh database, or undefined (with the reason) when no server answers. */
export async function createRunDatabase(): Promise<RunDatabase | { skipped: string }> {
  const configured = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL;
  const admin = configured || LOCAL;
  const name = `rulekeeper_bench_${randomBytes(5).toString('hex')}`;
  const server = new URL(admin);
  server.password = '';
  try {
    await run(admin, `create database ${name}`);
  } catch (error) {
    return { skipped: `no PostgreSQL at ${server.host} (${(error as Error).message})` };
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    server: `${server.host}${configured ? '' : ' (default local server)'}`,
    analyze: () => run(url.toString(), 'analyze'),
    drop: () => run(admin, `drop database if exists ${name} with (force)`),
  };
}
