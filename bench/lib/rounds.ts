// The rounds: every scenario once per round, in the same order each round, with a check after each
// that every process is still alive and the one under load is idle again.
import { measure, type Sample, type Scenario } from './load.js';
import { log } from './log.js';
import type { Options } from './options.js';
import { type Child, waitIdle } from './processes.js';
import { summarise, withRatios } from './report.js';

/** Errors and warnings the services logged (LOG_LEVEL=warn), as problems to report. */
export function loggedProblems(children: Child[]): string[] {
  return children.flatMap((child) =>
    child
      .output()
      .split('\n')
      .filter((line) => /"level":\s*(40|50|60)|Error|error/.test(line))
      .slice(0, 5)
      .map((line) => `${child.name}: ${line.slice(0, 400)}`),
  );
}

function describeFailures(scenario: Scenario, sample: Sample): string | undefined {
  if (sample.non2xx + sample.errors + sample.timeouts === 0) return undefined;
  const codes = Object.entries(sample.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n}x${code}`)
    .join(' ');
  return `${scenario.name} (${scenario.store}): ${sample.non2xx} non-2xx [${codes}], ${sample.errors} errors, ${sample.timeouts} timeouts`;
}

/** Runs every scenario once per round, in the same order each round (A B C A B C …). */
export async function runRounds(order: Scenario[], options: Options, services: Child[], problems: string[]) {
  const checkAlive = (scenario: Scenario) => {
    for (const child of services) {
      const { exitCode, signalCode } = child.child;
      if (exitCode !== null || signalCode !== null) {
        const how = signalCode ? `killed by ${signalCode}` : `exited with code ${exitCode}`;
        throw new Error(
          `${child.name} (pid ${child.pid}) ${how} during ${scenario.name}; its output:\n${child.output()}`,
        );
      }
    }
  };
  const run = async (scenario: Scenario, seconds: number) => {
    let sample: Sample;
    try {
      sample = await measure(scenario, seconds, options.connections);
    } catch (error) {
      // A process gone from /proc: say which, how and what it printed.
      await new Promise((resolve) => setTimeout(resolve, 100));
      checkAlive(scenario);
      throw error;
    }
    const failure = describeFailures(scenario, sample);
    if (failure) {
      problems.push(failure);
      log(`  ! ${failure}`);
    }
    checkAlive(scenario);
    const waited = await waitIdle(scenario.target.pid);
    if (waited > 2000) {
      log(
        `  (${scenario.name} ${scenario.store} kept working ${(waited / 1000).toFixed(1)} s after the load stopped)`,
      );
    }
    return sample;
  };
  if (options.warmup > 0) {
    log(`warm-up: ${options.warmup} s per scenario`);
    for (const scenario of order) await run(scenario, options.warmup);
  }
  const samples = new Map<Scenario, Sample[]>(order.map((scenario) => [scenario, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of order) {
      const sample = await run(scenario, options.duration);
      samples.get(scenario)?.push(sample);
      const figures = `${sample.rps.toFixed(0).padStart(7)} req/s  p50 ${sample.p50.toFixed(2)} ms  p99 ${sample.p99.toFixed(2)} ms`;
      log(
        `round ${round}/${options.rounds}  ${scenario.name.padEnd(16)} ${scenario.store.padEnd(11)} ${figures}`,
      );
    }
  }
  return withRatios(order.map((scenario) => summarise(scenario, samples.get(scenario) ?? [])));
}
