// The hit reporter every runtime uses (rulekeeper/runtime's createHitReporter): counts gathered and
// sent as one report per flush (split past 1,000 rules), never a URL; a report that fails is logged
// once, its counts kept for the next batch, and dropped after a bound; a refused key stops it; the
// runtime never waits on any of it. Real servers on loopback: the app, and one that fails on purpose.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHitReporter } from '../../src/runtime/index.js';
import { type ServedApp, servedData } from '../helpers/served-app.js';

const data = servedData();
let server: ServedApp;
let key: string;

/** A server on loopback that answers POST /v1/hits with `status()`, keeping each body it was sent. */
async function failing(status: () => number): Promise<{ url: string; bodies: any[]; close(): void }> {
  const bodies: any[] = [];
  const http: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      const code = status();
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(
        code === 200
          ? JSON.stringify({ success: true, data: { accepted: 0, ignored: 0 } })
          : JSON.stringify({ success: false, message: 'no', code: 'UNAVAILABLE', requestId: 'r' }),
      );
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => http.close() };
}

beforeAll(async () => {
  server = await data.serve();
  ({ key } = await server.keysService.issue('acme', 'alice'));
});
afterAll(async () => {
  await server?.stop();
  data.remove();
});

describe('createHitReporter', () => {
  it('sends what was counted as one report per flush, 1,000 rules a report, and nothing when nothing new', async () => {
    const created = await server.api(key, 'POST', '/rules', {
      name: 'counted',
      ruleType: 'Cancel',
      status: 'Active',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
    });
    const id = created.body.data.id;
    const reporter = createHitReporter({ server: server.url, key, source: 'runtime' });
    reporter.acted([id]);
    reporter.acted([id, ...Array.from({ length: 1500 }, (_, i) => `Cancel_unknown${i}`)]);
    await reporter.flush();
    const hits = (await server.api(key, 'GET', `/rules/${id}/hits`)).body.data;
    expect(hits).toMatchObject({ total7Days: 2, sources: [{ source: 'runtime', total7Days: 2 }] });
    await reporter.flush();
    await reporter.close();
    expect((await server.api(key, 'GET', `/rules/${id}/hits`)).body.data.total7Days).toBe(2);
  });

  it('logs a failing report once, keeps its counts for the next batch, says when it goes again, drops after a bound', async () => {
    let status = 503;
    const upstream = await failing(() => status);
    const logged: string[] = [];
    const reporter = createHitReporter({
      server: upstream.url,
      key: 'rk_any',
      source: 'proxy',
      log: (message) => logged.push(message),
    });
    try {
      reporter.acted(['Cancel_a', 'Cancel_a']);
      await reporter.flush();
      reporter.acted(['Cancel_a', 'Cancel_b']);
      await reporter.flush();
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/could not report which rules acted \(answered 503\)/);
      // The second report carried the first's counts too: nothing is lost while the server is away.
      const second = upstream.bodies[1].counts;
      expect(second.find((c: any) => c.ruleId === 'Cancel_a').count).toBe(3);
      expect(second.find((c: any) => c.ruleId === 'Cancel_b').count).toBe(1);
      // Past six failed batches in a row, what was counted is dropped (said once).
      for (let i = 0; i < 4; i++) await reporter.flush();
      expect(logged).toContain('hit counts dropped after repeated failures');
      status = 200;
      reporter.acted(['Cancel_c']);
      await reporter.flush();
      expect(upstream.bodies.at(-1).counts.map((c: any) => c.ruleId)).toEqual(['Cancel_c']);
      expect(logged.at(-1)).toBe('hit reports go through again');
      // Only ids, counts and times: no URL, header or body of any request.
      expect(Object.keys(upstream.bodies.at(-1).counts[0]).sort()).toEqual([
        'count',
        'firstAt',
        'lastAt',
        'ruleId',
      ]);
    } finally {
      await reporter.close();
      upstream.close();
    }
  });

  it('stops reporting for good when the key is refused, and a server that is down never throws', async () => {
    const upstream = await failing(() => 401);
    const logged: string[] = [];
    const reporter = createHitReporter({
      server: upstream.url,
      key: 'rk_x',
      source: 'extension',
      log: (m) => logged.push(m),
    });
    reporter.acted(['Cancel_a']);
    await reporter.flush();
    reporter.acted(['Cancel_a']);
    await reporter.flush();
    await reporter.close();
    upstream.close();
    expect(upstream.bodies).toHaveLength(1);
    expect(logged).toEqual(['hit reports refused (401): no longer reporting which rules acted']);

    const down = createHitReporter({ server: 'http://127.0.0.1:1', key: 'rk_x', source: 'runtime' });
    down.acted(['Cancel_a']);
    await expect(down.close()).resolves.toBeUndefined();
  });
});
