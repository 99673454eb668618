// GET /v1/lint: the findings of the caller's workspace, most serious first, with the rules they name;
// an ETag by revision (304 while nothing changed); another workspace's rules never show.
import { describe, expect, it } from 'vitest';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import { createChangesStore } from '../../src/modules/changes/changes-store.js';
import { lintOnThisThread } from '../../src/modules/lint/lint-service.js';
import { createGroup, createRule, expectError, type Json } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const redirect = (value: string, destination: string, fields: Json = {}) => ({
  ruleType: 'Redirect',
  status: 'Active',
  pairs: [{ source: { key: 'Url', operator: 'Equals', value }, destinationType: 'url', destination }],
  ...fields,
});

forEachDatabase((db) => {
  describe('GET /v1/lint', () => {
    const t = useTestApp({ db });

    it('needs a key', async () => {
      expectError(await t.call('GET', '/v1/lint', { key: null }), 'API_KEY_REQUIRED');
    });

    it('answers the findings with the rules they name, and nothing about another workspace', async () => {
      const empty = await t.call('GET', '/v1/lint', { key: t.outsider.key });
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual({
        findings: [],
        rules: [],
        counts: { error: 0, warning: 0, info: 0 },
        complete: true,
      });

      const a = await createRule(t, {
        name: 'A to B',
        ...redirect('https://a.example/x', 'https://b.example/y'),
      });
      const b = await createRule(t, {
        name: 'B to A',
        ...redirect('https://b.example/y', 'https://a.example/x'),
      });
      const off = await createGroup(t, { status: 'Inactive' });
      const parked = await createRule(t, { name: 'parked', status: 'Active', groupId: off.id });
      const reply = await t.call('GET', '/v1/lint');
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { findings, rules, counts } = reply.body.data;
      expect(findings).toEqual([
        {
          code: 'redirect_loop',
          severity: 'error',
          ruleIds: [a.id, b.id],
          pointers: [
            { ruleId: a.id, path: '/pairs' },
            { ruleId: b.id, path: '/pairs' },
          ],
          message: expect.stringContaining('"A to B" → "B to A"'),
          hint: expect.any(String),
        },
        expect.objectContaining({ code: 'active_in_inactive_group', severity: 'info', ruleIds: [parked.id] }),
      ]);
      expect(rules).toEqual([
        { id: a.id, name: 'A to B', ruleType: 'Redirect', status: 'Active' },
        { id: b.id, name: 'B to A', ruleType: 'Redirect', status: 'Active' },
        { id: parked.id, name: 'parked', ruleType: 'Cancel', status: 'Active' },
      ]);
      expect(counts).toEqual({ error: 1, warning: 0, info: 1 });

      const theirs = await t.call('GET', '/v1/lint', { key: t.outsider.key });
      expect(theirs.body.data.findings).toEqual([]);
    });

    it('has an ETag by revision: 304 while nothing changed, new findings after a change', async () => {
      const first = await t.call('GET', '/v1/lint');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"\d+-/);
      const again = await t.call('GET', '/v1/lint', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);

      const rule = await createRule(t, {
        name: 'cancel everything',
        status: 'Active',
        pairs: [{ source: { key: 'Url', operator: 'Contains', value: '' } }],
      });
      const changed = await t.call('GET', '/v1/lint', { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.body.data.findings).toContainEqual(
        expect.objectContaining({ code: 'matches_everything', ruleIds: [rule.id] }),
      );
    });
  });
});

forEachDatabase((db) => {
  describe('kept up to date from the change log', () => {
    const t = useTestApp({ db });

    it('answers after every kind of write what a lint of the workspace read afresh answers', async () => {
      const fresh = () =>
        lintOnThisThread(
          t.database.db,
          createChangesService({
            store: createChangesStore(t.database.db),
            dataVersion: undefined,
            signals: t.database.signals,
          }),
        ).lint({ ...t.owner, via: 'key' as const, ownerUserId: t.owner.userId });
      const same = async () => {
        const kept = await t.call('GET', '/v1/lint');
        expect(kept.status).toBe(200);
        expect(kept.body.data).toEqual(await fresh());
      };
      await same();
      const a = await createRule(t, { name: 'A', ...redirect('https://a.example/x', 'https://b.example/y') });
      await same();
      const b = await createRule(t, { name: 'B', ...redirect('https://b.example/y', 'https://a.example/x') });
      await same();
      const copy = await createRule(t, {
        name: 'copy',
        ...redirect('https://a.example/x', 'https://b.example/y'),
      });
      await same();
      const group = await createGroup(t, { status: 'Active' });
      await t.call('PUT', `/v1/rules/${copy.id}`, { body: { groupId: group.id } });
      await same();
      await t.call('PUT', `/v1/groups/${group.id}`, { body: { status: 'Inactive' } });
      await same();
      await t.call('DELETE', `/v1/rules/${b.id}`);
      await same();
      await t.call('PUT', `/v1/rules/${a.id}`, { body: { status: 'Inactive' } });
      await same();
    });
  });

  describe('warnings on writes of a rule', () => {
    const t = useTestApp({ db });
    const everything = {
      name: 'cancel everything',
      ruleType: 'Cancel',
      status: 'Active',
      pairs: [{ source: { key: 'Url', operator: 'Contains', value: '' } }],
    };

    it('POST answers the new rule with its findings, and writes it all the same', async () => {
      const reply = await t.call('POST', '/v1/rules', { body: everything });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.warnings).toEqual([
        expect.objectContaining({
          code: 'matches_everything',
          severity: 'warning',
          ruleIds: [reply.body.data.id],
          pointers: [{ ruleId: reply.body.data.id, path: '/pairs/0/source/value' }],
          hint: expect.stringMatching(/\S/),
        }),
      ]);
      const stored = await t.call('GET', `/v1/rules/${reply.body.data.id}`);
      expect(stored.body.data).toStrictEqual(reply.body.data);
    });

    it('names a rule shadowed by an earlier one, on its POST and on the earlier rule’s PUT', async () => {
      // In another workspace than the test before: its rule would be a duplicate here.
      const key = t.outsider.key;
      const first = await t.call('POST', '/v1/rules', {
        key,
        body: { ...everything, name: 'off for now', status: 'Inactive' },
      });
      expect(first.body.warnings).toEqual([expect.objectContaining({ code: 'matches_everything' })]);
      const later = await t.call('POST', '/v1/rules', {
        key,
        body: {
          name: 'block ads',
          ruleType: 'Cancel',
          status: 'Active',
          pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
        },
      });
      expect(later.body.warnings).toEqual([]);
      const activated = await t.call('PUT', `/v1/rules/${first.body.data.id}`, {
        key,
        body: { status: 'Active' },
      });
      expect(activated.status).toBe(200);
      expect(activated.body.warnings.map((w: Json) => [w.code, w.ruleIds])).toEqual([
        ['shadowed', [later.body.data.id, first.body.data.id]],
        ['matches_everything', [first.body.data.id]],
      ]);
      const lint = await t.call('GET', '/v1/lint', { key });
      expect(lint.body.data.findings).toEqual(expect.arrayContaining(activated.body.warnings));
    });
  });

  describe('warnings on writes that arrive together', () => {
    const t = useTestApp({ db });

    // Writes committed together share the bringing up to date of the lint's copy: each must still be
    // linted in the workspace as of its own revision or later. Four at a time: a key's share of the
    // lint pool (more are answered without warnings, by design).
    it('each of creates arriving four at a time names its copies committed before it', async () => {
      const body = redirect('https://same.example/x', 'https://elsewhere.example/');
      const seed = await createRule(t, { name: 'first copy', ...body });
      for (let round = 0; round < 5; round++) {
        const replies = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            t.call('POST', '/v1/rules', { body: { ...body, name: `copy ${round}.${i}` } }),
          ),
        );
        for (const reply of replies) {
          expect(reply.status, JSON.stringify(reply.body)).toBe(201);
          const duplicate = reply.body.warnings.find((w: Json) => w.code === 'duplicate');
          expect(duplicate?.ruleIds).toEqual(expect.arrayContaining([reply.body.data.id, seed.id]));
        }
      }
    });

    it('gives each of 30 creates at once its warnings: a burst from one key is linted together, not turned away', async () => {
      const body = redirect('https://burst.example/x', 'https://elsewhere.example/');
      const seed = await createRule(t, { name: 'burst seed', ...body });
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          t.call('POST', '/v1/rules', { body: { ...body, name: `burst ${i}` } }),
        ),
      );
      for (const reply of replies) {
        expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        const duplicate = reply.body.warnings.find((w: Json) => w.code === 'duplicate');
        expect(duplicate?.ruleIds).toEqual(expect.arrayContaining([reply.body.data.id, seed.id]));
      }
    });
  });
});

