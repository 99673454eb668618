// Graceful shutdown: SIGTERM while a burst of writes is in flight, and more writes after it. Every request
// that got an answer got a whole one (201, or the documented 503); one that got none (connection refused,
// or reset before any answer) had no effect; the process exits 0; a restart holds exactly the
// acknowledged writes, as answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScratchDatabase, type ScratchKind, scratchDatabase } from '../helpers/cli.js';
import { defaultKeyFrom, type Outcome, rawRequest } from '../helpers/raw-http.js';
import { startService } from '../helpers/service-process.js';
import { byMode } from '../helpers/test-modes.js';

const BURST = byMode(80, 400);
const cancel = (n: number) => ({
  name: `burst ${n}`,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: `h${n}.example` } }],
});

/** The documented 503: the error body of decisions section 2, nothing of Fastify's own. */
function isDocumented503(outcome: Outcome): boolean {
  if (outcome.kind !== 'response' || outcome.status !== 503) return false;
  try {
    const body = JSON.parse(outcome.text);
    return (
      body.success === false &&
      body.code === 'UNAVAILABLE' &&
      body.message === 'Service unavailable' &&
      typeof body.requestId === 'string'
    );
  } catch {
    return false;
  }
}

function shutdownSuite(kind: ScratchKind) {
  let database: ScratchDatabase;
  beforeAll(async () => {
    database = await scratchDatabase(kind);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('finishes what it accepted, refuses the rest cleanly, exits 0, loses nothing', {
    timeout: 60_000,
  }, async () => {
    const env = { DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' };
    const service = await startService(env);
    const key = defaultKeyFrom(service.output());
    const post = (n: number) =>
      rawRequest(service.url, { method: 'POST', path: '/v1/rules', key, body: cancel(n) });

    let firstAnswer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      firstAnswer = resolve;
    });
    const burst = Array.from({ length: BURST }, (_, n) => post(n).finally(() => firstAnswer()));
    await answered; // the burst is under way: some answered, the rest in flight or queued
    service.child.kill('SIGTERM');
    // New writes until the process is gone (numbered after the burst's).
    const late: Promise<Outcome>[] = [];
    let exited = false;
    const exit = service.exited.finally(() => {
      exited = true;
    });
    while (!exited && late.length < 200) {
      late.push(post(BURST + late.length));
      await late[late.length - 1];
    }
    expect(await exit).toStrictEqual({ code: 0, signal: null });

    const outcomes = [...(await Promise.all(burst)), ...(await Promise.all(late))];
    const tally: Record<string, number> = {};
    const acknowledged = new Map<string, Record<string, unknown>>();
    outcomes.forEach((outcome, n) => {
      const when = n < BURST ? 'burst' : 'after the signal';
      const label = `${when}: ${outcome.kind === 'response' ? outcome.status : outcome.code}`;
      tally[label] = (tally[label] ?? 0) + 1;
      if (outcome.kind === 'error') {
        // No answer at all: the request must have had no effect (checked after the restart).
        expect(['ECONNREFUSED', 'ECONNRESET', 'EPIPE'], `request ${n}`).toContain(outcome.code);
      } else if (outcome.status === 201) {
        const body = JSON.parse(outcome.text);
        expect(body).toMatchObject({ success: true, data: { ...cancel(n), id: expect.any(String) } });
        acknowledged.set(body.data.name, body.data);
      } else {
        expect(isDocumented503(outcome), `request ${n} (${when}): ${outcome.status} ${outcome.text}`).toBe(
          true,
        );
      }
    });
    console.log(`[shutdown ${kind}] ${JSON.stringify(tally)}; exit code 0`);
    expect(acknowledged.size).toBeGreaterThan(0);

    // Every acknowledged write is there as answered; nothing refused or unanswered landed.
    const again = await startService(env);
    try {
      const list = await fetch(`${again.url}/v1/rules`, { headers: { 'x-api-key': key } });
      const stored = ((await list.json()) as { data: Record<string, unknown>[] }).data;
      expect(new Map(stored.map((rule) => [rule.name, rule]))).toStrictEqual(acknowledged);
    } finally {
      await again.stop();
    }
  });
}

describe('sqlite', () => shutdownSuite('sqlite'));
describe.skipIf(!process.env.TEST_POSTGRES_URL)(
  process.env.TEST_POSTGRES_URL ? 'postgres' : 'postgres (skipped: set TEST_POSTGRES_URL to run)',
  () => shutdownSuite('postgres'),
);
