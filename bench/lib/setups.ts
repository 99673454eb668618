// Everything under test, started and seeded: the service on SQLite and on PostgreSQL, json-server with
// the same rules, the --scale database; and the scenarios that go with each.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Scenario } from './load.js';
import type { Options } from './options.js';
import { createRunDatabase } from './postgres.js';
import { type Child, highWaterMb, startJsonServer, startService } from './processes.js';
import * as send from './requests.js';
import { type SeededStore, seedStore } from './seed-api.js';
import { seedScaleDatabase } from './seed-sqlite.js';

type Log = (line: string) => void;

export interface Store {
  service: Child;
  seeded: SeededStore;
}

export type StoreScenarios = Record<'get' | 'list' | 'create' | 'update' | 'mixed', Scenario>;

/** The five service scenarios against one store. */
export function serviceScenarios(store: string, { service, seeded }: Store): StoreScenarios {
  const target = { url: service.url, pid: service.pid };
  const { main, writes } = seeded;
  return {
    get: { name: 'get-rule', store, ceiling: 'get', target, requests: send.getRule(main.ruleIds, main.key) },
    list: { name: 'list-rules', store, ceiling: 'list', target, requests: send.listRules(main.key) },
    create: { name: 'create-rule', store, ceiling: 'create', target, requests: send.createRule(writes.key) },
    update: { name: 'update-rule', store, ceiling: 'create', target, requests: send.updateRule(main) },
    mixed: { name: 'mixed', store, ceiling: 'get', target, requests: send.mixed(main, writes) },
  };
}

/** The service on a fresh database, seeded through its API. */
export async function startSeeded(
  store: string,
  databaseUrl: string,
  options: Options,
  log: Log,
): Promise<Store> {
  const service = await startService(`service (${store})`, databaseUrl, options.serviceEnv);
  const began = performance.now();
  const seeded = await seedStore(service.url, databaseUrl, options.seed);
  const rules = [seeded.main, seeded.writes, ...seeded.others].reduce((n, w) => n + w.ruleIds.length, 0);
  const seconds = ((performance.now() - began) / 1000).toFixed(1);
  log(
    `${store}: ${rules} rules in ${seeded.others.length + 2} workspaces seeded through the API in ${seconds} s`,
  );
  return { service, seeded };
}

/** The service on a PostgreSQL database made for this run (dropped by `cleanups`), when a server answers. */
export async function startPostgres(
  options: Options,
  log: Log,
  cleanups: (() => unknown)[],
): Promise<(Store & { server: string; databaseUrl: string }) | { skipped: string }> {
  const database = await createRunDatabase();
  if ('skipped' in database) return database;
  cleanups.push(() => database.drop());
  log(`postgres: database created on ${database.server}`);
  const store = await startSeeded('postgres', database.url, options, log);
  // Measured right after seeding, the planner would still lack the statistics a database in service has.
  await database.analyze();
  return { ...store, server: database.server, databaseUrl: database.url };
}

/** json-server 0.17 serving the main workspace's rules from a db.json of its own. */
export async function startPeer(dir: string, seeded: SeededStore, log: Log) {
  mkdirSync(dir);
  const dbFile = join(dir, 'db.json');
  writeFileSync(dbFile, JSON.stringify({ rules: seeded.mainRules }, null, 2));
  const binary = createRequire(import.meta.url).resolve('json-server/lib/cli/bin.js');
  const server = await startJsonServer(binary, dbFile, dir);
  const target = { url: server.url, pid: server.pid };
  const { main } = seeded;
  log(`json-server: serves the same ${main.ruleIds.length} rules from db.json`);
  const store = 'json-server';
  return {
    server,
    get: {
      name: 'peer-get',
      store,
      ceiling: 'get',
      target,
      requests: send.getRule(main.ruleIds, main.key, '/rules/'),
    } satisfies Scenario,
    create: {
      name: 'peer-create',
      store,
      ceiling: 'get',
      target,
      requests: send.createRule(main.key, '/rules'),
    } satisfies Scenario,
  };
}

function fileSizeMb(file: string): number {
  let bytes = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      bytes += statSync(file + suffix).size;
    } catch {}
  }
  return bytes / 1024 / 1024;
}

/** The --scale database written straight to SQLite, the service started on it, and its scenarios. */
export async function startScale(dir: string, options: Options, log: Log) {
  const { rules, workspaces } = options.scale;
  log(`scale: seeding ${rules} rules in one workspace and ${workspaces} workspaces straight into SQLite`);
  const file = join(dir, 'scale.db');
  const seeded = await seedScaleDatabase(file, options.scale);
  const dbMb = fileSizeMb(file);
  log(
    `scale: ${seeded.rulesTotal} rules seeded in ${seeded.seedSeconds.toFixed(1)} s, ${dbMb.toFixed(0)} MB`,
  );
  const service = await startService('service (sqlite, scale)', seeded.databaseUrl, options.serviceEnv);
  // Before any reset of the high-water mark: the peak of start-up itself.
  const rssAfterStartup = highWaterMb(service.pid);
  log(`scale: service listening after ${service.startupMs.toFixed(0)} ms, ${rssAfterStartup.toFixed(0)} MB`);
  // A slow last page at 50 connections must count as slow, not as timed out.
  const common = { store: 'sqlite', target: { url: service.url, pid: service.pid }, timeout: 120 };
  const scenarios: Scenario[] = [
    {
      ...common,
      name: 'scale-get-rule',
      ceiling: 'get',
      requests: send.getRule(seeded.sampleIds, seeded.key),
    },
    { ...common, name: 'scale-list-first', ceiling: 'list', requests: send.listRules(seeded.key) },
    {
      ...common,
      name: 'scale-list-last',
      ceiling: 'list',
      requests: send.listRules(seeded.key, Math.max(0, rules - 100)),
    },
  ];
  let active = false;
  /** A write to the big workspace (a status toggle): any commit outdates the list pages kept in memory. */
  async function touch(): Promise<void> {
    active = !active;
    await statusWrite(service.url, seeded.key, seeded.sampleIds[0] as string, active);
  }
  return { service, seeded, dbMb, rssAfterStartup, scenarios, touch };
}

/** `PUT /v1/rules/:id {"status": …}`, answered 200 (its lint findings included), else an error. */
async function statusWrite(baseUrl: string, key: string, id: string, active: boolean): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/rules/${id}`, {
    method: 'PUT',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ status: active ? 'Active' : 'Inactive' }),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`a status toggle of ${id} answered ${response.status}`);
}

/**
 * Milliseconds of status toggles sent one at a time, each rule of `ids` switched on and then off: what a
 * user waits for a switch, its lint included. The first is the first write since start-up (the lint
 * has nothing of the workspace yet), as it is for the first user.
 */
export async function toggleTimes(baseUrl: string, key: string, ids: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const id of ids) {
    for (const active of [true, false]) {
      const began = performance.now();
      await statusWrite(baseUrl, key, id, active);
      times.push(performance.now() - began);
    }
  }
  return times;
}
