// Signed webhooks, through the app on both databases, with real HTTP receivers on loopback (allowed by
// WEBHOOK_ALLOW_PRIVATE in the app of most tests): the secret shown once, the signature a receiver
// recomputes, the outbox written with the change (a rolled-back write queues nothing), retries as the
// clock moves, timeouts fired by the test, redirects not followed, inner addresses refused when made
// and at send, two dispatchers never sending one attempt twice, replay, and every refusal.
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import { createChangesStore } from '../../src/modules/changes/changes-store.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { CLOSE_GRACE_MS, createWebhookDispatcher } from '../../src/modules/webhooks/webhook-dispatcher.js';
import { enqueue } from '../../src/modules/webhooks/webhooks-outbox.js';
import { createWebhooksStore } from '../../src/modules/webhooks/webhooks-store.js';
import { cancelPair, ERRORS, type ErrorName, type Reply } from '../helpers/fixtures.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';
import {
  manualTimers,
  type Receiver,
  signatureVerifies,
  startReceiver,
} from '../helpers/webhook-receiver.js';

const TIMEOUT_MS = 7000;
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

/** Refused with `code` (its status and message as the error table says), whatever the details. */
function refused(reply: Reply, code: ErrorName): void {
  expect({ status: reply.status, code: reply.body?.code, message: reply.body?.message }).toStrictEqual({
    status: ERRORS[code][0],
    code,
    message: ERRORS[code][1],
  });
}

const rule = (name: string) => ({ name, ruleType: 'Cancel', pairs: [cancelPair(`${name}.example`)] });

