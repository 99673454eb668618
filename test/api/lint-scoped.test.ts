// A write's lint in a large workspace (LINT_SCOPED_FROM_RULES, here 0 so that every workspace is one):
// the written rule is linted among the rules around it, read from the database, and answers what a lint
// of the whole workspace answers about it wherever its rules stand within that neighbourhood.
import { describe, expect, it } from 'vitest';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import { createChangesStore } from '../../src/modules/changes/changes-store.js';
import { lintOnThisThread } from '../../src/modules/lint/lint-service.js';
import { createGroup, createRule, type Json } from '../helpers/fixtures.js';
import { forEachDatabase, type TestApp, useTestApp } from '../helpers/test-app.js';

const redirect = (value: string, destination: string, fields: Json = {}) => ({
  ruleType: 'Redirect',
  status: 'Active',
  pairs: [{ source: { key: 'Url', operator: 'Equals', value }, destinationType: 'url', destination }],
  ...fields,
});
const cancel = (host: string, fields: Json = {}) => ({
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: host } }],
  ...fields,
});
/** A Replace that acts: no rule after it is compared with one before it (it changes their URL). */
const replace = {
  ruleType: 'Replace',
  status: 'Active',
  pairs: [
    {
      source: { key: 'Url', operator: 'Contains', value: 'example.org' },
      from: 'example.org',
      to: 'example.net',
    },
  ],
};

/** The findings about `id` from a lint that holds the whole workspace (the path of small workspaces). */
function wholeLint(t: TestApp) {
  const lint = lintOnThisThread(
    t.database.db,
    createChangesService({
      store: createChangesStore(t.database.db),
      dataVersion: undefined,
      signals: t.database.signals,
    }),
  );
  return (id: string) =>
    lint.findingsOfRule({ ...t.owner, via: 'key' as const, ownerUserId: t.owner.userId }, id);
}

forEachDatabase((db) => {
  describe('warnings on writes in a large workspace', () => {
    const t = useTestApp({ db, env: { LINT_SCOPED_FROM_RULES: '0' } });

    it('answers each write what the lint of the whole workspace answers about its rule', async () => {
      const inactive = await createGroup(t, { status: 'Inactive' });
      const active = await createGroup(t, { status: 'Active' });
      const rules = [
        await createRule(t, { name: 'A to B', ...redirect('https://a.example/x', 'https://b.example/y') }),
        await createRule(t, { name: 'B to A', ...redirect('https://b.example/y', 'https://a.example/x') }),
        await createRule(t, { name: 'ads', ...cancel('ads.example.com') }),
        await createRule(t, { name: 'ads again', ...cancel('ads.example.com') }),
        await createRule(t, {
          name: 'everything',
          ruleType: 'Cancel',
          status: 'Active',
          pairs: [{ source: { key: 'Url', operator: 'Contains', value: '' } }],
        }),
        await createRule(t, { name: 'org to net', ...replace }),
        await createRule(t, {
          name: 'parked',
          ...redirect('https://c.example/', 'https://d.example/', { groupId: inactive.id }),
        }),
        await createRule(t, {
          name: 'left out',
          ...redirect('https://c.example/', 'https://d.example/', { groupId: active.id, status: 'Inactive' }),
        }),
        await createRule(t, { name: 'trackers', ...cancel('trackers.example.com') }),
        await createRule(t, { name: 'org to net again', ...replace }),
      ];
      const whole = wholeLint(t);
      let found = 0;
      for (const rule of rules) {
        for (const body of [{ description: 'touched' }, { status: 'Inactive' }, { status: 'Active' }]) {
          const reply = await t.call('PUT', `/v1/rules/${rule.id}`, { body });
          expect(reply.status, JSON.stringify(reply.body)).toBe(200);
          expect(reply.body.warnings, `${rule.name} after ${JSON.stringify(body)}`).toEqual(
            await whole(rule.id as string),
          );
          found += reply.body.warnings.length;
        }
      }
      // The workspace's findings were there to be found: loops, copies, shadows, groups.
      expect(found).toBeGreaterThan(10);
    });

    it('answers a create its findings among the rules before it', async () => {
      const first = await createRule(t, { name: 'first block', ...cancel('block.example.com') });
      const reply = await t.call('POST', '/v1/rules', {
        body: { name: 'second block', ...cancel('block.example.com') },
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.warnings.map((w: Json) => [w.code, w.ruleIds])).toEqual(
        expect.arrayContaining([['duplicate', [reply.body.data.id, first.id]]]),
      );
      expect(reply.body.warnings).toEqual(await wholeLint(t)(reply.body.data.id));
    });

    it('looks for copies among the rules around the written one only: not past a Replace that acts', async () => {
      const copy = cancel('far.example.com');
      const first = await createRule(t, { name: 'far first', ...copy });
      await createRule(t, {
        name: 'boundary',
        ...replace,
        pairs: [{ ...replace.pairs[0], to: 'far.example.net' }],
      });
      const later = await createRule(t, { name: 'far later', ...copy });
      const reply = await t.call('PUT', `/v1/rules/${later.id}`, { body: { description: 'touched' } });
      expect(reply.body.warnings).toEqual([]);
      // The whole workspace's lint (GET /v1/lint) names the copy.
      const lint = await t.call('GET', '/v1/lint');
      expect(
        lint.body.data.findings.filter(
          (f: Json) => f.code === 'duplicate' && (f.ruleIds as string[]).includes(later.id as string),
        ),
      ).toEqual([expect.objectContaining({ ruleIds: [later.id, first.id] })]);
    });
  });
});
