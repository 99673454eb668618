// The scenarios of following changes: `not-modified` (a poller's list with If-None-Match, answered
// 304) and `fanout` (1,000 change streams on one instance, one change: how long until every stream
// has it), with their targets.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Scenario } from './load.js';
import { median } from './load.js';
import { type Outcome, type Target, targetList } from './report.js';
import { headersFor, type Workspace } from './seed-api.js';
import type { Store } from './setups.js';

/** A workspace no scenario writes: its revision, and so its lists' ETags, hold for the whole run. */
function quietWorkspace({ seeded }: Store): Workspace {
  const quiet = seeded.others[0];
  if (!quiet) throw new Error('the seed has no workspace besides main and writes');
  return quiet;
}

/** The list of list-rules, asked again with the ETag it was answered with: 304 every time. */
export async function notModifiedScenario(store: string, seeded: Store): Promise<Scenario> {
  const { key } = quietWorkspace(seeded);
  const path = '/v1/rules?pageSize=100';
  const first = await fetch(`${seeded.service.url}${path}`, { headers: headersFor(key) });
  await first.arrayBuffer();
  const etag = first.headers.get('etag');
  if (!first.ok || !etag) throw new Error(`not-modified: the list answered ${first.status} without an ETag`);
  return {
    name: 'not-modified',
    store,
    ceiling: 'list',
    okStatus: 304,
    target: { url: seeded.service.url, pid: seeded.service.pid },
    requests: [{ method: 'GET', path, headers: { ...headersFor(key), 'if-none-match': etag } }],
  };
}

export interface FanoutFacts {
  store: string;
  subscribers: number;
  changes: number;
  /** Milliseconds from sending the write until a stream has its event: over every stream and change. */
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Seconds to open every stream. */
  open_s: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`fanout: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Opens `subscribers` streams on the quiet workspace, then makes `changes` changes one at a time. */
export async function measureFanout(
  store: string,
  seeded: Store,
  subscribers = 1000,
  changes = 5,
): Promise<FanoutFacts> {
  const { key, ruleIds } = quietWorkspace(seeded);
  const url = new URL('/v1/changes/stream', seeded.service.url);
  let marker = '';
  let sentAt = 0;
  const times: number[] = [];
  const streams: {
    response?: IncomingMessage;
    open: boolean;
    seen: string;
    tail: string;
    destroy(): void;
  }[] = [];
  const began = performance.now();
  for (let i = 0; i < subscribers; i++) {
    const stream = { open: false, seen: '', tail: '', destroy: () => {} };
    const req = httpRequest(url, { headers: headersFor(key), agent: false }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        stream.open = true;
        const text = stream.tail + chunk;
        if (marker && stream.seen !== marker && text.includes(marker)) {
          stream.seen = marker;
          times.push(performance.now() - sentAt);
        }
        stream.tail = text.slice(-64);
      });
      response.on('error', () => {});
    });
    req.on('error', () => {});
    req.end();
    stream.destroy = () => req.destroy();
    streams.push(stream);
  }
  try {
    await until(() => streams.every((s) => s.open), 60_000, 'every stream to open');
    const openSeconds = (performance.now() - began) / 1000;
    const ruleId = ruleIds[0] as string;
    for (let n = 0; n < changes; n++) {
      const before = await fetch(`${seeded.service.url}/v1/changes?limit=1`, { headers: headersFor(key) });
      const { latest } = (await before.json()) as { latest: number };
      const count = times.length;
      marker = `id: ${latest + 1}\n`;
      sentAt = performance.now();
      const put = await fetch(`${seeded.service.url}/v1/rules/${ruleId}`, {
        method: 'PUT',
        headers: headersFor(key, true),
        body: JSON.stringify({ status: n % 2 ? 'Active' : 'Inactive' }),
      });
      await put.arrayBuffer();
      if (!put.ok) throw new Error(`fanout: the change answered ${put.status}`);
      await until(() => times.length === count + subscribers, 30_000, `change ${n} on every stream`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      store,
      subscribers,
      changes,
      p50_ms: round(median(sorted)),
      p99_ms: round(percentile(sorted, 0.99)),
      max_ms: round(sorted.at(-1) ?? Number.NaN),
      open_s: Math.round(openSeconds * 10) / 10,
    };
  } finally {
    for (const s of streams) s.destroy();
  }
}

/** The targets of these scenarios. */
export function changesTargets(outcomes: Outcome[], fanouts: FanoutFacts[]): Target[] {
  const [list, add] = targetList();
  for (const store of ['sqlite', 'postgres']) {
    const find = (name: string) => outcomes.find((o) => o.name === name && o.store === store);
    add(`not-modified / ceiling-list (${store})`, find('not-modified')?.ratio, 0.7, '>=');
    if (store === 'postgres')
      add('list-rules / ceiling-list (postgres)', find('list-rules')?.ratio, 0.6, '>=');
    const fanout = fanouts.find((f) => f.store === store);
    add(`fanout p99 ms, ${fanout?.subscribers ?? 0} streams (${store})`, fanout?.p99_ms, 1000, '<=');
  }
  return list;
}