forEachDatabase((db) => {
  // The test's clock, never behind the real one: writes stamp their deliveries with the real time.
  let clock = Date.now();
  const timers = manualTimers();
  let t: TestApp;
  let admin: IssuedKey;
  let outsiderAdmin: IssuedKey;
  let receiver: Receiver;
  const run = () => {
    clock = Math.max(clock, Date.now());
    return t.app.webhookDispatcher.runOnce();
  };

  beforeAll(async () => {
    t = await buildTestApp({
      db,
      now: () => clock,
      webhookTimers: timers,
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    admin = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: null });
    outsiderAdmin = await t.keysService.issue('other', 'carol', {
      scope: 'admin',
      expiresAt: null,
      name: null,
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  /** A new webhook of acme at `url` (the receiver's by default), and its secret. */
  async function hook(body: Record<string, unknown> = {}, key = admin.key) {
    const made = await t.call('POST', '/v1/webhooks', { key, body: { url: receiver.url, ...body } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.data as { id: string; secret: string };
  }
  const deliveries = async (id: string, key = admin.key) =>
    (await t.call('GET', `/v1/webhooks/${id}/deliveries`, { key })).body.data;
  /** Removes every webhook of acme (a workspace holds 20 at most). */
  const clearHooks = async () => {
    const list = (await t.call('GET', '/v1/webhooks', { key: admin.key })).body.data as { id: string }[];
    for (const w of list) await t.call('DELETE', `/v1/webhooks/${w.id}`, { key: admin.key });
  };
  const off = (id: string) =>
    t.call('PATCH', `/v1/webhooks/${id}`, { key: admin.key, body: { active: false } });

  it('answers the secret once; lists and gets never show it; a rule written is delivered, signed', async () => {
    const made = await t.call('POST', '/v1/webhooks', {
      key: admin.key,
      body: { url: receiver.url, description: 'chat', events: ['rules.changed'] },
    });
    expect(made.status).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    expect(made.headers.location).toBe(`/v1/webhooks/${made.body.data.id}`);
    expect(made.body.data).toMatchObject({
      url: receiver.url,
      description: 'chat',
      events: ['rules.changed'],
      active: true,
    });
    const { id, secret } = made.body.data;
    expect(secret).toMatch(SECRET);
    expect(
      JSON.stringify((await t.call('GET', `/v1/webhooks/${id}`, { key: admin.key })).body),
    ).not.toContain(secret);
    expect(JSON.stringify((await t.call('GET', '/v1/webhooks', { key: admin.key })).body)).not.toContain(
      secret,
    );

    const created = await t.call('POST', '/v1/rules', { body: rule('signed') });
    expect(created.status).toBe(201);
    const before = receiver.received.length;
    expect(await run()).toBe(1);
    const got = receiver.received[before];
    expect(got).toBeDefined();
    if (!got) return;
    expect(signatureVerifies(secret, got.headers['rulekeeper-signature'] as string, got.body)).toBe(true);
    expect(signatureVerifies('whsec_other', got.headers['rulekeeper-signature'] as string, got.body)).toBe(
      false,
    );
    const [, stamp] = /t=(\d+)/.exec(got.headers['rulekeeper-signature'] as string) ?? [];
    expect(Number(stamp)).toBe(Math.floor(clock / 1000));
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({
      type: 'rules.changed',
      workspaceId: t.owner.workspaceId,
      data: {
        revision: Number(created.headers['rulekeeper-revision']),
        total: 1,
        truncated: false,
        changes: [{ objectType: 'rule', id: created.body.data.id, change: 'created', version: 1 }],
      },
    });
    expect(got.headers['rulekeeper-event']).toBe('rules.changed');
    // Nothing secret travels: neither the signing secret nor a key.
    expect(got.body).not.toContain(secret);
    expect(got.body).not.toContain(t.owner.key);
    const [delivery] = await deliveries(id);
    expect(got.headers['rulekeeper-delivery']).toBe(delivery.id);
    expect(delivery).toMatchObject({ eventId: body.id, state: 'delivered', nextAttemptAt: null });
    expect(delivery.attempts).toMatchObject([{ number: 1, statusCode: 200, error: null, response: 'ok' }]);
    // Delivered once: another round sends nothing.
    expect(await run()).toBe(0);
    await off(id);
  });

  it('a receiver that fails is retried when the clock reaches the backoff, then delivered', async () => {
    const { id } = await hook();
    let fail = true;
    receiver.handler = (_q, response) => {
      response.statusCode = fail ? 503 : 204;
      response.end(fail ? 'down for maintenance' : '');
    };
    await t.call('POST', '/v1/rules', { body: rule('retried') });
    expect(await run()).toBe(1);
    let [delivery] = await deliveries(id);
    expect(delivery).toMatchObject({ state: 'pending', nextAttemptAt: clock + 30_000 });
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: 503,
      error: 'answered 503',
      response: 'down for maintenance',
    });
    fail = false;
    // Not due yet: nothing is sent.
    clock += 29_000;
    expect(await run()).toBe(0);
    clock += 1000;
    expect(await run()).toBe(1);
    [delivery] = await deliveries(id);
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).toStrictEqual([503, 204]);
    receiver.handler = (_q, response) => response.end('ok');
    await off(id);
  });

  it('gives up a day after the event, retrying with growing waits meanwhile', async () => {
    const { id } = await hook();
    receiver.handler = (_q, response) => {
      response.statusCode = 500;
      response.end();
    };
    await t.call('POST', '/v1/rules', { body: rule('given-up') });
    const waits: number[] = [];
    for (let n = 0; n < 60; n++) {
      await run();
      const [delivery] = await deliveries(id);
      if (delivery.state !== 'pending') break;
      waits.push(delivery.nextAttemptAt - clock);
      clock = delivery.nextAttemptAt;
    }
    const [delivery] = await deliveries(id);
    expect(delivery.state).toBe('failed');
    expect(waits.slice(0, 4)).toStrictEqual([30_000, 60_000, 120_000, 240_000]);
    expect(Math.max(...waits)).toBe(3_600_000);
    expect(delivery.attempts.at(-1).at).toBeLessThanOrEqual(delivery.createdAt + 24 * 3_600_000);
    receiver.handler = (_q, response) => response.end('ok');
    await off(id);
  });

  it('a receiver that never answers is cut off at the deadline, and the attempt says so', async () => {
    const { id } = await hook();
    receiver.handler = () => {}; // reads the body, never answers
    await t.call('POST', '/v1/rules', { body: rule('slow') });
    const before = receiver.received.length;
    const sending = run();
    await receiver.arrived(before + 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers.fire(TIMEOUT_MS)).toBe(1);
    expect(await sending).toBe(1);
    const [delivery] = await deliveries(id);
    expect(delivery.state).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: null,
      error: `timed out after ${TIMEOUT_MS} ms`,
    });
    receiver.handler = (_q, response) => response.end('ok');
    await off(id);
  });

  it('a receiver that never reads is cut off at the deadline too', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.pause(); // never reads a byte
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as { port: number };
    const { id } = await hook({ url: `http://localhost:${port}/never` });
    await t.call('POST', '/v1/rules', { body: rule('unread') });
    const sending = run();
    while (sockets.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(timers.fire(TIMEOUT_MS)).toBe(1);
    expect(await sending).toBe(1);
    const [delivery] = await deliveries(id);
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: null,
      error: `timed out after ${TIMEOUT_MS} ms`,
    });
    for (const socket of sockets) socket.destroy();
    silent.close();
    await off(id);
  });

  it('a redirect is not followed: recorded as a failure, its target never reached', async () => {
    const target = await startReceiver();
    const { id } = await hook();
    receiver.handler = (_q, response) => {
      response.writeHead(307, { location: target.url });
      response.end();
    };
    await t.call('POST', '/v1/rules', { body: rule('redirected') });
    expect(await run()).toBe(1);
    const [delivery] = await deliveries(id);
    expect(delivery.state).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: 307,
      error: expect.stringContaining('not followed'),
    });
    expect(target.received).toHaveLength(0);
    await target.close();
    receiver.handler = (_q, response) => response.end('ok');
    await off(id);
  });

  it('a receiver answering endlessly is read a few KB at most', async () => {
    const { id } = await hook();
    receiver.handler = (_q, response) => {
      response.write('x'.repeat(64 * 1024)); // and never ends
    };
    await t.call('POST', '/v1/rules', { body: rule('chatty') });
    expect(await run()).toBe(1);
    const [delivery] = await deliveries(id);
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts[0].response).toHaveLength(1000);
    receiver.handler = (_q, response) => response.end('ok');
    await off(id);
  });

  it('an import of many rules is one delivery listing the first 100 and the count', async () => {
    const { id } = await hook();
    const records = Array.from({ length: 150 }, (_, i) => ({ ...rule(`bulk${i}`), objectType: 'rule' }));
    const imported = await t.call('POST', '/v1/import', { body: records });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 500)).toBe(200);
    const before = receiver.received.length;
    expect(await run()).toBe(1);
    const body = JSON.parse(receiver.received[before]?.body ?? '{}');
    expect(body.data).toMatchObject({ total: 150, truncated: true });
    expect(body.data.changes).toHaveLength(100);
    expect(await deliveries(id)).toHaveLength(1);
    await off(id);
  });

  it('a write that rolls back queues nothing; one that commits queues one delivery per subscribed webhook', async () => {
    const { id } = await hook();
    const other = await hook({ events: ['change_request.merged'] });
    const changes = createChangesService({
      store: createChangesStore(t.database.db, t.database.dialect),
      dataVersion: undefined,
      signals: t.database.signals,
    });
    const actor = { workspaceId: t.owner.workspaceId, userId: t.owner.userId };
    const change = {
      objectType: 'group' as const,
      id: 'Group_rolledback',
      change: 'created' as const,
      object: {},
      drawn: true,
    };
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        await changes.record(trx, actor, [change]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await deliveries(id)).toHaveLength(0);
    // A refused API write changes nothing either.
    expect((await t.call('POST', '/v1/rules', { body: { name: 'bad' } })).status).toBe(400);
    expect(await deliveries(id)).toHaveLength(0);
    await t.call('POST', '/v1/groups', { body: { name: 'committed' } });
    expect(await deliveries(id)).toHaveLength(1);
    expect(await deliveries(other.id)).toHaveLength(0);
    await run();
    await off(id);
    await off(other.id);
  });

  it('enqueue: a change-request event queued in its transaction reaches its subscribers, signed', async () => {
    const { id, secret } = await hook({ events: ['change_request.opened'] });
    const rulesOnly = await hook({ events: ['rules.changed'] });
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        await enqueue(trx, t.owner.workspaceId, 'change_request.opened', { id: 'cr_gone' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await deliveries(id)).toHaveLength(0);
    const eventId = await t.database.db
      .transaction()
      .execute((trx) =>
        enqueue(trx, t.owner.workspaceId, 'change_request.opened', { id: 'cr_1', title: 'Fix' }, clock),
      );
    const before = receiver.received.length;
    expect(await run()).toBe(1);
    const got = receiver.received[before];
    expect(signatureVerifies(secret, got?.headers['rulekeeper-signature'] as string, got?.body ?? '')).toBe(
      true,
    );
    expect(JSON.parse(got?.body ?? '{}')).toStrictEqual({
      id: eventId,
      type: 'change_request.opened',
      createdAt: clock,
      workspaceId: t.owner.workspaceId,
      data: { id: 'cr_1', title: 'Fix' },
    });
    expect(await deliveries(rulesOnly.id)).toHaveLength(0);
    await expect(
      t.database.db.transaction().execute((trx) => enqueue(trx, t.owner.workspaceId, 'nope' as never, {})),
    ).rejects.toThrow();
    await off(id);
    await off(rulesOnly.id);
  });

  it('a change request opened through the API is told to its subscribers: a summary, no bodies', async () => {
    const { id, secret } = await hook({ events: ['change_request.opened', 'change_request.closed'] });
    const opened = await t.call('POST', '/v1/change-requests', {
      body: {
        title: 'Add a group',
        operations: [{ op: 'create', kind: 'group', body: { name: 'proposed secretly' } }],
      },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const before = receiver.received.length;
    expect(await run()).toBe(1);
    const got = receiver.received[before];
    expect(signatureVerifies(secret, got?.headers['rulekeeper-signature'] as string, got?.body ?? '')).toBe(
      true,
    );
    const body = JSON.parse(got?.body ?? '{}');
    expect(body).toMatchObject({
      type: 'change_request.opened',
      workspaceId: t.owner.workspaceId,
      data: { id: opened.body.data.id, title: 'Add a group', state: 'open', operationCount: 1, review: null },
    });
    // The operations' bodies and the evidence stay in the service.
    expect(got?.body).not.toContain('proposed secretly');
    expect(body.data).not.toHaveProperty('evidence');
    await off(id);
  });

  it('replay sends the same event again now, as a new attempt', async () => {
    const { id } = await hook();
    await t.call('POST', '/v1/rules', { body: rule('replayed') });
    await run();
    const [first] = await deliveries(id);
    expect(first.state).toBe('delivered');
    const replayed = await t.call('POST', `/v1/webhooks/${id}/deliveries/${first.id}/replay`, {
      key: admin.key,
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body.data).toMatchObject({ id: first.id, state: 'pending', nextAttemptAt: clock });
    const before = receiver.received.length;
    expect(await run()).toBe(1);
    expect(JSON.parse(receiver.received[before]?.body ?? '{}').id).toBe(first.eventId);
    const [again] = await deliveries(id);
    expect(again.attempts).toHaveLength(2);
    refused(
      await t.call('POST', `/v1/webhooks/${id}/deliveries/dlv_nope/replay`, { key: admin.key }),
      'DELIVERY_NOT_FOUND',
    );
    await off(id);
  });

  it("another workspace's webhook and deliveries are not found; editors and viewers manage none", async () => {
    const { id } = await hook();
    await t.call('POST', '/v1/rules', { body: rule('private') });
    const [delivery] = await deliveries(id);
    const key = outsiderAdmin.key;
    refused(await t.call('GET', `/v1/webhooks/${id}`, { key }), 'WEBHOOK_NOT_FOUND');
    refused(
      await t.call('PATCH', `/v1/webhooks/${id}`, { key, body: { active: false } }),
      'WEBHOOK_NOT_FOUND',
    );
    refused(await t.call('DELETE', `/v1/webhooks/${id}`, { key }), 'WEBHOOK_NOT_FOUND');
    refused(await t.call('GET', `/v1/webhooks/${id}/deliveries`, { key }), 'WEBHOOK_NOT_FOUND');
    refused(
      await t.call('POST', `/v1/webhooks/${id}/deliveries/${delivery.id}/replay`, { key }),
      'WEBHOOK_NOT_FOUND',
    );
    expect((await t.call('GET', '/v1/webhooks', { key })).body.data).toStrictEqual([]);
    // Another webhook's delivery under this one's path is not found either.
    const mine = await hook();
    refused(
      await t.call('POST', `/v1/webhooks/${mine.id}/deliveries/${delivery.id}/replay`, { key: admin.key }),
      'DELIVERY_NOT_FOUND',
    );
    // bob is an editor with a write key; the owner's first key writes only.
    for (const who of [t.teammate.key, t.owner.key]) {
      refused(await t.call('GET', '/v1/webhooks', { key: who }), 'UNAUTHORIZED_ACTION');
      refused(
        await t.call('POST', '/v1/webhooks', { key: who, body: { url: receiver.url } }),
        'UNAUTHORIZED_ACTION',
      );
      refused(await t.call('DELETE', `/v1/webhooks/${id}`, { key: who }), 'UNAUTHORIZED_ACTION');
    }
    const viewer = await t.keysService.issue('acme', `viewer ${db}`, {
      scope: 'read',
      expiresAt: null,
      name: null,
    });
    refused(await t.call('GET', `/v1/webhooks/${id}`, { key: viewer.key }), 'UNAUTHORIZED_ACTION');
    expect((await t.call('GET', `/v1/webhooks/${id}`, { key: admin.key })).body.data.active).toBe(true);
    await run();
    await off(id);
    await off(mine.id);
  });

  it('records who made, changed and removed a webhook in the activity, with its host alone', async () => {
    const { id } = await hook({ url: `${receiver.url}?token=secret-in-url` });
    await t.call('PATCH', `/v1/webhooks/${id}`, { key: admin.key, body: { rotateSecret: true } });
    await t.call('DELETE', `/v1/webhooks/${id}`, { key: admin.key });
    const { body } = await t.call('GET', `/v1/activity?object=${id}`, { key: admin.key });
    expect(body.data.map((e: { kind: string }) => e.kind)).toStrictEqual([
      'webhook_deleted',
      'webhook_updated',
      'webhook_created',
    ]);
    expect(body.data[1]).toMatchObject({
      by: admin.userId,
      detail: { host: `127.0.0.1:${receiver.port}`, rotated: true },
    });
    expect(JSON.stringify(body)).not.toContain('secret-in-url');
    expect(JSON.stringify(body)).not.toContain('whsec_');
  });

  it('keeps deliveries done for 30 days, pending ones until they are done', async () => {
    const { id } = await hook();
    await t.call('POST', '/v1/rules', { body: rule('swept') });
    await run();
    await off(id);
    await t.call('PATCH', `/v1/webhooks/${id}`, { key: admin.key, body: { active: true } });
    receiver.handler = (_q, response) => {
      response.statusCode = 500;
      response.end();
    };
    await t.call('POST', '/v1/rules', { body: rule('still pending') });
    await run();
    await off(id);
    receiver.handler = (_q, response) => response.end('ok');
    const states = async () => (await deliveries(id)).map((d: { state: string }) => d.state);
    expect(await states()).toStrictEqual(['pending', 'delivered']);
    clock += 29 * 24 * 3_600_000;
    await t.app.webhookSweep();
    expect(await states()).toStrictEqual(['pending', 'delivered']);
    clock += 2 * 24 * 3_600_000;
    await t.app.webhookSweep();
    expect(await states()).toStrictEqual(['pending']);
  });

  it('PATCH changes fields and rotates the secret only when asked, answering the new one once', async () => {
    const { id, secret } = await hook();
    const changed = await t.call('PATCH', `/v1/webhooks/${id}`, {
      key: admin.key,
      body: { description: 'renamed', events: ['rules.changed', 'change_request.merged'] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      description: 'renamed',
      events: ['rules.changed', 'change_request.merged'],
    });
    expect(changed.body.data).not.toHaveProperty('secret');
    const rotated = await t.call('PATCH', `/v1/webhooks/${id}`, {
      key: admin.key,
      body: { rotateSecret: true },
    });
    expect(rotated.body.data.secret).toMatch(SECRET);
    expect(rotated.body.data.secret).not.toBe(secret);
    await t.call('POST', '/v1/rules', { body: rule('rotated') });
    const before = receiver.received.length;
    await run();
    const got = receiver.received[before];
    expect(
      signatureVerifies(
        rotated.body.data.secret,
        got?.headers['rulekeeper-signature'] as string,
        got?.body ?? '',
      ),
    ).toBe(true);
    expect(signatureVerifies(secret, got?.headers['rulekeeper-signature'] as string, got?.body ?? '')).toBe(
      false,
    );
    expect((await t.call('DELETE', `/v1/webhooks/${id}`, { key: admin.key })).body).toStrictEqual({
      success: true,
      message: 'Webhook removed',
    });
    refused(await t.call('GET', `/v1/webhooks/${id}`, { key: admin.key }), 'WEBHOOK_NOT_FOUND');
  });

  it('refuses bad bodies with every problem, and a 21st webhook', async () => {
    const bad = async (body: unknown, path: string) => {
      const reply = await t.call('POST', '/v1/webhooks', { key: admin.key, body });
      refused(reply, 'WEBHOOK_PAYLOAD_INVALID');
      expect(reply.body.details.map((d: { path: string }) => d.path)).toContain(path);
    };
    await bad({ url: 'ftp://example.com/x' }, '/url');
    await bad({ url: 'not a url' }, '/url');
    await bad({ url: 'http://user:pw@example.com/' }, '/url');
    await bad({ url: `http://example.com/${'a'.repeat(2100)}` }, '/url');
    await bad({ url: receiver.url, events: ['rule.exploded'] }, '/events');
    await bad({ url: receiver.url, extra: 1 }, '/extra');
    await bad({}, '/url');
    const { id } = await hook();
    refused(
      await t.call('PATCH', `/v1/webhooks/${id}`, { key: admin.key, body: { url: 'gopher://x' } }),
      'WEBHOOK_PAYLOAD_INVALID',
    );
    await t.call('DELETE', `/v1/webhooks/${id}`, { key: admin.key });
    const have = (await t.call('GET', '/v1/webhooks', { key: admin.key })).body.total;
    for (let n = have; n < 20; n++) await hook({ active: false });
    refused(
      await t.call('POST', '/v1/webhooks', { key: admin.key, body: { url: receiver.url } }),
      'WEBHOOK_LIMIT',
    );
  });

  it('connects to the address it checked, keeping the name as Host (no second lookup to rebind)', async () => {
    await clearHooks();
    // Made straight into the table: the name resolves nowhere but in this test's resolver.
    const id = 'whk_rebindtest01';
    await t.database.db
      .insertInto('webhooks')
      .values({
        id,
        workspace_id: t.owner.workspaceId,
        url: `http://rebind.example:${receiver.port}/pinned`,
        description: null,
        events: null,
        active: 1,
        secret: 'whsec_pinned',
        created_by: null,
        created_at: clock,
        updated_at: clock,
      })
      .execute();
    let lookups = 0;
    const pinned = createWebhookDispatcher({
      store: createWebhooksStore(t.database.db),
      allowPrivate: true,
      timeoutMs: TIMEOUT_MS,
      pollMs: 60_000,
      now: () => clock,
      timers,
      // The name's one lookup, the checked one; the connection must not ask again.
      resolve: async () => {
        lookups += 1;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    await t.call('POST', '/v1/rules', { body: rule('pinned') });
    const before = receiver.received.length;
    clock = Math.max(clock, Date.now());
    expect(await pinned.runOnce()).toBe(1);
    expect(lookups).toBe(1);
    expect(receiver.received[before]?.headers.host).toBe(`rebind.example:${receiver.port}`);
    await off(id);
  });

  it('stops queueing for a webhook 10,000 deliveries behind, until it catches up', async () => {
    await clearHooks();
    const { id } = await hook();
    await off(id);
    const at = Date.now();
    const rows = Array.from({ length: 9_999 }, (_, n) => ({
      id: `dlv_behind${n}`,
      workspace_id: t.owner.workspaceId,
      webhook_id: id,
      event_id: `evt_behind${n}`,
      type: 'rules.changed',
      revision: 1,
      data: null,
      created_at: at,
      state: 'pending',
      attempts: 0,
      next_at: at + 3_600_000,
      give_up_at: at + 3_600_000,
      lease_owner: null,
      lease_until: null,
      last_status: null,
      delivered_at: null,
    }));
    for (let n = 0; n < rows.length; n += 500)
      await t.database.db
        .insertInto('webhook_deliveries')
        .values(rows.slice(n, n + 500))
        .execute();
    await t.call('PATCH', `/v1/webhooks/${id}`, { key: admin.key, body: { active: true } });
    const pending = async () =>
      (await t.call('GET', `/v1/webhooks/${id}/deliveries?state=pending&pageSize=1`, { key: admin.key })).body
        .total;
    await t.call('POST', '/v1/rules', { body: rule('the 10,000th') });
    expect(await pending()).toBe(10_000);
    await t.call('POST', '/v1/rules', { body: rule('one too many') });
    expect(await pending()).toBe(10_000);
    await t.call('DELETE', `/v1/webhooks/${id}`, { key: admin.key });
  });

  it('two dispatchers on one database never send the same attempt twice', async () => {
    // A second instance's connection and dispatcher, on the same database. On SQLite two connections
    // of one thread would wait on each other's lock (a busy wait blocks the thread): there the two
    // dispatchers share the connection and interleave at every await, as two processes' would.
    const second = db === 'postgres' ? openDatabase(t.config) : t.database;
    const dispatcherOf = (database: typeof second) =>
      createWebhookDispatcher({
        store: createWebhooksStore(database.db),
        allowPrivate: true,
        timeoutMs: TIMEOUT_MS,
        pollMs: 60_000,
        now: () => clock,
        timers,
      });
    const list = (await t.call('GET', '/v1/webhooks', { key: admin.key })).body.data as { id: string }[];
    for (const w of list) await t.call('DELETE', `/v1/webhooks/${w.id}`, { key: admin.key });
    const { id } = await hook();
    for (let n = 0; n < 40; n++) await t.call('POST', '/v1/rules', { body: rule(`twice${n}`) });
    const before = receiver.received.length;
    clock = Math.max(clock, Date.now());
    const [a, b] = await Promise.all([dispatcherOf(t.database).runOnce(), dispatcherOf(second).runOnce()]);
    expect(a + b).toBe(40);
    const ids = receiver.received.slice(before).map((r) => r.headers['rulekeeper-delivery']);
    expect(new Set(ids).size).toBe(40);
    expect(ids).toHaveLength(40);
    if (second !== t.database) await second.close();
    await off(id);
  });
});

forEachDatabase((db) => {
  it('closing the app waits briefly for a send under way, then cuts it and records the attempt', async () => {
    const timers = manualTimers();
    const t = await buildTestApp({ db, webhookTimers: timers });
    const receiver = await startReceiver();
    try {
      receiver.handler = () => {}; // never answers
      const admin = await t.keysService.issue('acme', 'alice', {
        scope: 'admin',
        expiresAt: null,
        name: null,
      });
      const made = await t.call('POST', '/v1/webhooks', { key: admin.key, body: { url: receiver.url } });
      await t.call('POST', '/v1/rules', { body: rule('cut') });
      const sending = t.app.webhookDispatcher.runOnce();
      await receiver.arrived(1);
      const closing = t.app.close();
      // The grace runs out (the test's timer), the send is cut, and its attempt is written before the
      // database closes.
      while (timers.fire(CLOSE_GRACE_MS) === 0) await new Promise((resolve) => setImmediate(resolve));
      await closing;
      expect(await sending).toBe(1);
      const attempts = await t.database.db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
        .select(['webhook_attempts.error', 'webhook_deliveries.state', 'webhook_deliveries.webhook_id'])
        .execute();
      expect(attempts).toStrictEqual([
        {
          error: 'the service stopped before the answer came',
          state: 'pending',
          webhook_id: made.body.data.id,
        },
      ]);
    } finally {
      await receiver.close();
      await t.close(); // closing the app again does nothing more
    }
  });

  describe('without WEBHOOK_ALLOW_PRIVATE', () => {
    let t: TestApp;
    let admin: IssuedKey;
    let receiver: Receiver;
    beforeAll(async () => {
      t = await buildTestApp({ db, env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
      admin = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: null });
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      await t?.close();
    });

    it('refuses loopback, private, link-local and mapped addresses when a webhook is made', async () => {
      for (const url of [
        `http://localhost:${receiver.port}/hook`,
        receiver.url,
        'http://10.1.2.3/',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[fd00::1]/',
        'http://0.0.0.0/',
        'http://224.0.0.1/',
      ]) {
        const reply = await t.call('POST', '/v1/webhooks', { key: admin.key, body: { url } });
        refused(reply, 'WEBHOOK_PAYLOAD_INVALID');
        expect(reply.body.details[0].message, url).toContain('WEBHOOK_ALLOW_PRIVATE');
      }
      expect((await t.call('GET', '/v1/webhooks', { key: admin.key })).body.total).toBe(0);
    });

    it('refuses at send too: a webhook whose name resolves to 127.0.0.1 is never reached', async () => {
      // Made while allowed (an operator who later turned it off), straight into the table.
      const now = Date.now();
      await t.database.db
        .insertInto('webhooks')
        .values({
          id: 'whk_madebefore01',
          workspace_id: t.owner.workspaceId,
          url: `http://localhost:${receiver.port}/hook`,
          description: null,
          events: null,
          active: 1,
          secret: 'whsec_x',
          created_by: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await t.call('POST', '/v1/rules', { body: rule('inner') });
      expect(await t.app.webhookDispatcher.runOnce()).toBe(1);
      const [delivery] = (await t.call('GET', '/v1/webhooks/whk_madebefore01/deliveries', { key: admin.key }))
        .body.data;
      expect(delivery.state).toBe('pending');
      expect(delivery.attempts[0].error).toMatch(
        /^refused: .*resolves to (127\.0\.0\.1|::1).*WEBHOOK_ALLOW_PRIVATE/,
      );
      expect(receiver.received).toHaveLength(0);
    });
  });
});

describe('the setting', () => {
  it('WEBHOOK_ALLOW_PRIVATE is true or false, nothing else', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/true or false/);
  });
});
