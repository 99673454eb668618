// Issue #36 as a team meets it, end to end on both databases: review is required; an editor proposes a
// change that makes a stored suite fail; the evidence shows the failing case and the trace before and
// after; a reviewer asks for changes; the editor fixes it; the reviewer approves; the merge applies it
// as one revision that history names; and a real receiver on loopback got every event, each signed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';
import {
  manualTimers,
  type Receiver,
  signatureVerifies,
  startReceiver,
} from '../helpers/webhook-receiver.js';

const cancelOf = (...hosts: string[]) =>
  hosts.map((host) => ({ source: { key: 'host', operator: 'Equals', value: host } }));

forEachDatabase((db) => {
  let t: TestApp;
  let owner: IssuedKey;
  let receiver: Receiver;
  const editor = () => t.teammate.key;

  beforeAll(async () => {
    t = await buildTestApp({ db, webhookTimers: manualTimers(), env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    owner = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: null });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('proposed, shown failing a suite with its trace, fixed, approved and merged as one revision; every event signed', async () => {
    const as = (key: string) => ({ key });
    // The owner sets the workspace up: a webhook for every event, the team's suite, one rule, review on.
    const hook = await t.call('POST', '/v1/webhooks', { ...as(owner.key), body: { url: receiver.url } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const secret = hook.body.data.secret as string;
    const suite = await t.call('POST', '/v1/test-suites', {
      ...as(owner.key),
      body: {
        name: 'shop stays up',
        cases: [
          { name: 'ads are blocked', request: { url: 'https://ads.example/x' }, expect: { cancelled: true } },
          {
            name: 'checkout is served',
            request: { url: 'https://shop.example/pay' },
            expect: { cancelled: false },
          },
        ],
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const made = await t.call('POST', '/v1/rules', {
      ...as(owner.key),
      body: { name: 'block ads', ruleType: 'Cancel', status: 'Active', pairs: cancelOf('ads.example') },
    });
    const ruleId = made.body.data.id as string;
    expect(
      (await t.call('PATCH', '/v1/settings', { ...as(owner.key), body: { review: 'required' } })).status,
    ).toBe(200);

    // The editor's direct write is refused and changes nothing; a change request it is.
    const direct = await t.call('PUT', `/v1/rules/${ruleId}`, {
      ...as(editor()),
      body: { pairs: cancelOf('shop.example') },
    });
    expect([direct.status, direct.body.code]).toStrictEqual([409, 'REVIEW_REQUIRED']);
    const proposed = await t.call('POST', '/v1/change-requests', {
      ...as(editor()),
      body: {
        title: 'Block the trackers too',
        operations: [
          // A slip: the shop's host instead of the tracker's.
          {
            op: 'update',
            kind: 'rule',
            id: ruleId,
            body: { pairs: cancelOf('ads.example', 'shop.example') },
          },
        ],
      },
    });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(201);
    const cr = proposed.body.data;
    expect(cr.evidence.tests).toStrictEqual([
      {
        suite: 'shop stays up',
        before: { passed: 2, failed: 0 },
        after: { passed: 1, failed: 1 },
        changed: [{ case: 'checkout is served', before: 'pass', after: 'fail' }],
      },
    ]);
    // The trace diff of the request whose outcome changed: served before, cancelled by this rule after.
    expect(cr.evidence.outcomes).toStrictEqual([
      expect.objectContaining({
        suite: 'shop stays up',
        case: 'checkout is served',
        before: expect.objectContaining({ outcome: expect.objectContaining({ cancelled: false }) }),
        after: expect.objectContaining({ outcome: expect.objectContaining({ cancelled: true }) }),
      }),
    ]);

    // The owner asks for changes; the editor fixes the host; the owner approves; the editor merges.
    const asked = await t.call('POST', `/v1/change-requests/${cr.id}/reviews`, {
      ...as(owner.key),
      body: { verdict: 'request_changes', comment: 'checkout is cancelled: see the suite' },
    });
    expect(asked.body.data.state).toBe('rejected');
    const fixed = await t.call('PATCH', `/v1/change-requests/${cr.id}`, {
      ...as(editor()),
      body: {
        operations: [
          {
            op: 'update',
            kind: 'rule',
            id: ruleId,
            body: { pairs: cancelOf('ads.example', 'tracker.example') },
          },
        ],
      },
    });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(fixed.body.data.state).toBe('open');
    expect(fixed.body.data.evidence.tests).toStrictEqual([
      {
        suite: 'shop stays up',
        before: { passed: 2, failed: 0 },
        after: { passed: 2, failed: 0 },
        changed: [],
      },
    ]);
    expect(fixed.body.data.evidence.outcomes).toStrictEqual([]);
    const approved = await t.call('POST', `/v1/change-requests/${cr.id}/reviews`, {
      ...as(owner.key),
      body: { verdict: 'approve' },
    });
    expect(approved.body.data.state).toBe('approved');
    const before = (await t.call('GET', '/v1/changes', as(owner.key))).body.latest as number;
    const merged = await t.call('POST', `/v1/change-requests/${cr.id}/merge`, as(editor()));
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.data).toMatchObject({ state: 'merged', mergedRevision: before + 1 });

    // Applied as one revision, which the rule's history names.
    const rule = (await t.call('GET', `/v1/rules/${ruleId}`, as(owner.key))).body.data;
    expect(rule.pairs.map((p: { source: { value: string } }) => p.source.value)).toStrictEqual([
      'ads.example',
      'tracker.example',
    ]);
    const feed = (await t.call('GET', `/v1/changes?after=${before}`, as(owner.key))).body;
    expect(feed.data).toStrictEqual([
      expect.objectContaining({ revision: before + 1, id: ruleId, change: 'updated' }),
    ]);
    const versions = (await t.call('GET', `/v1/rules/${ruleId}/versions`, as(owner.key))).body.data;
    expect(versions[0]).toMatchObject({ changeRequestId: cr.id });

    // Every event reached the receiver, each with a signature its secret verifies.
    while ((await t.app.webhookDispatcher.runOnce()) > 0);
    const events = receiver.received.map((r) => {
      expect(signatureVerifies(secret, r.headers['rulekeeper-signature'] as string, r.body), r.body).toBe(
        true,
      );
      return JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
    });
    const types = events.map((e) => e.type);
    for (const type of [
      'change_request.opened',
      'change_request.reviewed',
      'change_request.updated',
      'change_request.merged',
      'rules.changed',
    ])
      expect(types, type).toContain(type);
    expect(types.filter((type) => type === 'change_request.reviewed')).toHaveLength(2);
    // The merge's revision, told as rule changes; no secret or key in any body.
    expect(events.filter((e) => e.type === 'rules.changed').length).toBeGreaterThanOrEqual(2);
    for (const r of receiver.received) {
      expect(r.body).not.toContain(secret);
      expect(r.body).not.toContain(owner.key);
      expect(r.body).not.toContain(editor());
    }
  });
});
