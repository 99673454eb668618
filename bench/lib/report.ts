// Medians over rounds, the printed table, the targets (information, never an exit code) and
// the JSON file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { median, type Sample, type Scenario } from './load.js';

export interface Outcome {
  name: string;
  store: string;
  ceiling: Scenario['ceiling'];
  rounds: Sample[];
  rps: number;
  p50: number;
  p99: number;
  /** Peak over every round. */
  rssMb: number;
  cpuUs: number;
  ratio: number;
}

export function summarise(scenario: Scenario, rounds: Sample[]): Omit<Outcome, 'ratio'> {
  return {
    name: scenario.name,
    store: scenario.store,
    ceiling: scenario.ceiling,
    rounds,
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rssMb: Math.max(...rounds.map((r) => r.rssMb)),
    cpuUs: median(rounds.map((r) => r.cpuUs)),
  };
}

/**
 * a's rate over b's: the median of the rounds' ratios, each of two runs measured minutes apart at most,
 * so that a drift in the machine's load cancels out; the ratio of the medians when rounds do not pair.
 */
export function pairedRatio(a: Pick<Outcome, 'rounds' | 'rps'>, b: Pick<Outcome, 'rounds' | 'rps'>): number {
  if (a.rounds.length === 0 || a.rounds.length !== b.rounds.length) return a.rps / b.rps;
  return median(a.rounds.map((round, i) => round.rps / (b.rounds[i]?.rps ?? Number.NaN)));
}

/**
 * ratio_vs_ceiling: list scenarios against the list ceiling, writes (create-rule, update-rule) against
 * the durable-write ceiling of their own database, every other against the get ceiling.
 */
export function withRatios(outcomes: Omit<Outcome, 'ratio'>[]): Outcome[] {
  const ceilings = {
    get: outcomes.find((o) => o.name === 'ceiling-get'),
    list: outcomes.find((o) => o.name === 'ceiling-list'),
  };
  return outcomes.map((o) => {
    const ceiling =
      o.ceiling === 'create'
        ? outcomes.find((c) => c.name === 'ceiling-create' && c.store === o.store)
        : ceilings[o.ceiling];
    return { ...o, ratio: ceiling ? pairedRatio(o, ceiling) : Number.NaN };
  });
}

export interface Target {
  target: string;
  value: number;
  threshold: number;
  /** Whether the value must be at least (>=) or below (<=) the threshold. */
  direction: '>=' | '<=';
  met: boolean;
}

export interface ScaleFacts {
  rules_in_big_workspace: number;
  rules_total: number;
  workspaces: number;
  seed_s: number;
  db_mb: number;
  startup_ms: number;
  startup_ms_small_db: number;
  rss_after_startup_mb: number;
  peak_rss_mb: number;
  /** Median of 10 requests sent one at a time, after the rounds. */
  single_get_ms: number;
  single_list_first_ms: number;
  single_list_last_ms: number;
  /** The same, each right after a write: built by the database, not served from memory. */
  single_get_after_change_ms: number;
  single_list_first_after_change_ms: number;
  single_list_last_after_change_ms: number;
  /** Status toggles sent one at a time (20: 10 rules on and off), in the big workspace and in the small one. */
  toggle_p50_ms: number;
  toggle_max_ms: number;
  toggle_small_p50_ms: number;
  toggle_small_max_ms: number;
}

/** The targets of the issue that this run's figures can answer. */
/** A list of targets and the function that adds one (nothing when its value could not be measured). */
export function targetList(): [
  Target[],
  (...args: [string, number | undefined, number, Target['direction']]) => void,
] {
  const list: Target[] = [];
  const add = (
    target: string,
    value: number | undefined,
    threshold: number,
    direction: Target['direction'],
  ) => {
    if (value === undefined || Number.isNaN(value)) return;
    list.push({
      target,
      value,
      threshold,
      direction,
      met: direction === '>=' ? value >= threshold : value <= threshold,
    });
  };
  return [list, add];
}

