// `npm run bench`: starts the service on fresh, seeded databases (SQLite, and PostgreSQL when a server
// answers), a bare-node ceiling and json-server as a peer, then measures every scenario in interleaved
// rounds and reports medians. See bench/README.md.
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Request } from 'autocannon';
import { ensureBuilt, snapshotBuild } from './lib/build.js';
import { changesTargets, type FanoutFacts, measureFanout, notModifiedScenario } from './lib/changes-bench.js';
import { engineLines, engineTargets, measureEngine, traceScenarios } from './lib/engine-scenario.js';
import { importTargets, measureImports } from './lib/import-scenario.js';
import { median, type Scenario, sequentialMs } from './lib/load.js';
import { log } from './lib/log.js';
import { measureNoisyNeighbour, noisyTargets } from './lib/noisy-neighbour.js';
import { readOptions } from './lib/options.js';
import { createRunDatabase } from './lib/postgres.js';
import {
  type Child,
  highWaterMb,
  ROOT,
  startCeiling,
  startCreateCeiling,
  stopAll,
  useServiceBinary,
} from './lib/processes.js';
import { measureProxy, proxyErrors, proxyRatios, proxyTable, proxyTargets } from './lib/proxy-scenario.js';
import { recordAnswers } from './lib/record.js';
import { printReport, type ScaleFacts, targetLines, targets, writeJson } from './lib/report.js';
import { loggedProblems, runRounds } from './lib/rounds.js';
import {
  type StoreScenarios,
  serviceScenarios,
  startPeer,
  startPostgres,
  startScale,
  startSeeded,
  toggleTimes,
} from './lib/setups.js';

const cleanups: (() => unknown)[] = [];

