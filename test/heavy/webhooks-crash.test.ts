// Webhook deliveries survive the service dying: the real service (a child process) is killed with
// SIGKILL between a change and its delivery, or in the middle of sending it, and once started again
// the delivery arrives, signed (at least once). Two services on one database send each delivery once.
// Both databases; receivers are real HTTP servers on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, type ScratchDatabase, type ScratchKind, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';
import { type Receiver, signatureVerifies, startReceiver } from '../helpers/webhook-receiver.js';

async function call(service: ServiceProcess, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const rule = (name: string) => ({
  name,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: `${name}.example` } }],
});

function crashSuite(kind: ScratchKind) {
  let database: ScratchDatabase;
  let key: string;
  let receiver: Receiver;
  const services: ServiceProcess[] = [];
  /** The service on this database; `sending: false` leaves its dispatcher's first round a minute away. */
  const start = async (sending: boolean) => {
    const service = await startService({
      DATABASE_URL: database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: sending ? '50' : '60000',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    services.push(service);
    return service;
  };
  const kill = async (service: ServiceProcess) => {
    service.child.kill('SIGKILL');
    expect((await service.exited).signal).toBe('SIGKILL');
  };

  beforeAll(async () => {
    database = await scratchDatabase(kind);
    key = (await createKeyWithCli(database.url, 'w', 'u', ['--scope', 'admin'])).key;
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const service of services) await service.stop('SIGKILL');
    await receiver?.close();
    await database?.drop();
  });

  it('a rule written just before a kill -9 is delivered once the service is back', {
    timeout: 60_000,
  }, async () => {
    let service = await start(false);
    const made = await call(service, key, 'POST', '/v1/webhooks', { url: receiver.url });
    expect(made.status).toBe(201);
    const created = await call(service, key, 'POST', '/v1/rules', rule('before-kill'));
    expect(created.status).toBe(201);
    await kill(service);
    expect(receiver.received).toHaveLength(0);

    service = await start(true);
    await receiver.arrived(1);
    const [got] = receiver.received;
    expect(
      signatureVerifies(made.body.data.secret, got?.headers['rulekeeper-signature'], got?.body ?? ''),
    ).toBe(true);
    expect(JSON.parse(got?.body ?? '{}').data.changes).toMatchObject([
      { id: created.body.data.id, change: 'created' },
    ]);
    await call(service, key, 'PATCH', `/v1/webhooks/${made.body.data.id}`, { active: false });
    await service.stop();
  });

  it('a delivery cut by a kill -9 mid-send is sent again after the restart (at least once)', {
    timeout: 60_000,
  }, async () => {
    const before = receiver.received.length;
    let answer = false;
    // The first request is never answered: the service dies waiting for it.
    receiver.handler = (_request, response) => {
      if (answer) response.end('ok');
    };
    let service = await start(true);
    const made = await call(service, key, 'POST', '/v1/webhooks', { url: receiver.url });
    const created = await call(service, key, 'POST', '/v1/rules', rule('mid-send'));
    expect(created.status).toBe(201);
    await receiver.arrived(before + 1);
    await kill(service);
    answer = true;

    // Its lease runs out (the send's deadline and a margin: a few seconds), then it is sent again.
    service = await start(true);
    await receiver.arrived(before + 2);
    const [first, second] = receiver.received.slice(before);
    expect(second?.headers['rulekeeper-delivery']).toBe(first?.headers['rulekeeper-delivery']);
    expect(
      signatureVerifies(made.body.data.secret, second?.headers['rulekeeper-signature'], second?.body ?? ''),
    ).toBe(true);
    // Written once the answer came; the attempt cut by the kill left no record.
    await expect
      .poll(
        async () =>
          (await call(service, key, 'GET', `/v1/webhooks/${made.body.data.id}/deliveries`)).body.data[0]
            .state,
        {
          timeout: 10_000,
        },
      )
      .toBe('delivered');
    await call(service, key, 'PATCH', `/v1/webhooks/${made.body.data.id}`, { active: false });
    await service.stop();
  });

  it('two services on one database send each delivery once', { timeout: 60_000 }, async () => {
    receiver.handler = (_request, response) => response.end('ok');
    const writer = await start(false);
    const made = await call(writer, key, 'POST', '/v1/webhooks', { url: receiver.url });
    for (let n = 0; n < 30; n++)
      expect((await call(writer, key, 'POST', '/v1/rules', rule(`twice${n}`))).status).toBe(201);
    const before = receiver.received.length;
    const [a, b] = [await start(true), await start(true)];
    await receiver.arrived(before + 30);
    // Every delivery recorded as delivered (its sender's outcome written), and still one send of each.
    await expect
      .poll(
        async () =>
          (await call(writer, key, 'GET', `/v1/webhooks/${made.body.data.id}/deliveries?state=delivered`))
            .body.total,
        { timeout: 20_000 },
      )
      .toBe(30);
    const ids = receiver.received.slice(before).map((r) => r.headers['rulekeeper-delivery']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    await call(writer, key, 'DELETE', `/v1/webhooks/${made.body.data.id}`);
    for (const service of [writer, a, b]) await service.stop();
  });
}

describe('sqlite', () => crashSuite('sqlite'));
describe.skipIf(!process.env.TEST_POSTGRES_URL)(
  process.env.TEST_POSTGRES_URL ? 'postgres' : 'postgres (skipped: set TEST_POSTGRES_URL to run)',
  () => crashSuite('postgres'),
);