forEachDatabase((db) => {
  describe('warnings not waited for (LINT_WRITE_WAIT_MS=0)', () => {
    const t = useTestApp({ db, env: { LINT_WRITE_WAIT_MS: '0' } });

    it('answers a write without them; GET /v1/lint has them, and the change stream names the write', async () => {
      const body = redirect('https://nowait.example/x', 'https://elsewhere.example/');
      const first = await createRule(t, { name: 'first', ...body });
      const reply = await t.call('POST', '/v1/rules', { body: { ...body, name: 'second' } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.warnings).toEqual([]);
      const second = reply.body.data.id;
      const lint = await t.call('GET', '/v1/lint');
      const duplicate = lint.body.data.findings.find((f: Json) => f.code === 'duplicate');
      expect(duplicate?.ruleIds).toEqual(expect.arrayContaining([first.id, second]));
      const feed = await t.call('GET', '/v1/changes');
      expect(feed.body.data.map((item: Json) => item.id)).toContain(second);
    });
  });

  describe('warnings on import', () => {
    const t = useTestApp({ db });
    const file = [
      {
        objectType: 'rule',
        name: 'API to staging',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'example.com/api' },
            destination: 'https://staging.example.com/api',
          },
        ],
      },
      {
        objectType: 'rule',
        name: 'fine',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.test' } }],
      },
    ];

    it('adds the findings about each rule written to its warnings, after the conversions’ own', async () => {
      const dry = await t.call('POST', '/v1/import?dryRun=true', { body: file });
      expect(dry.status).toBe(200);
      // A dry run writes nothing: the lint, which reads the workspace, has nothing to say yet.
      expect(dry.body.data.items.map((item: Json) => item.warnings)).toEqual([[], []]);
      const reply = await t.call('POST', '/v1/import', { body: file });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [redirect, cancel] = reply.body.data.items;
      expect(redirect.warnings).toEqual([
        expect.stringMatching(
          /^redirect_loop \(warning\): "API to staging" redirects to a URL its own source matches again .* Hint: /,
        ),
      ]);
      expect(cancel.warnings).toEqual([]);
    });
  });
});