async function cleanUp(): Promise<void> {
  await stopAll();
  for (const step of cleanups.reverse()) {
    try {
      await step();
    } catch (error) {
      process.stderr.write(`clean-up: ${(error as Error).message}\n`);
    }
  }
  cleanups.length = 0;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping\n`);
    cleanUp().finally(() => process.exit(130));
  });
}

/** Both promises settled; the first failure thrown only then, so that nothing starts after clean-up. */
async function both<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === 'rejected') throw first.reason;
  if (second.status === 'rejected') throw second.reason;
  return [first.value, second.value];
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const loadAtStart = loadavg().map((n) => Math.round(n * 100) / 100);
  log(
    `mode ${options.mode}: ${options.rounds} round(s) of ${options.duration} s per scenario, ${options.connections} connections, warm-up ${options.warmup} s; load average ${loadAtStart.join(' ')} on ${cpus().length} CPUs`,
  );
  ensureBuilt(ROOT, options.build, log);
  const build = snapshotBuild(ROOT);
  cleanups.push(() => {
    rmSync(build.dir, { recursive: true, force: true });
    // The parent too, unless another run's snapshot is in it.
    try {
      rmdirSync(dirname(build.dir));
    } catch {}
  });
  useServiceBinary(build.bin);
  const tmp = mkdtempSync(join(tmpdir(), 'rulekeeper-bench-'));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  const notes: string[] = [];
  const extra: Record<string, unknown> = {};

  if (options.proxyOnly) {
    // --quick checks the harness within CI's budget (~40 s): every way through, the proxy with no rules.
    const quick = options.mode === 'quick';
    const ruleCounts = quick ? [0] : [0, 100, 1000];
    const facts = await measureProxy(
      tmp,
      {
        connections: options.connections,
        duration: options.duration,
        warmup: quick ? 0.5 : Math.max(1, options.warmup),
        alone: quick ? 0.5 : Math.min(options.duration, 2),
        ruleCounts,
      },
      log,
    );
    process.stdout.write(
      `\n${proxyTable(facts)}\n\nratios:\n${proxyRatios(facts)}\n\ntargets of the issue (information only; errors fail the run below):\n${targetLines(proxyTargets(facts))}\n`,
    );
    const errors = proxyErrors(facts);
    // An error answer means a figure measured something else than forwarding: the harness failed.
    if (errors.length > 0) throw new Error(`error answers in the proxy bench:\n  ${errors.join('\n  ')}`);
    return;
  }

  if (options.noisyOnly) {
    const facts = [await measureNoisyNeighbour(`sqlite:${join(tmp, 'noisy.db')}`, options.serviceEnv, log)];
    // Then PostgreSQL, one store at a time: each is measured on a machine doing nothing else.
    const pgDatabase = options.postgres ? await createRunDatabase() : undefined;
    if (pgDatabase && !('skipped' in pgDatabase)) {
      cleanups.push(() => pgDatabase.drop());
      facts.push(await measureNoisyNeighbour(pgDatabase.url, options.serviceEnv, log));
    } else if (pgDatabase) log(`PostgreSQL skipped: ${pgDatabase.skipped}`);
    process.stdout.write(
      `\ntargets of the issue (information only, never an exit code):\n${targetLines(noisyTargets(facts))}\n`,
    );
    return;
  }

  if (options.importOnly) {
    const stores = [{ store: 'sqlite', databaseUrl: `sqlite:${join(tmp, 'import.db')}` }];
    const pgDatabase = options.postgres ? await createRunDatabase() : undefined;
    if (pgDatabase && !('skipped' in pgDatabase)) {
      cleanups.push(() => pgDatabase.drop());
      stores.push({ store: 'postgres', databaseUrl: pgDatabase.url });
    } else if (pgDatabase) log(`PostgreSQL skipped: ${pgDatabase.skipped}`);
    const sizes = options.mode === 'quick' ? [1000] : [10_000, 100_000];
    const facts = await measureImports(build.bin, tmp, stores, sizes, log);
    process.stdout.write(
      `\ntargets of the issue (information only, never an exit code):\n${targetLines(importTargets(facts))}\n`,
    );
    return;
  }

  // The engine first, in this process, while nothing else runs.
  const engine =
    options.mode === 'scale'
      ? []
      : measureEngine(options.mode === 'quick' ? [100, 1000] : [100, 1000, 10_000], options.mode === 'quick');
  for (const line of engineLines(engine)) log(line);
  extra.engine = engine;

  // The scale seed runs first: it is one long synchronous transaction in this process.
  const scale = options.mode === 'scale' ? await startScale(tmp, options, log) : undefined;
  const wantPostgres = !scale && options.postgres;
  const [sqlite, postgres] = await both(
    startSeeded('sqlite', `sqlite:${join(tmp, 'bench.db')}`, options, log),
    wantPostgres ? startPostgres(options, log, cleanups) : Promise.resolve(undefined),
  );
  const services = [sqlite.service];
  let pg: StoreScenarios | undefined;
  if (postgres && 'skipped' in postgres) notes.push(`PostgreSQL skipped: ${postgres.skipped}`);
  else if (postgres) {
    services.push(postgres.service);
    pg = serviceScenarios('postgres', postgres);
    extra.postgres_server = postgres.server;
  }
  if (scale) services.push(scale.service);

  const answers = await recordAnswers(sqlite.service.url, sqlite.seeded.main.key, sqlite.seeded.main.ruleIds);
  const ceiling = await startCeiling(join(tmp, 'ceiling.json'), answers);
  log(
    `ceiling: replays ${answers.get.body.length} bytes for a rule, ${answers.list.body.length} for a page of 100`,
  );
  const lite = serviceScenarios('sqlite', sqlite);
  // The same requests as get-rule and list-rules, so that the load generator does the same work.
  const ceilingTarget = { url: ceiling.url, pid: ceiling.pid };
  const ceilingGet: Scenario = {
    ...lite.get,
    name: 'ceiling-get',
    store: 'node-http',
    target: ceilingTarget,
  };
  const ceilingList: Scenario = {
    ...lite.list,
    name: 'ceiling-list',
    store: 'node-http',
    target: ceilingTarget,
  };
  // The durable-write ceiling of each database, when a write scenario runs: the same bodies as
  // create-rule, parsed and inserted by a bare node:http server (bench/ceiling-create-server.mjs).
  const writesWanted =
    !scale && (!options.only || options.only.some((name) => ['create-rule', 'update-rule'].includes(name)));
  const createCeilings: { child: Child; scenario: Scenario }[] = [];
  if (writesWanted) {
    const databases: [string, string][] = [['sqlite', `sqlite:${join(tmp, 'ceiling-create.db')}`]];
    if (postgres && !('skipped' in postgres)) databases.push(['postgres', postgres.databaseUrl]);
    for (const [store, database] of databases) {
      const child = await startCreateCeiling(`ceiling-create (${store})`, database);
      createCeilings.push({
        child,
        scenario: {
          ...lite.create,
          name: 'ceiling-create',
          store,
          ceiling: 'create',
          target: { url: child.url, pid: child.pid },
        },
      });
    }
  }
  const ceilingCreate = (store: string) => createCeilings.find((c) => c.scenario.store === store)?.scenario;
  const notModified = scale
    ? []
    : await Promise.all([
        notModifiedScenario('sqlite', sqlite),
        ...(pg && postgres && !('skipped' in postgres) ? [notModifiedScenario('postgres', postgres)] : []),
      ]);
  const traceRules = options.mode === 'quick' ? 200 : 1000;
  const traces = scale
    ? []
    : (
        await Promise.all([
          traceScenarios('sqlite', sqlite, traceRules),
          ...(pg && postgres && !('skipped' in postgres)
            ? [traceScenarios('postgres', postgres, traceRules)]
            : []),
        ])
      ).flat();
  const peer =
    !scale && options.peer && !options.engineOnly
      ? await startPeer(join(tmp, 'json-server'), sqlite.seeded, log)
      : undefined;

  const order = (
    scale
      ? [ceilingGet, lite.get, scale.scenarios[0], ceilingList, lite.list, ...scale.scenarios.slice(1)]
      : [
          ceilingGet,
          lite.get,
          pg?.get,
          peer?.get,
          ceilingList,
          lite.list,
          pg?.list,
          ...notModified,
          ...traces,
          ceilingCreate('sqlite'),
          lite.create,
          ceilingCreate('postgres'),
          pg?.create,
          peer?.create,
          lite.update,
          pg?.update,
          lite.mixed,
          pg?.mixed,
        ]
  ).filter(
    (s): s is Scenario =>
      s !== undefined && (!options.only || options.only.includes(s.name) || s.name.startsWith('ceiling')),
  );

  const problems: string[] = [];
  const watched = [
    ...services,
    ceiling,
    ...createCeilings.map((c) => c.child),
    ...(peer ? [peer.server] : []),
  ];
  const outcomes = await runRounds(order, options, watched, problems);
  problems.push(...loggedProblems(watched));

  let scaleFacts: ScaleFacts | undefined;
  if (scale) {
    // Status toggles one at a time, in the big workspace and in the small database's main one (neither
    // written by the rounds of --scale): 10 rules spread over each, each switched on and off.
    const spread = (ids: string[]) =>
      Array.from({ length: 10 }, (_, i) => ids[Math.floor((i * ids.length) / 10)] as string);
    const bigToggles = await toggleTimes(scale.service.url, scale.seeded.key, spread(scale.seeded.sampleIds));
    const smallToggles = await toggleTimes(
      sqlite.service.url,
      sqlite.seeded.main.key,
      spread(sqlite.seeded.main.ruleIds),
    );
    log(
      `scale: status toggles one at a time, ms: big ${bigToggles.map(Math.round).join(' ')}; small ${smallToggles.map(Math.round).join(' ')}`,
    );
    log('scale: one request at a time, 10 each, for the cost of a single request');
    const single = async (index: number, before?: () => Promise<void>) => {
      const scenario = scale.scenarios[index] as Scenario;
      return sequentialMs(scenario.target.url, scenario.requests[0] as Request, 10, before);
    };
    const [getMs, firstMs, lastMs] = [await single(0), await single(1), await single(2)];
    // The same pages right after a change to the database, which list pages kept in memory cannot
    // survive: what a page costs to build.
    const change = () => scale.touch();
    const [getChangedMs, firstChangedMs, lastChangedMs] = [
      await single(0, change),
      await single(1, change),
      await single(2, change),
    ];
    const peaks = outcomes.filter((o) => o.name.startsWith('scale-')).map((o) => o.rssMb);
    scaleFacts = {
      rules_in_big_workspace: options.scale.rules,
      rules_total: scale.seeded.rulesTotal,
      workspaces: options.scale.workspaces,
      seed_s: Math.round(scale.seeded.seedSeconds * 10) / 10,
      db_mb: Math.round(scale.dbMb),
      startup_ms: Math.round(scale.service.startupMs),
      startup_ms_small_db: Math.round(sqlite.service.startupMs),
      rss_after_startup_mb: Math.round(scale.rssAfterStartup * 10) / 10,
      peak_rss_mb:
        Math.round(Math.max(scale.rssAfterStartup, highWaterMb(scale.service.pid), ...peaks) * 10) / 10,
      single_get_ms: Math.round(getMs * 100) / 100,
      single_list_first_ms: Math.round(firstMs * 100) / 100,
      single_list_last_ms: Math.round(lastMs * 100) / 100,
      single_get_after_change_ms: Math.round(getChangedMs * 100) / 100,
      single_list_first_after_change_ms: Math.round(firstChangedMs * 100) / 100,
      single_list_last_after_change_ms: Math.round(lastChangedMs * 100) / 100,
      toggle_p50_ms: Math.round(median(bigToggles) * 10) / 10,
      toggle_max_ms: Math.round(Math.max(...bigToggles) * 10) / 10,
      toggle_small_p50_ms: Math.round(median(smallToggles) * 10) / 10,
      toggle_small_max_ms: Math.round(Math.max(...smallToggles) * 10) / 10,
    };
    extra.scale = scaleFacts;
  }
  // Fanout after the rounds, with nothing else running: 1,000 streams, a change, until all have it.
  const fanouts: FanoutFacts[] = [];
  if (!scale && (!options.only || options.only.includes('fanout'))) {
    const stores = [sqlite, ...(postgres && !('skipped' in postgres) ? [postgres] : [])];
    for (const [i, store] of stores.entries()) {
      const name = i === 0 ? 'sqlite' : 'postgres';
      const facts = await measureFanout(name, store, options.mode === 'quick' ? 100 : 1000);
      log(`fanout (${name}): ${facts.subscribers} streams, p50 ${facts.p50_ms} ms, p99 ${facts.p99_ms} ms`);
      fanouts.push(facts);
    }
    extra.fanout = fanouts;
  }
  const goals = [
    ...targets(outcomes, scaleFacts),
    ...changesTargets(outcomes, fanouts),
    ...engineTargets(engine),
  ];
  const loadAtEnd = loadavg().map((n) => Math.round(n * 100) / 100);
  printReport(outcomes, goals, scaleFacts, notes, problems);

  const generatedAt = new Date().toISOString();
  const meta = {
    generated_at: generatedAt,
    mode: options.mode,
    settings: {
      rounds: options.rounds,
      duration_s: options.duration,
      warmup_s: options.warmup,
      connections: options.connections,
      seed: scale
        ? {
            rules: options.scale.rules,
            workspaces: options.scale.workspaces,
            rules_per_other_workspace: options.scale.rulesPerOtherWorkspace,
          }
        : {
            main_rules: options.seed.mainRules,
            other_workspaces: options.seed.otherWorkspaces,
            other_rules: options.seed.otherRules,
          },
      service_env: options.serviceEnv,
    },
    machine: {
      cpus: cpus().length,
      node: process.version,
      load_average_start: loadAtStart,
      load_average_end: loadAtEnd,
    },
  };
  const file = resolve(ROOT, options.out);
  writeJson(file, meta, outcomes, goals, { ...extra, notes, problems });
  if (file === resolve(ROOT, 'bench/results/latest.json')) {
    // A copy per run, to compare before and after a change.
    const copy = join(ROOT, 'bench/results', `${generatedAt.replace(/[:.]/g, '-')}-${options.mode}.json`);
    writeJson(copy, meta, outcomes, goals, { ...extra, notes, problems });
  }
  log(`wrote ${file}; load average now ${loadAtEnd.join(' ')}`);
}

main()
  .then(cleanUp)
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    // Stopped by a signal: the handler cleans up and exits; what failed meanwhile is its doing.
    if (interrupted) return;
    const usage =
      error instanceof Error &&
      /^ERR_PARSE_ARGS|^--/.test(`${(error as { code?: string }).code ?? error.message}`);
    const text = usage
      ? `${(error as Error).message} (see --help)`
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
    process.stderr.write(`bench failed: ${text}\n`);
    await cleanUp();
    process.exit(1);
  });
