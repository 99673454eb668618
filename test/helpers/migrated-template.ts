// A migrated, empty database to copy, made once per set of migrations and kept between runs: a SQLite
// file in the temporary folder, a PostgreSQL template database. Running the nineteen migrations took
// 0.4–1.5 s per test app (each DDL statement its own durable commit on SQLite); copying the result
// takes milliseconds. The copy is made by the same migrations and still goes through `migrate` (which
// then finds nothing to do), so a test app's schema is exactly what the service would make; tests of
// the migrations themselves start from `createTestDatabase`'s empty database, as before.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

/** Names the migrations' current text: a changed or added migration makes a new template. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS).sort()) {
    hash.update(name).update(readFileSync(new URL(name, MIGRATIONS)));
  }
  return hash.digest('hex').slice(0, 12);
}

async function migrateAt(url: string): Promise<void> {
  const database = openDatabase(loadConfig({ DATABASE_URL: url }));
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

/** A copy of the migrated SQLite template at `file`. */
export async function copySqliteTemplate(file: string): Promise<void> {
  const dir = join(tmpdir(), 'rulekeeper-templates');
  const template = join(dir, `sqlite-${migrationsHash()}.db`);
  if (!existsSync(template)) {
    mkdirSync(dir, { recursive: true });
    // Made aside and renamed into place, so another worker never copies a half-made file; two workers
    // making it at once both make a whole one, and either may win.
    const making = join(dir, `making-${randomBytes(6).toString('hex')}`);
    mkdirSync(making);
    // Closing the only connection checkpoints the write-ahead log into the file and removes it.
    await migrateAt(`sqlite:${join(making, 'template.db')}`);
    renameSync(join(making, 'template.db'), template);
    rmSync(making, { recursive: true, force: true });
  }
  copyFileSync(template, file);
}

/**
 * Any constant: the lock that orders the making of PostgreSQL templates (held exclusively) and copies
 * of them (held shared), so that a run with other migrations (another checkout) never drops a template
 * while it is being copied.
 */
const TEMPLATE_LOCK = 7_304_212;

/**
 * Creates database `name` as a copy of the migrated template on the server of `adminUrl`, making the
 * template first when missing (and dropping templates of other migrations). The template accepts no
 * connections, so that CREATE DATABASE … TEMPLATE never finds one open.
 */
export async function createFromPostgresTemplate(adminUrl: string, name: string): Promise<void> {
  const template = `rulekeeper_template_${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const ready = async () =>
      (await admin.query('select 1 from pg_database where datname = $1 and datistemplate', [template]))
        .rowCount === 1;
    for (;;) {
      await admin.query('select pg_advisory_lock_shared($1)', [TEMPLATE_LOCK]);
      try {
        if (await ready()) {
          await admin.query(`create database ${name} template ${template}`);
          return;
        }
      } finally {
        await admin.query('select pg_advisory_unlock_shared($1)', [TEMPLATE_LOCK]);
      }
      await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      try {
        if (!(await ready())) await makeTemplate(admin, adminUrl, template);
      } finally {
        await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
      }
    }
  } finally {
    await admin.end();
  }
}

async function makeTemplate(admin: pg.Client, adminUrl: string, template: string): Promise<void> {
  // A template left half-made, or made from other migrations, is dropped (a template must first stop
  // being one).
  const stale = await admin.query<{ datname: string }>(
    "select datname from pg_database where datname like 'rulekeeper\\_template\\_%'",
  );
  for (const { datname } of stale.rows) {
    await admin.query(`alter database ${datname} is_template false`);
    await admin.query(`drop database ${datname} with (force)`);
  }
  await admin.query(`create database ${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  await migrateAt(url.toString());
  await admin.query(`alter database ${template} with allow_connections false is_template true`);
}
