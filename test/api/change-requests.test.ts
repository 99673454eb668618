// Change requests (decisions §19): proposed by editors with operations checked as the direct routes
// check them, reviewed by someone other than their author, merged as one revision naming them, or
// refused with 409 naming what moved since their base revision, nothing applied. Both databases.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/tables.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { createKeys } from '../../src/services.js';
import { expectError } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const cancel = (name: string, host = 'a.example') => ({
  name,
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: host } }],
});

forEachDatabase((db) => {
  const t = useTestApp({ db });
  /** Alice, the owner, through an admin key; Bob (t.teammate) an editor; Vic a viewer; Ed another editor. */
  let admin: IssuedKey;
  let viewer: IssuedKey;
  let ed: IssuedKey;
  const bob = () => t.teammate.key;

  beforeAll(async () => {
    admin = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: 'admin' });
    viewer = await t.keysService.issue('acme', `vic ${db}`, { scope: 'read', expiresAt: null, name: null });
    ed = await t.keysService.issue('acme', `ed ${db}`);
  });

  const newRule = async (name: string) =>
    (await t.call('POST', '/v1/rules', { key: admin.key, body: cancel(name) })).body.data as { id: string };
  const propose = (body: unknown, key = bob()) => t.call('POST', '/v1/change-requests', { key, body });
  const review = (id: string, verdict: string, key = admin.key, comment?: string) =>
    t.call('POST', `/v1/change-requests/${id}/reviews`, { key, body: { verdict, comment } });
  const merge = (id: string, key = bob()) => t.call('POST', `/v1/change-requests/${id}/merge`, { key });
  const latest = async () => (await t.call('GET', '/v1/changes')).body.latest as number;

  it('walks open → rejected → open → approved → merged, applied as one revision naming it', async () => {
    const kept = await newRule('kept');
    const gone = await newRule('gone');
    const base = await latest();
    const made = await propose({
      title: '  Staging group  ',
      description: 'moves traffic',
      operations: [
        { op: 'create', kind: 'group', id: '$staging', body: { name: 'Staging' } },
        { op: 'create', kind: 'rule', body: { ...cancel('new'), groupId: '$staging' } },
        { op: 'update', kind: 'rule', id: kept.id, body: { name: 'kept, renamed' } },
        { op: 'delete', kind: 'rule', id: gone.id },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const cr = made.body.data;
    expect(made.headers.location).toBe(`/v1/change-requests/${cr.id}`);
    expect(cr).toMatchObject({
      title: 'Staging group',
      description: 'moves traffic',
      state: 'open',
      author: t.teammate.userId,
      baseRevision: base,
      version: 1,
      reviews: [],
      mergedRevision: null,
    });
    expect(cr.operations).toHaveLength(4);
    // Nothing is applied before the merge.
    expect(await latest()).toBe(base);

    // The author cannot approve, not even through another key of theirs.
    const second = await t.keysService.issue('acme', 'bob');
    expect(second.userId).toBe(t.teammate.userId);
    expectError(await review(cr.id, 'approve', second.key), 'UNAUTHORIZED_ACTION', [
      { path: '', message: 'the author of a change request cannot review it' },
    ]);
    // Editors do not review while the setting says admins.
    expectError(await review(cr.id, 'approve', ed.key), 'UNAUTHORIZED_ACTION', [
      {
        path: '',
        message: 'reviewing needs the admin role in this workspace (its reviewers setting is admins)',
      },
    ]);
    // Not merged without an approval.
    expectError(await merge(cr.id), 'CHANGE_REQUEST_STATE', [
      { path: '', message: 'a change request is merged once approved' },
    ]);

    const rejected = await review(cr.id, 'request_changes', admin.key, 'name it Staging EU');
    expect(rejected.body.data).toMatchObject({
      state: 'rejected',
      reviews: [
        { by: admin.userId, verdict: 'request_changes', comment: 'name it Staging EU', current: true },
      ],
    });
    expectError(await merge(cr.id), 'CHANGE_REQUEST_STATE', [
      { path: '', message: 'changes were requested on this change request: its author updates it first' },
    ]);
    // Only the author updates it; an update makes it open again and the old reviews no longer count.
    expectError(
      await t.call('PATCH', `/v1/change-requests/${cr.id}`, { key: ed.key, body: { title: 'mine' } }),
      'UNAUTHORIZED_ACTION',
      [{ path: '', message: 'only its author updates a change request' }],
    );
    const operations = [...cr.operations];
    operations[0] = { ...operations[0], body: { name: 'Staging EU' } };
    const updated = await t.call('PATCH', `/v1/change-requests/${cr.id}`, {
      key: bob(),
      body: { operations },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ state: 'open', version: 2, title: 'Staging group' });
    expect(updated.body.data.reviews[0].current).toBe(false);

    const approved = await review(cr.id, 'approve');
    expect(approved.body.data.state).toBe('approved');
    // A viewer neither proposes nor merges.
    expectError(await merge(cr.id, viewer.key), 'UNAUTHORIZED_ACTION', [
      expect.objectContaining({ path: '' }),
    ]);

    const merged = await merge(cr.id);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const revision = merged.body.data.mergedRevision;
    expect(merged.body.data).toMatchObject({ state: 'merged', endedBy: t.teammate.userId });
    expect(revision).toBe(base + 1);
    expect(await latest()).toBe(revision);

    // One revision, every change of it naming the change request.
    const changes = (await t.call('GET', `/v1/changes?after=${base}`)).body.data;
    expect(changes.map((c: { revision: number }) => c.revision)).toStrictEqual([
      revision,
      revision,
      revision,
      revision,
    ]);
    for (const change of changes) expect(change.changeRequestId).toBe(cr.id);
    const versions = (await t.call('GET', `/v1/rules/${kept.id}/versions`)).body.data;
    expect(versions[0]).toMatchObject({
      revision,
      changeRequestId: cr.id,
      object: { name: 'kept, renamed' },
    });
    expectError(await t.call('GET', `/v1/rules/${gone.id}`), 'RULE_NOT_FOUND');
    const group = changes.find((c: { objectType: string }) => c.objectType === 'group');
    const created = changes.find(
      (c: { objectType: string; change: string }) => c.objectType === 'rule' && c.change === 'created',
    );
    expect((await t.call('GET', `/v1/groups/${group.id}`)).body.data.name).toBe('Staging EU');
    expect((await t.call('GET', `/v1/rules/${created.id}`)).body.data.groupId).toBe(group.id);
    const activity = await t.call('GET', `/v1/activity?object=${kept.id}`, { key: admin.key });
    expect(activity.body.data[0].detail).toMatchObject({ revision, changeRequestId: cr.id });

    // Merged is final.
    expectError(await merge(cr.id), 'CHANGE_REQUEST_STATE', [
      { path: '', message: 'the change request is merged' },
    ]);
    expectError(await review(cr.id, 'approve'), 'CHANGE_REQUEST_STATE', [
      { path: '', message: 'the change request is merged' },
    ]);
    expectError(
      await t.call('PATCH', `/v1/change-requests/${cr.id}`, { key: bob(), body: { title: 'again' } }),
      'CHANGE_REQUEST_STATE',
      [{ path: '', message: 'the change request is merged' }],
    );
    expectError(
      await t.call('POST', `/v1/change-requests/${cr.id}/close`, { key: bob() }),
      'CHANGE_REQUEST_STATE',
      [{ path: '', message: 'the change request is merged' }],
    );
  });

  it('refuses a merge when a rule it touches changed since its base revision, naming it, applying nothing', async () => {
    const moved = await newRule('moved');
    const still = await newRule('still');
    const cr = (
      await propose({
        title: 'two renames',
        operations: [
          { op: 'update', kind: 'rule', id: still.id, body: { name: 'still, renamed' } },
          { op: 'update', kind: 'rule', id: moved.id, body: { name: 'moved, renamed' } },
        ],
      })
    ).body.data;
    expect((await review(cr.id, 'approve')).body.data.state).toBe('approved');
    const changed = await t.call('PUT', `/v1/rules/${moved.id}`, {
      key: admin.key,
      body: { status: 'Inactive' },
    });
    const at = Number(changed.headers['rulekeeper-revision']);
    const before = await latest();
    expectError(await merge(cr.id), 'CHANGE_REQUEST_CONFLICT', [
      {
        path: '/operations/1/id',
        message: `rule "${moved.id}" changed at revision ${at}, after the base revision ${cr.baseRevision}`,
      },
    ]);
    expect(await latest()).toBe(before);
    expect((await t.call('GET', `/v1/rules/${still.id}`)).body.data.name).toBe('still');
    expect((await t.call('GET', `/v1/change-requests/${cr.id}`)).body.data.state).toBe('approved');
    // Its author updates it against the workspace as it is now, and it merges after a new approval.
    const again = await t.call('PATCH', `/v1/change-requests/${cr.id}`, {
      key: bob(),
      body: { operations: cr.operations },
    });
    expect(again.body.data).toMatchObject({ state: 'open', baseRevision: before });
    await review(cr.id, 'approve');
    expect((await merge(cr.id)).body.data.state).toBe('merged');
  });

  it('is closed by its author or an admin, not by another editor; closed is final', async () => {
    const rule = await newRule('to close');
    const body = { title: 'close me', operations: [{ op: 'delete', kind: 'rule', id: rule.id }] };
    const first = (await propose(body)).body.data;
    expectError(
      await t.call('POST', `/v1/change-requests/${first.id}/close`, { key: ed.key }),
      'UNAUTHORIZED_ACTION',
      [{ path: '', message: 'a change request is closed by its author, an admin or an owner' }],
    );
    const closed = await t.call('POST', `/v1/change-requests/${first.id}/close`, { key: bob() });
    expect(closed.body.data).toMatchObject({ state: 'closed', endedBy: t.teammate.userId });
    expectError(await review(first.id, 'approve'), 'CHANGE_REQUEST_STATE', [
      { path: '', message: 'the change request is closed' },
    ]);
    const second = (await propose(body)).body.data;
    expect(
      (await t.call('POST', `/v1/change-requests/${second.id}/close`, { key: admin.key })).body.data.state,
    ).toBe('closed');
    const listed = await t.call('GET', '/v1/change-requests?state=closed', { key: viewer.key });
    expect(listed.status).toBe(200);
    const ids = listed.body.data.map((item: { id: string }) => item.id);
    expect(ids.slice(0, 2)).toStrictEqual([second.id, first.id]);
    expect(listed.body.data[0]).toMatchObject({ state: 'closed', operationCount: 1, title: 'close me' });
    expectError(await t.call('GET', '/v1/change-requests?state=lost'), 'INVALID_QUERY', [
      expect.objectContaining({ path: '/state' }),
    ]);
  });

  it("answers another workspace's change request as not found, whatever the route", async () => {
    const rule = await newRule('ours');
    const cr = (await propose({ title: 'ours', operations: [{ op: 'delete', kind: 'rule', id: rule.id }] }))
      .body.data;
    await review(cr.id, 'approve');
    const other = t.outsider.key;
    expectError(
      await t.call('GET', `/v1/change-requests/${cr.id}`, { key: other }),
      'CHANGE_REQUEST_NOT_FOUND',
    );
    expectError(await merge(cr.id, other), 'CHANGE_REQUEST_NOT_FOUND');
    expectError(await review(cr.id, 'approve', other), 'CHANGE_REQUEST_NOT_FOUND');
    expectError(
      await t.call('POST', `/v1/change-requests/${cr.id}/close`, { key: other }),
      'CHANGE_REQUEST_NOT_FOUND',
    );
    expectError(
      await t.call('PATCH', `/v1/change-requests/${cr.id}`, { key: other, body: { title: 'theirs' } }),
      'CHANGE_REQUEST_NOT_FOUND',
    );
    expect((await t.call('GET', '/v1/change-requests', { key: other })).body.total).toBe(0);
    expectError(await t.call('GET', '/v1/change-requests/cr_nothing'), 'CHANGE_REQUEST_NOT_FOUND');
    // Ids of any other form, even text a database cannot compare, are not found either.
    for (const odd of ['cr_%00x', 'x'.repeat(5000), '%F0%9F%98%80'])
      expectError(await t.call('GET', `/v1/change-requests/${odd}`), 'CHANGE_REQUEST_NOT_FOUND');
    expect((await t.call('GET', `/v1/change-requests/${cr.id}`)).body.data.state).toBe('approved');
  });

  describe('bad operations', () => {
    it('refuses a viewer proposing', async () => {
      const reply = await propose(
        { title: 'x', operations: [{ op: 'create', kind: 'group', body: { name: 'g' } }] },
        viewer.key,
      );
      expectError(reply, 'UNAUTHORIZED_ACTION', [expect.objectContaining({ path: '' })]);
    });

    it('refuses bodies with the errors the direct routes answer, pointed inside the operation, storing nothing', async () => {
      const rule = await newRule('target');
      const count = async () => (await t.call('GET', '/v1/change-requests')).body.total;
      const before = await count();
      const cases: [unknown, string, string][] = [
        [
          {
            ruleType: 'Cancel',
            name: 'x',
            pairs: [{ source: { key: 'host', operator: 'Nope', value: 'a' } }],
          },
          'POST',
          '/v1/rules',
        ],
        [{ ruleType: 'Cancel', pairs: [] }, 'POST', '/v1/rules'],
        [{ name: 'x', ruleType: 'Redirect' }, 'PUT', `/v1/rules/${rule.id}`],
        [{ name: '   ' }, 'POST', '/v1/groups'],
      ];
      for (const [body, method, url] of cases) {
        const direct = await t.call(method as 'POST', url, { key: admin.key, body });
        expect(direct.status).toBeGreaterThanOrEqual(400);
        const op =
          method === 'PUT'
            ? { op: 'update', kind: 'rule', id: rule.id, body }
            : { op: 'create', kind: url.endsWith('groups') ? 'group' : 'rule', body };
        const reply = await propose({ title: 'bad', operations: [op] });
        expect(reply.status).toBe(direct.status);
        expect(reply.body.code).toBe(direct.body.code);
        expect(reply.body.details).toStrictEqual(
          direct.body.details.map((d: { path: string }) => ({ ...d, path: `/operations/0/body${d.path}` })),
        );
      }
      expectError(
        await propose({
          title: 'x',
          operations: [{ op: 'update', kind: 'rule', id: 'Cancel_nope0', body: { name: 'y' } }],
        }),
        'RULE_NOT_FOUND',
        [{ path: '/operations/0/id', message: 'rule "Cancel_nope0"' }],
      );
      expectError(
        await propose({
          title: 'x',
          operations: [{ op: 'create', kind: 'rule', body: { ...cancel('y'), groupId: '$nope' } }],
        }),
        'GROUP_NOT_FOUND',
        [
          {
            path: '/operations/0/body/groupId',
            message: 'no group of this change request is called "$nope"',
          },
        ],
      );
      const outsiders = (await t.call('POST', '/v1/rules', { key: t.outsider.key, body: cancel('theirs') }))
        .body.data;
      expectError(
        await propose({ title: 'x', operations: [{ op: 'delete', kind: 'rule', id: outsiders.id }] }),
        'UNAUTHORIZED_ACTION',
        [{ path: '/operations/0/id', message: `rule "${outsiders.id}"` }],
      );
      expectError(
        await propose({
          title: 'x',
          operations: [
            { op: 'delete', kind: 'rule', id: rule.id },
            { op: 'update', kind: 'rule', id: rule.id, body: { name: 'y' } },
          ],
        }),
        'CHANGE_REQUEST_PAYLOAD_INVALID',
        [{ path: '/operations/1/id', message: 'this rule is changed by another operation already' }],
      );
      const many = Array.from({ length: 1001 }, () => ({ op: 'create', kind: 'group', body: { name: 'g' } }));
      expectError(await propose({ title: 'x', operations: many }), 'CHANGE_REQUEST_PAYLOAD_INVALID', [
        expect.objectContaining({ path: '/operations' }),
      ]);
      expectError(
        await propose({ title: ' ', operations: [{ op: 'delete', kind: 'rule', id: rule.id }] }),
        'CHANGE_REQUEST_PAYLOAD_INVALID',
        [{ path: '/title', message: 'must not be blank' }],
      );
      expect(await count()).toBe(before);
    });
  });

  it('is how editors change rules while review is required, their direct writes refused', async () => {
    expect(
      (await t.call('PATCH', '/v1/settings', { key: admin.key, body: { review: 'required' } })).status,
    ).toBe(200);
    try {
      expectError(
        await t.call('POST', '/v1/rules', { key: bob(), body: cancel('direct') }),
        'REVIEW_REQUIRED',
        [expect.objectContaining({ path: '' })],
      );
      const cr = (
        await propose({
          title: 'reviewed',
          operations: [{ op: 'create', kind: 'rule', body: cancel('reviewed') }],
        })
      ).body.data;
      await review(cr.id, 'approve');
      const merged = await merge(cr.id);
      expect(merged.body.data.state).toBe('merged');
      const change = (await t.call('GET', `/v1/changes?after=${merged.body.data.mergedRevision - 1}`)).body
        .data[0];
      const versions = (await t.call('GET', `/v1/rules/${change.id}/versions`)).body.data;
      expect(versions[0]).toMatchObject({ changeRequestId: cr.id });
      expect(versions[0]).not.toHaveProperty('reviewBypassed');
      // With reviewers `editors`, another editor approves.
      await t.call('PATCH', '/v1/settings', { key: admin.key, body: { reviewers: 'editors' } });
      const next = (
        await propose({ title: 'by editors', operations: [{ op: 'delete', kind: 'rule', id: change.id }] })
      ).body.data;
      expect((await review(next.id, 'approve', ed.key)).body.data.state).toBe('approved');
    } finally {
      await t.call('PATCH', '/v1/settings', { key: admin.key, body: { review: 'off', reviewers: 'admins' } });
    }
  });

  describe('evidence', () => {
    it("runs the workspace's stored suites before and after", async () => {
      const host = `stored-${db}.example`;
      const suite = await t.call('POST', '/v1/test-suites', {
        key: admin.key,
        body: {
          name: `stored ${db}`,
          cases: [{ name: 'blocked', request: { url: `https://${host}/` }, expect: { cancelled: true } }],
        },
      });
      expect(suite.status, JSON.stringify(suite.body)).toBe(201);
      try {
        const made = await propose({
          title: 'block it',
          operations: [{ op: 'create', kind: 'rule', body: cancel('blocker', host) }],
        });
        const tests = made.body.data.evidence.tests;
        expect(tests).toContainEqual({
          suite: `stored ${db}`,
          before: { passed: 0, failed: 1 },
          after: { passed: 1, failed: 0 },
          changed: [{ case: 'blocked', before: 'fail', after: 'pass' }],
        });
        expect(made.body.data.evidence.outcomes).toContainEqual(
          expect.objectContaining({
            suite: `stored ${db}`,
            case: 'blocked',
            after: expect.objectContaining({ outcome: expect.objectContaining({ cancelled: true }) }),
          }),
        );
      } finally {
        await t.call('DELETE', `/v1/test-suites/${suite.body.data.id}`, { key: admin.key });
      }
    });

    it('names the lint findings a change adds and removes, and the rules whose browser status flips', async () => {
      const host = `evidence-${db}.example`;
      const seed = (await t.call('POST', '/v1/rules', { key: admin.key, body: cancel('seed', host) })).body
        .data;
      const slow = (
        await t.call('POST', '/v1/rules', {
          key: admin.key,
          body: {
            name: 'slow',
            ruleType: 'Delay',
            status: 'Inactive',
            pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'slow' }, delay: 100 }],
          },
        })
      ).body.data;
      const cr = (
        await propose({
          title: 'a copy, and the delay on',
          operations: [
            { op: 'create', kind: 'rule', body: cancel('copy', host) },
            { op: 'update', kind: 'rule', id: slow.id, body: { status: 'Active' } },
          ],
        })
      ).body.data;
      const { evidence } = cr;
      expect(evidence).toMatchObject({ status: 'ready', revision: cr.baseRevision, tests: [], outcomes: [] });
      // The new rule (not merged: called new:N by its operation) duplicates the seed.
      expect(evidence.lint.added).toContainEqual(
        expect.objectContaining({ code: 'duplicate', ruleIds: expect.arrayContaining([seed.id, 'new:0']) }),
      );
      expect(evidence.lint.removed).toStrictEqual([]);
      expect(evidence.browser).toContainEqual({ ruleId: slow.id, before: null, after: 'not_compiled' });
      expect(evidence.browser).toContainEqual({ ruleId: 'new:0', before: null, after: 'compiled' });

      // Updated to remove the copy: computed again, the duplicate gone from what it adds.
      const updated = await t.call('PATCH', `/v1/change-requests/${cr.id}`, {
        key: bob(),
        body: { operations: [cr.operations[1]] },
      });
      expect(updated.body.data.evidence.lint.added).toStrictEqual([]);
      expect(updated.body.data.evidence.browser).toStrictEqual([
        { ruleId: slow.id, before: null, after: 'not_compiled' },
      ]);
      // A deletion removes the findings of what it deletes.
      const removing = (
        await propose({ title: 'seed gone', operations: [{ op: 'delete', kind: 'rule', id: seed.id }] })
      ).body.data;
      expect(removing.evidence.browser).toStrictEqual([{ ruleId: seed.id, before: 'compiled', after: null }]);
    });
  });

  it('runs the stored suites before and after, and tells each step of its life inside its transaction', async () => {
    // An instance wired as the landing will wire it: the workspace's suites, and a listener of events.
    const host = `suite-${db}.example`;
    const suites = async (workspaceId: string) =>
      workspaceId === t.owner.workspaceId
        ? [
            {
              name: 'smoke',
              cases: [
                {
                  name: 'host is blocked',
                  request: { url: `https://${host}/` },
                  expect: { cancelled: true },
                },
                {
                  name: 'others pass',
                  request: { url: 'https://fine.example/' },
                  expect: { cancelled: false },
                },
              ],
            },
          ]
        : [];
    const heard: { type: string; state: string; inTransaction: boolean }[] = [];
    const changeRequestEvents = async (trx: Db, workspaceId: string, type: string, cr: { state: string }) => {
      expect(workspaceId).toBe(t.owner.workspaceId);
      heard.push({ type, state: cr.state, inTransaction: trx.isTransaction });
    };
    const config = loadConfig({ DATABASE_URL: t.config.databaseUrl, RATE_LIMIT_PER_MINUTE: '0' });
    const database = openDatabase(config);
    await migrate(database);
    const other = await buildApp({
      config,
      database,
      keysService: createKeys(database, config),
      logger: false,
      suites,
      changeRequestEvents,
    });
    const call = async (method: 'POST' | 'PATCH', url: string, key: string, body?: unknown) => {
      const reply = await other.inject({
        method,
        url,
        headers: { 'x-api-key': key },
        ...(body ? { payload: body as object } : {}),
      });
      return { status: reply.statusCode, body: JSON.parse(reply.body) };
    };
    try {
      await other.ready();
      const blocker = (await t.call('POST', '/v1/rules', { key: admin.key, body: cancel('blocker', host) }))
        .body.data;
      const made = await call('POST', '/v1/change-requests', bob(), {
        title: 'unblock',
        operations: [{ op: 'update', kind: 'rule', id: blocker.id, body: { status: 'Inactive' } }],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const { evidence } = made.body.data;
      expect(evidence.tests).toStrictEqual([
        {
          suite: 'smoke',
          before: { passed: 2, failed: 0 },
          after: { passed: 1, failed: 1 },
          changed: [{ case: 'host is blocked', before: 'pass', after: 'fail' }],
        },
      ]);
      expect(evidence.outcomes).toHaveLength(1);
      expect(evidence.outcomes[0]).toMatchObject({
        suite: 'smoke',
        case: 'host is blocked',
        before: { outcome: { cancelled: true }, rules: [{ ruleId: blocker.id, acted: true }] },
        after: { outcome: { cancelled: false }, rules: [] },
      });
      const id = made.body.data.id;
      await call('PATCH', `/v1/change-requests/${id}`, bob(), { description: 'on purpose' });
      await call('POST', `/v1/change-requests/${id}/reviews`, admin.key, { verdict: 'approve' });
      expect((await call('POST', `/v1/change-requests/${id}/merge`, bob())).status).toBe(200);
      const closing = await call('POST', '/v1/change-requests', bob(), {
        title: 'to close',
        operations: [{ op: 'delete', kind: 'rule', id: blocker.id }],
      });
      await call('POST', `/v1/change-requests/${closing.body.data.id}/close`, bob());
      expect(heard).toStrictEqual([
        { type: 'opened', state: 'open', inTransaction: true },
        { type: 'updated', state: 'open', inTransaction: true },
        { type: 'reviewed', state: 'approved', inTransaction: true },
        { type: 'merged', state: 'merged', inTransaction: true },
        { type: 'opened', state: 'open', inTransaction: true },
        { type: 'closed', state: 'closed', inTransaction: true },
      ]);
    } finally {
      await other.close();
      await database.close();
    }
  });
});
