// The command line of `npm run bench`: the mode (--quick, --scale or the standard run) and its knobs.
import { parseArgs } from 'node:util';

export type Mode = 'standard' | 'quick' | 'scale';

export interface Options {
  mode: Mode;
  rounds: number;
  /** Seconds of load per scenario and round. */
  duration: number;
  /** Seconds of unrecorded load per scenario before the first round (JIT, caches). */
  warmup: number;
  connections: number;
  postgres: boolean;
  peer: boolean;
  /** Scenario names to run (every other one is skipped); the ceilings always run. */
  only: string[] | undefined;
  build: 'auto' | 'always' | 'never';
  /** Rules of the main workspace and of each other workspace in the seeded database. */
  seed: { mainRules: number; otherWorkspaces: number; otherRules: number };
  scale: { rules: number; workspaces: number; rulesPerOtherWorkspace: number };
  /** Extra environment for the service processes (KEY=VALUE), e.g. DB_POOL_SIZE=20. */
  serviceEnv: Record<string, string>;
  out: string;
  /** Only the engine (in process) and trace scenarios. */
  engineOnly: boolean;
  /** Only the import scenario. */
  importOnly: boolean;
  proxyOnly: boolean;
  /** Only the noisy-neighbour scenario. */
  noisyOnly: boolean;
}

export const USAGE = `npm run bench [-- options]

  (no mode)           the standard run: every scenario, 5 rounds of 5 s, medians
  --quick             a smoke run for CI: small seed, 1 round of 1 s, no warm-up
  --scale             1,000,000 rules in one workspace and 10,000 workspaces (SQLite)
  --rounds N          rounds per scenario
  --duration S        seconds of load per scenario and round
  --warmup S          seconds of unrecorded load per scenario before the first round
  --connections N     concurrent connections (default 50)
  --only a,b          run only these scenarios (names as in the table; ceilings always run)
  --engine            only the rule engine (in process) and the trace scenarios (all, acted, none)
  --import            only rulekeeper import of 10,000 and 100,000 records (1,000 with --quick)
  --noisy-neighbour   only noisy-neighbour: workspace B's get-rule p99 and /healthz, quiet and while workspace A runs the largest trace, a 100,000-record import and 20 change streams, on SQLite then PostgreSQL
  --proxy             only rulekeeper proxy: 0, 100 and 1,000 rules (0 only with --quick), HTTP and HTTPS, against direct, a bare Node proxy and mitmdump
  --no-postgres       skip PostgreSQL even when a server answers
  --no-peer           skip json-server
  --scale-rules N     rules in the big workspace of --scale (default 1000000)
  --scale-workspaces N  workspaces in --scale (default 10000)
  --service-env K=V   extra environment for the service (repeatable)
  --build | --no-build  always or never compile src/ first (default: when dist/ is older)
  --out FILE          where to write the JSON (default bench/results/latest.json)`;

function positive(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new Error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

export function readOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      scale: { type: 'boolean' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      engine: { type: 'boolean' },
      import: { type: 'boolean' },
      proxy: { type: 'boolean' },
      'noisy-neighbour': { type: 'boolean' },
      'no-postgres': { type: 'boolean' },
      'no-peer': { type: 'boolean' },
      'scale-rules': { type: 'string' },
      'scale-workspaces': { type: 'string' },
      'service-env': { type: 'string', multiple: true },
      build: { type: 'boolean' },
      'no-build': { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.quick && values.scale) throw new Error('--quick and --scale do not go together');
  const mode: Mode = values.quick ? 'quick' : values.scale ? 'scale' : 'standard';
  const quick = mode === 'quick';
  const serviceEnv: Record<string, string> = {};
  for (const pair of values['service-env'] ?? []) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--service-env wants KEY=VALUE, got "${pair}"`);
    serviceEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    mode,
    rounds: Math.round(positive('rounds', values.rounds, quick ? 1 : mode === 'scale' ? 3 : 5)),
    duration: positive('duration', values.duration, quick ? 1 : 5),
    warmup: positive('warmup', values.warmup, quick ? 0 : 2, true),
    connections: Math.round(positive('connections', values.connections, 50)),
    postgres: !values['no-postgres'],
    peer: !values['no-peer'],
    only: values.engine
      ? ['trace', 'trace-acted', 'trace-none']
      : values.only
          ?.split(',')
          .map((name) => name.trim())
          .filter(Boolean),
    engineOnly: values.engine ?? false,
    importOnly: values.import ?? false,
    proxyOnly: values.proxy ?? false,
    noisyOnly: values['noisy-neighbour'] ?? false,
    build: values.build ? 'always' : values['no-build'] ? 'never' : 'auto',
    seed: quick
      ? { mainRules: 200, otherWorkspaces: 2, otherRules: 50 }
      : { mainRules: 3000, otherWorkspaces: 4, otherRules: 500 },
    scale: {
      rules: Math.round(positive('scale-rules', values['scale-rules'], 1_000_000)),
      workspaces: Math.round(positive('scale-workspaces', values['scale-workspaces'], 10_000)),
      rulesPerOtherWorkspace: 10,
    },
    serviceEnv,
    out: values.out ?? 'bench/results/latest.json',
  };
}