export function targets(outcomes: Outcome[], scale: ScaleFacts | undefined): Target[] {
  const find = (name: string, store = 'sqlite') => outcomes.find((o) => o.name === name && o.store === store);
  const [list, add] = targetList();
  const get = find('get-rule');
  const create = find('create-rule');
  const peerGet = find('peer-get', 'json-server');
  const peerCreate = find('peer-create', 'json-server');
  add('get-rule / ceiling-get (sqlite)', get?.ratio, 0.6, '>=');
  add('list-rules / ceiling-list (sqlite)', find('list-rules')?.ratio, 0.7, '>=');
  add('get-rule / json-server GET', get && peerGet && pairedRatio(get, peerGet), 5, '>=');
  add('create-rule / json-server POST', create && peerCreate && pairedRatio(create, peerCreate), 50, '>=');
  if (peerGet) {
    const service = outcomes.filter((o) => o.store === 'sqlite' && !o.name.startsWith('scale-'));
    const peer = outcomes.filter((o) => o.store === 'json-server');
    add(
      'service peak RSS / json-server peak RSS',
      Math.max(...service.map((o) => o.rssMb)) / Math.max(...peer.map((o) => o.rssMb)),
      1,
      '<=',
    );
  }
  // Issue 40's read targets: get-rule and list-rules near their ceilings on both databases.
  add('get-rule / ceiling-get (postgres)', find('get-rule', 'postgres')?.ratio, 0.5, '>=');
  // A write against a write: the bare server's durable insert of the same body (ceiling-create).
  for (const [store, threshold] of [
    ['sqlite', 0.35],
    ['postgres', 0.25],
  ] as const) {
    for (const name of ['create-rule', 'update-rule']) {
      add(`${name} / ceiling-create (${store})`, find(name, store)?.ratio, threshold, '>=');
    }
  }
  const scaleGet = find('scale-get-rule');
  const first = find('scale-list-first');
  const last = find('scale-list-last');
  add('scale-get-rule / get-rule (small database)', scaleGet && get && pairedRatio(scaleGet, get), 0.9, '>=');
  // Cost per request: one request at a time; under 50 connections a slow page may finish too few to count.
  add(
    'last page / first page, built after a change, one at a time (scale)',
    scale && scale.single_list_last_after_change_ms / scale.single_list_first_after_change_ms,
    3,
    '<=',
  );
  add(
    'last page / first page, rate at 50 connections (scale)',
    first && last && pairedRatio(first, last),
    3,
    '<=',
  );
  add(
    'status toggle p50, big workspace / small workspace (scale)',
    scale && scale.toggle_p50_ms / scale.toggle_small_p50_ms,
    3,
    '<=',
  );
  if (scale) add('peak RSS at scale (MB)', scale.peak_rss_mb, 500, '<=');
  return list;
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

function rate(value: number): string {
  return value >= 100 ? fixed(value, 0) : fixed(value, 1);
}

/** Spread of the per-round rates around their median, in percent. */
function spread(o: Outcome): string {
  if (o.rounds.length < 2) return '-';
  const rates = o.rounds.map((r) => r.rps);
  return `${fixed(((Math.max(...rates) - Math.min(...rates)) / o.rps) * 100, 0)}%`;
}

function failures(o: Outcome): string {
  const non2xx = o.rounds.reduce((n, r) => n + r.non2xx, 0);
  const errors = o.rounds.reduce((n, r) => n + r.errors + r.timeouts, 0);
  return non2xx + errors === 0 ? '0' : `${non2xx}/${errors}`;
}

export function table(outcomes: Outcome[]): string {
  const header = [
    'scenario',
    'store',
    'req/s',
    'spread',
    'p50 ms',
    'p99 ms',
    'x ceiling',
    'RSS MB',
    'CPU us/req',
    'bad',
  ];
  const rows = outcomes.map((o) => [
    o.name,
    o.store,
    rate(o.rps),
    spread(o),
    fixed(o.p50, 2),
    fixed(o.p99, 2),
    fixed(o.ratio, 3),
    fixed(o.rssMb, 1),
    fixed(o.cpuUs, 0),
    failures(o),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function targetLines(list: Target[]): string {
  const width = Math.max(0, ...list.map((t) => t.target.length));
  return list
    .map(
      (t) =>
        `  ${t.met ? 'met    ' : 'NOT met'}  ${t.target.padEnd(width)}  ${fixed(t.value, t.value >= 100 ? 0 : 3)} (target ${t.direction} ${t.threshold})`,
    )
    .join('\n');
}

const round = (value: number, digits: number) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null;

export function writeJson(
  file: string,
  meta: Record<string, unknown>,
  outcomes: Outcome[],
  list: Target[],
  extra: Record<string, unknown>,
) {
  const document = {
    ...meta,
    scenarios: outcomes.map((o) => ({
      name: o.name,
      store: o.store,
      rps: round(o.rps, 1),
      p50_ms: round(o.p50, 3),
      p99_ms: round(o.p99, 3),
      ratio_vs_ceiling: round(o.ratio, 3),
      rss_mb: round(o.rssMb, 1),
    })),
    details: outcomes.map((o) => ({
      name: o.name,
      store: o.store,
      rounds_rps: o.rounds.map((r) => round(r.rps, 1)),
      rounds_p50_ms: o.rounds.map((r) => round(r.p50, 3)),
      rounds_p99_ms: o.rounds.map((r) => round(r.p99, 3)),
      cpu_us_per_request: round(o.cpuUs, 1),
      non_2xx: o.rounds.reduce((n, r) => n + r.non2xx, 0),
      errors: o.rounds.reduce((n, r) => n + r.errors, 0),
      timeouts: o.rounds.reduce((n, r) => n + r.timeouts, 0),
      status_codes: o.rounds.reduce<Record<string, number>>((all, r) => {
        for (const [code, n] of Object.entries(r.statusCodes)) all[code] = (all[code] ?? 0) + n;
        return all;
      }, {}),
    })),
    targets: list.map((t) => ({ ...t, value: round(t.value, 3) })),
    ...extra,
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

export function printReport(
  outcomes: Outcome[],
  goals: ReturnType<typeof targets>,
  scale: ScaleFacts | undefined,
  notes: string[],
  problems: string[],
): void {
  const out: string[] = ['', table(outcomes), ''];
  out.push(
    'req/s: 2xx answers per second, median of the rounds; spread: (max - min) / median over the rounds;',
    "x ceiling: req/s over the ceiling's (list scenarios: ceiling-list; create-rule and update-rule:",
    'ceiling-create of their database); RSS: peak of the process under load; CPU us/req: CPU time of',
    'that process per 2xx answer; bad: non-2xx / errors + timeouts.',
  );
  if (scale) {
    out.push(
      '',
      `scale: ${scale.rules_in_big_workspace} rules in one workspace, ${scale.rules_total} in ${scale.workspaces} workspaces; ` +
        `database ${scale.db_mb} MB, seeded in ${scale.seed_s} s; start-up ${scale.startup_ms} ms ` +
        `(small database ${scale.startup_ms_small_db} ms); RSS after start-up ${scale.rss_after_startup_mb} MB, peak ${scale.peak_rss_mb} MB`,
      `one request at a time (median of 10): get ${scale.single_get_ms} ms, first page ${scale.single_list_first_ms} ms, last page ${scale.single_list_last_ms} ms`,
      `  each right after a write (read from the database, not kept): get ${scale.single_get_after_change_ms} ms, first page ${scale.single_list_first_after_change_ms} ms, last page ${scale.single_list_last_after_change_ms} ms`,
      `status toggle one at a time (20): big workspace p50 ${scale.toggle_p50_ms} ms, max ${scale.toggle_max_ms} ms; ` +
        `small workspace p50 ${scale.toggle_small_p50_ms} ms, max ${scale.toggle_small_max_ms} ms; service peak RSS ${scale.peak_rss_mb} MB`,
    );
  }
  out.push('', 'targets of the issue (information only, never an exit code):', targetLines(goals));
  for (const note of notes) out.push(`note: ${note}`);
  if (problems.length > 0) out.push('', 'problems seen:', ...problems.map((p) => `  ${p}`));
  process.stdout.write(`${out.join('\n')}\n`);
}
