// rulekeeper/runtime trusts the server with its rules, not with its memory or its life: an event
// without end, an answer without end, a change that is not JSON, a revision that never ends. Each is
// cut at its bound (the hostile server sees the connection closed long before it ran out of bytes to
// send), reported as the runtime's problem, and followed by a slower and slower retry, never a crash.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type RuntimeStatus } from '../../src/runtime/index.js';

type Mode = 'event-without-end' | 'answer-without-end' | 'not-json' | 'revision-without-end';

/** Whatever it sends, it sends this much at most: far more than any bound under test. */
const GIVE_UP_BYTES = 256 * 1024 * 1024;
const CHUNK = 'x'.repeat(64 * 1024);

let server: Server;
let base: string;
let mode: Mode;
/** What the server saw: stream requests, and whether each endless answer was cut by the client. */
const seen = { streams: 0, cut: [] as { written: number; closedByClient: boolean }[] };
const runtimes: Runtime[] = [];

/** Writes `first`, then `more()` until the client goes away or GIVE_UP_BYTES went out. */
async function endless(res: ServerResponse, first: string, more: () => string): Promise<void> {
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  let written = 0;
  res.write(first);
  while (!closed && written < GIVE_UP_BYTES) {
    const text = more();
    written += text.length;
    if (!res.write(text)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  seen.cut.push({ written, closedByClient: closed });
  res.end();
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const { pathname } = new URL(req.url ?? '/', 'http://x');
  const json = { 'content-type': 'application/json', 'rulekeeper-revision': '1' };
  if (pathname === '/v1/rules' && mode === 'answer-without-end') {
    res.writeHead(200, json);
    void endless(res, '{"success":true,"data":[', () => `{"id":"${CHUNK}"},`);
    return;
  }
  if (pathname === '/v1/rules' || pathname === '/v1/groups') {
    res.writeHead(200, json).end('{"success":true,"data":[],"nextOffset":null}');
    return;
  }
  if (pathname !== '/v1/changes/stream') {
    res.writeHead(404, json).end('{"success":false}');
    return;
  }
  seen.streams++;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (mode === 'event-without-end') void endless(res, 'event: change\ndata: ', () => CHUNK);
  else if (mode === 'revision-without-end') {
    const change = 'event: change\ndata: {"revision":2,"objectType":"rule","id":"Cancel_a1b2c"}\n\n';
    void endless(res, ': open\nid: 1\n\n', () => change.repeat(100));
  } else res.write('event: change\nid: 2\ndata: {"revision":2,"objectType":\n\n');
}

beforeAll(async () => {
  server = createServer(answer);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.close();
  seen.streams = 0;
  seen.cut = [];
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Follows the hostile server until a status says `problem`, then the attempt after it. */
async function problemOf(next: Mode, options: { maxEventChars?: number; maxAnswerBytes?: number } = {}) {
  mode = next;
  const runtime = createRuntime({ server: base, key: 'rk_any', minRetryMs: 10, maxRetryMs: 50, ...options });
  runtimes.push(runtime);
  const statuses: RuntimeStatus[] = [];
  await new Promise<void>((resolve) =>
    runtime.on('status', (status) => {
      statuses.push(status);
      // Two failures: the runtime survived the first and tried again.
      if (statuses.filter((s) => s.problem).length === 2) resolve();
    }),
  );
  return { runtime, problems: statuses.flatMap((s) => (s.problem ? [s.problem] : [])) };
}

describe('rulekeeper/runtime against a hostile server', () => {
  it('cuts an event without end at its bound, and tries again', async () => {
    const { runtime, problems } = await problemOf('event-without-end', { maxEventChars: 256 * 1024 });
    expect(problems[0]).toBe('the change stream sent an event longer than 262144 characters');
    runtime.close();
    await expect.poll(() => seen.cut.length).toBeGreaterThanOrEqual(1);
    expect(seen.cut[0]).toMatchObject({ closedByClient: true });
    expect(seen.cut[0]?.written).toBeLessThan(GIVE_UP_BYTES);
    expect(seen.streams).toBeGreaterThanOrEqual(2);
    expect(runtime.status()).toMatchObject({ state: 'stopped', rules: 0 });
  });

  it('cuts a JSON answer without end at its bound', async () => {
    const { problems } = await problemOf('answer-without-end', { maxAnswerBytes: 1024 * 1024 });
    expect(problems[0]).toBe('/v1/rules answered more than 1048576 bytes');
    await expect.poll(() => seen.cut.length).toBeGreaterThanOrEqual(1);
    expect(seen.cut[0]).toMatchObject({ closedByClient: true });
  });

  it('drops a stream that sends a change that is not JSON, keeping the copy it had', async () => {
    const { runtime, problems } = await problemOf('not-json');
    expect(problems).toEqual([
      'the change stream sent an event that is not JSON',
      'the change stream sent an event that is not JSON',
    ]);
    expect(runtime.status()).toMatchObject({ state: 'reconnecting', revision: 1, rules: 0 });
  });

  it('drops a stream whose revision never ends instead of holding its changes', async () => {
    const { problems } = await problemOf('revision-without-end');
    expect(problems[0]).toBe('the change stream sent a revision without end');
    await expect.poll(() => seen.cut.length).toBeGreaterThanOrEqual(1);
    expect(seen.cut[0]).toMatchObject({ closedByClient: true });
  });
});

describe('a server that accepts connections and never answers', () => {
  it('makes ready reject within readyTimeoutMs, naming the address and the request sent', async () => {
    const held: Socket[] = [];
    const silent = createNetServer((socket) => held.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const address = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const runtime = createRuntime({ server: address, key: 'rk_any', readyTimeoutMs: 200 });
    try {
      const started = performance.now();
      const failed = await runtime.ready.then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failed?.message).toBe(
        `rulekeeper/runtime: no copy of the workspace from ${address} within 200 ms (readyTimeoutMs): ` +
          'GET /v1/groups was sent and has had no answer',
      );
      expect(performance.now() - started).toBeLessThan(5_000);
      // It goes on trying: the state says so, until it is closed.
      expect(runtime.status().state).toBe('connecting');
    } finally {
      runtime.close();
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });

  it('says why the request failed, when nothing listens there', async () => {
    const closed = createNetServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const address = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    closed.close();
    // One attempt only (the next would wait a minute): with retries every 20 ms, a loaded machine had
    // the next one in flight when the time ran out, and the message said that instead.
    const runtime = createRuntime({
      server: address,
      key: 'rk_any',
      readyTimeoutMs: 2000,
      minRetryMs: 60_000,
    });
    try {
      const failed = await runtime.ready.then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failed?.message).toBe(
        `rulekeeper/runtime: no copy of the workspace from ${address} within 2000 ms (readyTimeoutMs): ` +
          'GET /v1/groups failed: fetch failed (ECONNREFUSED)',
      );
    } finally {
      runtime.close();
    }
  });
});
