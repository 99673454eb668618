// One measurement: autocannon against one process for a while, with that process's peak memory and
// CPU time over the same interval.
import autocannon, { type Request } from 'autocannon';
import { cpuSeconds, PeakMemory } from './processes.js';

export interface Scenario {
  name: string;
  store: string;
  /** Which ceiling the rate is compared with (`create`: ceiling-create of the same store). */
  ceiling: 'get' | 'list' | 'create';
  target: { url: string; pid: number };
  /** The requests each connection sends in turn, over and over. */
  requests: Request[];
  /** Seconds before a request counts as timed out (slow list pages on large databases). */
  timeout?: number;
  /** The one status that counts as answered (e.g. 304 for conditional reads); any 2xx otherwise. */
  okStatus?: number;
}

export interface Sample {
  /** 2xx answers per second: an error answered fast does not count. */
  rps: number;
  p50: number;
  p99: number;
  rssMb: number;
  /** CPU time of the process under load per 2xx answer, in microseconds. */
  cpuUs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

export async function measure(scenario: Scenario, seconds: number, connections: number): Promise<Sample> {
  const { url, pid } = scenario.target;
  const memory = new PeakMemory(pid);
  memory.begin();
  const cpuBefore = cpuSeconds(pid);
  // autocannon's own histogram keeps whole milliseconds; the exact times of 2xx answers are kept here.
  let latencies = new Float64Array(65_536);
  let count = 0;
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: scenario.timeout ?? 10,
    requests: scenario.requests,
  });
  const { okStatus } = scenario;
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (okStatus ? status !== okStatus : status < 200 || status > 299) return;
    if (count === latencies.length) {
      const larger = new Float64Array(latencies.length * 2);
      larger.set(latencies);
      latencies = larger;
    }
    latencies[count++] = ms;
  });
  const result = await instance;
  const cpu = cpuSeconds(pid) - cpuBefore;
  const rssMb = memory.end();
  const sorted = latencies.subarray(0, count).sort();
  const ok = okStatus ? (result.statusCodeStats[okStatus]?.count ?? 0) : result['2xx'];
  return {
    rps: ok / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    rssMb,
    cpuUs: ok > 0 ? (cpu * 1e6) / ok : Number.NaN,
    // With okStatus, the answers that are not it.
    non2xx: okStatus ? result['2xx'] + result.non2xx - ok : result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count: n }]) => [code, n]),
    ),
  };
}

export function median(values: number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Median milliseconds of `count` requests sent one after another: the cost of one request, unloaded.
 * `before` runs ahead of each, untimed (a write, so that a cached answer cannot serve the request).
 */
export async function sequentialMs(
  baseUrl: string,
  request: Request,
  count = 10,
  before?: () => Promise<void>,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    await before?.();
    const began = performance.now();
    const response = await fetch(`${baseUrl}${request.path}`, { headers: request.headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET ${request.path} answered ${response.status}`);
    times.push(performance.now() - began);
  }
  return median(times);
}
