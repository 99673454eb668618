// The workspace's settings (decisions §19): `review` off by default; admins change it; while it is
// required an editor's every direct write to rules and groups is refused with 409 Review required and
// changes nothing, while an admin's goes through, marked in history and the activity. Both databases.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/database.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { createKeys } from '../../src/services.js';
import { expectError } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const cancel = (name: string) => ({
  name,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
});

forEachDatabase((db) => {
  const t = useTestApp({ db });
  /** Alice (the owner) through an admin key; Bob is an editor; Vic a viewer. */
  let admin: IssuedKey;
  let viewer: IssuedKey;
  const editor = () => t.teammate.key;
  const setReview = (review: string, key = admin.key) =>
    t.call('PATCH', '/v1/settings', { key, body: { review } });

  beforeAll(async () => {
    admin = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: 'admin' });
    viewer = await t.keysService.issue('acme', `vic ${db}`, { scope: 'read', expiresAt: null, name: null });
  });

  it('answers the defaults, to every member', async () => {
    const reply = await t.call('GET', '/v1/settings', { key: viewer.key });
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ success: true, data: { review: 'off', reviewers: 'admins' } });
  });

  it('is changed by admins alone, with a clear 400 for a wrong body, and the change is in the activity', async () => {
    const refused = [expect.objectContaining({ path: '' })];
    expectError(await setReview('required', editor()), 'UNAUTHORIZED_ACTION', refused);
    expectError(await setReview('required', viewer.key), 'UNAUTHORIZED_ACTION', refused);
    // The owner's write key reaches no further than write.
    expectError(await setReview('required', t.owner.key), 'UNAUTHORIZED_ACTION', refused);
    expectError(await setReview('sometimes'), 'SETTINGS_PAYLOAD_INVALID', [
      expect.objectContaining({ path: '/review' }),
    ]);
    const extra = await t.call('PATCH', '/v1/settings', {
      key: admin.key,
      body: { review: 'off', colour: 1 },
    });
    expectError(extra, 'SETTINGS_PAYLOAD_INVALID', [{ path: '/colour', message: 'unknown field "colour"' }]);
    expect((await t.call('GET', '/v1/settings')).body.data.review).toBe('off');

    const changed = await t.call('PATCH', '/v1/settings', { key: admin.key, body: { reviewers: 'editors' } });
    expect(changed.body).toStrictEqual({ success: true, data: { review: 'off', reviewers: 'editors' } });
    const activity = await t.call('GET', '/v1/activity?kind=setting_changed', { key: admin.key });
    expect(activity.body.data[0]).toMatchObject({
      kind: 'setting_changed',
      by: admin.userId,
      object: { type: 'setting', id: 'reviewers' },
      detail: { setting: 'reviewers', from: 'admins', to: 'editors' },
    });
    expect(
      (await t.call('PATCH', '/v1/settings', { key: admin.key, body: { reviewers: 'admins' } })).status,
    ).toBe(200);
  });

  describe('while review is required', () => {
    let rule: { id: string };
    let group: { id: string };
    let deleted: { id: string };

    beforeAll(async () => {
      rule = (await t.call('POST', '/v1/rules', { key: editor(), body: cancel('kept') })).body.data;
      group = (await t.call('POST', '/v1/groups', { key: editor(), body: { name: 'kept' } })).body.data;
      deleted = (await t.call('POST', '/v1/rules', { key: editor(), body: cancel('gone') })).body.data;
      await t.call('PUT', `/v1/rules/${rule.id}`, { key: editor(), body: { name: 'kept 2' } });
      await t.call('DELETE', `/v1/rules/${deleted.id}`, { key: editor() });
      expect((await setReview('required')).body.data.review).toBe('required');
    });

    const writes = (): [string, string, unknown][] => [
      ['POST', '/v1/rules', cancel('new')],
      ['PUT', `/v1/rules/${rule.id}`, { name: 'changed' }],
      ['DELETE', `/v1/rules/${rule.id}`, undefined],
      ['POST', `/v1/rules/${rule.id}/restore`, { version: 1 }],
      ['POST', `/v1/rules/${deleted.id}/restore`, { version: 1 }],
      ['POST', '/v1/groups', { name: 'new' }],
      ['PUT', `/v1/groups/${group.id}`, { name: 'changed' }],
      ['DELETE', `/v1/groups/${group.id}`, undefined],
      ['POST', `/v1/groups/${group.id}/restore`, { version: 1 }],
      ['POST', '/v1/import', []],
    ];

    it('refuses every direct write of an editor with 409 Review required, and nothing changes', async () => {
      const revision = (await t.call('GET', '/v1/changes')).body.latest;
      for (const [method, url, body] of writes()) {
        const reply = await t.call(method as 'POST', url, { key: editor(), body });
        expectError(reply, 'REVIEW_REQUIRED', [
          {
            path: '',
            message:
              "this workspace's review is required: propose the change as a change request (POST /v1/change-requests)",
          },
        ]);
      }
      expect((await t.call('GET', '/v1/changes')).body.latest).toBe(revision);
      expect((await t.call('GET', `/v1/rules/${rule.id}`)).body.data.name).toBe('kept 2');
      // Reads are not reviewed.
      expect((await t.call('GET', '/v1/rules', { key: editor() })).status).toBe(200);
    });

    it("lets an admin's key write directly, marked in history and the activity", async () => {
      const updated = await t.call('PUT', `/v1/rules/${rule.id}`, {
        key: admin.key,
        body: { name: 'by admin' },
      });
      expect(updated.status).toBe(200);
      const versions = (await t.call('GET', `/v1/rules/${rule.id}/versions`)).body.data;
      expect(versions[0]).toMatchObject({ by: admin.userId, reviewBypassed: true });
      expect(versions[1]).not.toHaveProperty('reviewBypassed');
      const activity = await t.call('GET', `/v1/activity?object=${rule.id}`, { key: admin.key });
      expect(activity.body.data[0]).toMatchObject({ kind: 'rule_updated', detail: { reviewBypassed: true } });
      expect(activity.body.data[1].detail).not.toHaveProperty('reviewBypassed');
      const made = await t.call('POST', '/v1/groups', { key: admin.key, body: { name: 'by admin' } });
      expect(made.status).toBe(201);
      const restored = await t.call('POST', `/v1/rules/${deleted.id}/restore`, {
        key: admin.key,
        body: { version: 1 },
      });
      expect(restored.status).toBe(200);
    });

    it('lets editors write again once review is off', async () => {
      await setReview('off');
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, { key: editor(), body: { name: 'by bob' } });
      expect(reply.status).toBe(200);
      const versions = (await t.call('GET', `/v1/rules/${rule.id}/versions`)).body.data;
      expect(versions[0]).not.toHaveProperty('reviewBypassed');
    });
  });

  it('is heard by another instance that kept the old setting', async () => {
    const config = loadConfig({ DATABASE_URL: t.config.databaseUrl, RATE_LIMIT_PER_MINUTE: '0' });
    const database = openDatabase(config);
    await migrate(database);
    const other = await buildApp({
      config,
      database,
      keysService: createKeys(database, config),
      logger: false,
    });
    try {
      await other.ready();
      const write = () =>
        other.inject({
          method: 'POST',
          url: '/v1/groups',
          headers: { 'x-api-key': editor() },
          payload: { name: 'on the other instance' },
        });
      expect((await write()).statusCode).toBe(201); // review off, now kept by that instance
      expect((await setReview('required')).status).toBe(200);
      // Heard through the access signal (PostgreSQL's NOTIFY, SQLite's data_version).
      let status = 201;
      for (const deadline = Date.now() + 10_000; status !== 409 && Date.now() < deadline; ) {
        await new Promise((resolve) => setImmediate(resolve));
        status = (await write()).statusCode;
      }
      expect(status).toBe(409);
    } finally {
      await setReview('off');
      await other.close();
      await database.close();
    }
  });
});
