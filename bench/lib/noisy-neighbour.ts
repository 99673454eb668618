// The noisy-neighbour scenario (`npm run bench -- --noisy-neighbour`): workspace B reads one of its rules,
// one request at a time, and /healthz is asked alongside, first while nothing else runs (quiet), then
// while workspace A runs the largest trace allowed (again and again), the largest import allowed
// (100,000 records) and 20 open change streams (noisy). Figures only: B's p99 noisy against quiet (target
// at most 3×) and /healthz (target under 100 ms); nothing is asserted.
import { mixedRule } from './engine-scenario.js';
import { highWaterMb, startService } from './processes.js';
import { type Target, targetList } from './report.js';
import { headersFor, issueKey, pool, post } from './seed-api.js';

export interface NoisyFacts {
  store: string;
  quiet_get_p50_ms: number;
  quiet_get_p99_ms: number;
  noisy_get_p50_ms: number;
  noisy_get_p99_ms: number;
  /** B's get-rule p99, noisy over quiet. */
  get_p99_ratio: number;
  /** The same with A's traces and streams only, before the import starts. */
  trace_only_get_p99_ms: number;
  trace_only_get_p99_ratio: number;
  trace_only_health_p99_ms: number;
  trace_only_health_max_ms: number;
  quiet_health_p99_ms: number;
  noisy_health_p99_ms: number;
  noisy_health_max_ms: number;
  noisy_seconds: number;
  /** A's traces during the noisy phase, by status (503: stopped at the time limit). */
  trace_statuses: Record<string, number>;
  import_status: number;
  import_records: number;
  import_seconds: number;
  streams: number;
  service_peak_rss_mb: number;
  /** B's and /healthz's requests that got no 200, by path and what happened. */
  failures: Record<string, number>;
}

const QUIET_SECONDS = 10;
const IMPORT_RECORDS = 100_000;
const STREAMS = 20;
const TRACE_ONLY_SECONDS = 20;

/** The value at `fraction` of the sorted values (1: the largest, which Math.max(...values) cannot take
 * past some 100,000 values: the arguments overflow the stack). */
export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}
const ms = (value: number) => Math.round(value * 10) / 10;

/** Requests that got no 200 (refused, or the connection lost): counted, their time kept as latency. */
const failures: Record<string, number> = {};

/** Latencies of `url`, asked one request at a time until `done()`. */
async function sample(url: string, headers: Record<string, string>, done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!done()) {
    const began = performance.now();
    let failure: string | undefined;
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) failure = `${new URL(url).pathname} ${response.status}`;
    } catch {
      failure = `${new URL(url).pathname} connection lost`;
    }
    if (failure) failures[failure] = (failures[failure] ?? 0) + 1;
    latencies.push(performance.now() - began);
  }
  return latencies;
}

/** The largest trace allowed: 1,000 distinct patterns just under the program limit, a 16 KiB URL. */
function largestTrace(): unknown {
  const rule = (r: number) => ({
    name: `slow ${r}`,
    ruleType: 'Cancel',
    status: 'Active',
    pairs: Array.from({ length: 100 }, (_, k) => {
      const i = r * 100 + k;
      const value = `\\w{1,${300 + (i % 150)}}\\d{${40 + Math.floor(i / 150)}}`;
      return { source: { key: 'Url', operator: 'Matches', value } };
    }),
  });
  return {
    request: { url: `https://a.example/${'a'.repeat(16_384 - 19)}` },
    rules: Array.from({ length: 10 }, (_, r) => rule(r)),
  };
}

/** A Requestly-shaped file of `records` rules (no groups), as POST /v1/import takes it. */
function importBody(records: number): string {
  const items = Array.from({ length: records }, (_, n) => {
    const rule = mixedRule(n);
    return { ...rule, objectType: 'rule', id: `${rule.ruleType}_n${n}` };
  });
  return JSON.stringify(items);
}

/** Opens a change stream and reads it until aborted. */
async function openStream(url: string, key: string, signal: AbortSignal): Promise<void> {
  try {
    const response = await fetch(`${url}/v1/changes/stream`, { headers: headersFor(key), signal });
    if (!response.body) return;
    for await (const _chunk of response.body) {
      // read and dropped: a client that keeps up
    }
  } catch {
    // aborted at the end of the scenario
  }
}

export async function measureNoisyNeighbour(
  databaseUrl: string,
  serviceEnv: Record<string, string>,
  log: (line: string) => void,
): Promise<NoisyFacts> {
  const service = await startService('noisy-neighbour', databaseUrl, serviceEnv);
  try {
    const a = await issueKey(databaseUrl, 'noisy-a', 'noisy-a-admin');
    const b = await issueKey(databaseUrl, 'noisy-b', 'noisy-b-admin');
    const rules = await pool(100, 8, (n) => post(`${service.url}/v1/rules`, b.key, mixedRule(n)));
    const ruleUrl = `${service.url}/v1/rules/${String(rules[50]?.id)}`;
    const healthUrl = `${service.url}/healthz`;
    const body = importBody(IMPORT_RECORDS);
    log(
      `noisy-neighbour: import body ${(body.length / 1024 / 1024).toFixed(1)} MiB, ${IMPORT_RECORDS} records`,
    );

    // Quiet: B alone (and warm: the first few requests are not counted).
    let stop = Date.now() + 2000;
    await sample(ruleUrl, headersFor(b.key), () => Date.now() > stop);
    stop = Date.now() + QUIET_SECONDS * 1000;
    const [quietGet, quietHealth] = await Promise.all([
      sample(ruleUrl, headersFor(b.key), () => Date.now() > stop),
      sample(healthUrl, {}, () => Date.now() > stop),
    ]);

    // Noisy: A's streams, traces and import, while B reads as before.
    const streams = new AbortController();
    const streamsDone = Promise.all(
      Array.from({ length: STREAMS }, () => openStream(service.url, a.key, streams.signal)),
    );
    let noisy = true;
    const traceStatuses: Record<string, number> = {};
    const trace = JSON.stringify(largestTrace());
    const traces = (async () => {
      while (noisy) {
        let status = 'connection lost';
        try {
          const response = await fetch(`${service.url}/v1/trace`, {
            method: 'POST',
            headers: headersFor(a.key, true),
            body: trace,
          });
          await response.arrayBuffer();
          status = String(response.status);
        } catch {
          // a kept-alive connection the service closed as it was reused: counted, and sent again
        }
        traceStatuses[status] = (traceStatuses[status] ?? 0) + 1;
      }
    })();
    // First A's traces and streams alone, then the import too.
    stop = Date.now() + TRACE_ONLY_SECONDS * 1000;
    const [traceGet, traceHealth] = await Promise.all([
      sample(ruleUrl, headersFor(b.key), () => Date.now() > stop),
      sample(healthUrl, {}, () => Date.now() > stop),
    ]);
    const began = performance.now();
    const imported = (async () => {
      const response = await fetch(`${service.url}/v1/import`, {
        method: 'POST',
        headers: headersFor(a.key, true),
        body,
      });
      await response.arrayBuffer();
      return { status: response.status, seconds: (performance.now() - began) / 1000 };
    })();
    // At least as long as the import, and long enough for a few traces to reach their time limit.
    let importDone = false;
    const importResult = imported.finally(() => {
      importDone = true;
    });
    const minimum = began + 30_000;
    const over = () => importDone && performance.now() > minimum;
    const [noisyGet, noisyHealth] = await Promise.all([
      sample(ruleUrl, headersFor(b.key), over),
      sample(healthUrl, {}, over),
    ]);
    const noisySeconds = (performance.now() - began) / 1000;
    noisy = false;
    const { status: importStatus, seconds: importSeconds } = await importResult;
    await traces;
    streams.abort();
    await streamsDone;

    const facts: NoisyFacts = {
      store: databaseUrl.startsWith('sqlite') ? 'sqlite' : 'postgres',
      quiet_get_p50_ms: ms(percentile(quietGet, 0.5)),
      quiet_get_p99_ms: ms(percentile(quietGet, 0.99)),
      noisy_get_p50_ms: ms(percentile(noisyGet, 0.5)),
      noisy_get_p99_ms: ms(percentile(noisyGet, 0.99)),
      get_p99_ratio: Math.round((percentile(noisyGet, 0.99) / percentile(quietGet, 0.99)) * 100) / 100,
      trace_only_get_p99_ms: ms(percentile(traceGet, 0.99)),
      trace_only_get_p99_ratio:
        Math.round((percentile(traceGet, 0.99) / percentile(quietGet, 0.99)) * 100) / 100,
      trace_only_health_p99_ms: ms(percentile(traceHealth, 0.99)),
      trace_only_health_max_ms: ms(percentile(traceHealth, 1)),
      quiet_health_p99_ms: ms(percentile(quietHealth, 0.99)),
      noisy_health_p99_ms: ms(percentile(noisyHealth, 0.99)),
      noisy_health_max_ms: ms(percentile(noisyHealth, 1)),
      noisy_seconds: Math.round(noisySeconds),
      trace_statuses: traceStatuses,
      import_status: importStatus,
      import_records: IMPORT_RECORDS,
      import_seconds: Math.round(importSeconds * 10) / 10,
      streams: STREAMS,
      service_peak_rss_mb: Math.round(highWaterMb(service.pid)),
      failures: { ...failures },
    };
    log(
      `noisy-neighbour (${facts.store}): with the import too: B get-rule p50/p99 quiet ${facts.quiet_get_p50_ms}/${facts.quiet_get_p99_ms} ms (${quietGet.length} requests), noisy ${facts.noisy_get_p50_ms}/${facts.noisy_get_p99_ms} ms (${noisyGet.length}): p99 ${facts.get_p99_ratio}×`,
    );
    log(
      `noisy-neighbour (${facts.store}): with A's traces and streams only (${TRACE_ONLY_SECONDS} s): B get-rule p99 ${facts.trace_only_get_p99_ms} ms (${traceGet.length} requests): ${facts.trace_only_get_p99_ratio}×; /healthz p99 ${facts.trace_only_health_p99_ms} ms, max ${facts.trace_only_health_max_ms} ms`,
    );
    log(
      `noisy-neighbour (${facts.store}): /healthz p99 quiet ${facts.quiet_health_p99_ms} ms, noisy ${facts.noisy_health_p99_ms} ms (max ${facts.noisy_health_max_ms} ms, ${noisyHealth.length} requests)`,
    );
    log(
      `noisy-neighbour (${facts.store}): A's import ${importStatus} in ${facts.import_seconds} s; traces ${JSON.stringify(traceStatuses)}; ${STREAMS} streams; ${facts.noisy_seconds} s noisy; service peak RSS ${facts.service_peak_rss_mb} MB; B's failures ${JSON.stringify(facts.failures)}`,
    );
    return facts;
  } finally {
    await service.stop();
  }
}

export function noisyTargets(facts: NoisyFacts[]): Target[] {
  const [list, add] = targetList();
  for (const fact of facts) {
    add(`noisy-neighbour: B get-rule p99 noisy/quiet (${fact.store})`, fact.get_p99_ratio, 3, '<=');
    add(
      `noisy-neighbour: the same, A's traces and streams only (${fact.store})`,
      fact.trace_only_get_p99_ratio,
      3,
      '<=',
    );
    add(
      `noisy-neighbour: /healthz max ms, A's traces and streams only (${fact.store})`,
      fact.trace_only_health_max_ms,
      100,
      '<=',
    );
    add(
      `noisy-neighbour: /healthz p99 ms while A works (${fact.store})`,
      fact.noisy_health_p99_ms,
      100,
      '<=',
    );
    add(
      `noisy-neighbour: /healthz max ms while A works (${fact.store})`,
      fact.noisy_health_max_ms,
      100,
      '<=',
    );
  }
  return list;
}
