// GET /v1/rules and GET /v1/groups: paging, order, filters, group counts, and invalid queries.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import {
  at,
  cancelPair,
  createGroup,
  createRule,
  expectError,
  type Json,
  type Reply,
  redirectPair,
} from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

type Item = { id: string; creationDate: number } & Json;

/** Oldest first by creationDate, then by id. */
function inListOrder(items: Item[]): Item[] {
  return [...items].sort(
    (a, b) => a.creationDate - b.creationDate || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

function expectPage(reply: Reply, data: unknown[], total: number, nextOffset: number | null): void {
  expect(reply.status).toBe(200);
  expect(reply.body).toStrictEqual({ success: true, data, total, nextOffset });
}

forEachDatabase((db) => {
  describe('paging (a workspace of its own)', () => {
    const t = useTestApp({ db });
    let rules: Item[];
    let groups: Item[];
    beforeAll(async () => {
      rules = [];
      groups = [];
      for (let i = 0; i < 7; i++) {
        groups.push((await createGroup(t, { name: `group ${i}` })) as Item);
        rules.push((await createRule(t, { name: `rule ${i}` })) as Item);
      }
      // Objects of another workspace must not show in the pages or the totals.
      await createRule(t, {}, t.outsider.key);
      await createGroup(t, {}, t.outsider.key);
    });

    it('GET /v1/rules without parameters answers everything, oldest first, on one page', async () => {
      expectPage(await t.call('GET', '/v1/rules'), inListOrder(rules), 7, null);
    });

    it('lists each rule exactly as GET /v1/rules/:id answers it, field order included', async () => {
      const listed = await t.call('GET', '/v1/rules');
      for (const item of listed.body.data) {
        const single = await t.call('GET', `/v1/rules/${item.id}`);
        expect(JSON.stringify(item)).toBe(JSON.stringify(single.body.data));
      }
    });

    it('GET /v1/groups without parameters answers everything with counts, on one page', async () => {
      const reply = await t.call('GET', '/v1/groups');
      expectPage(
        reply,
        inListOrder(groups).map((group) => ({ ...group, ruleCount: 0, activeRuleCount: 0 })),
        7,
        null,
      );
    });

    it.each(['rules', 'groups'])('pages of /v1/%s cover every item once, in a stable order', async (kind) => {
      const all = (await t.call('GET', `/v1/${kind}`)).body.data as Item[];
      expect(all.map((item) => item.id)).toEqual(inListOrder(all).map((item) => item.id));
      for (const pageSize of [1, 2, 3, 7, 1000]) {
        const seen: Item[] = [];
        let offset: number | null = 0;
        let pages = 0;
        while (offset !== null) {
          const reply = await t.call('GET', `/v1/${kind}?offset=${offset}&pageSize=${pageSize}`);
          expect(reply.status).toBe(200);
          expect(reply.body.total).toBe(7);
          expect(reply.body.data.length).toBe(Math.min(pageSize, 7 - offset));
          const expectedNext: number | null = offset + pageSize < 7 ? offset + pageSize : null;
          expect(reply.body.nextOffset).toBe(expectedNext);
          seen.push(...reply.body.data);
          offset = reply.body.nextOffset;
          pages += 1;
          expect(pages).toBeLessThanOrEqual(7);
        }
        expect(seen).toStrictEqual(all);
      }
    });

    it('pages are in the same order as the full list, page after page', async () => {
      const all = (await t.call('GET', '/v1/rules')).body.data;
      expectPage(await t.call('GET', '/v1/rules?offset=2&pageSize=3'), all.slice(2, 5), 7, 5);
      expectPage(await t.call('GET', '/v1/rules?offset=5&pageSize=3'), all.slice(5), 7, null);
      expectPage(await t.call('GET', '/v1/rules?offset=6&pageSize=1'), all.slice(6), 7, null);
      expectPage(await t.call('GET', '/v1/rules?pageSize=7'), all, 7, null);
      expectPage(await t.call('GET', '/v1/rules?pageSize=6'), all.slice(0, 6), 7, 6);
    });

    it('an offset at or past the end answers an empty last page with the total', async () => {
      expectPage(await t.call('GET', '/v1/rules?offset=7'), [], 7, null);
      expectPage(await t.call('GET', '/v1/groups?offset=100&pageSize=5'), [], 7, null);
    });

    it('the largest page size is 1000', async () => {
      const reply = await t.call('GET', '/v1/groups?pageSize=1000');
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(7);
    });

    it('ties on creationDate are broken by id', async () => {
      // Rules created in one burst often share a millisecond; the order must still be total.
      const burst = await Promise.all(Array.from({ length: 6 }, () => createRule(t, { name: 'burst' })));
      const listed = (await t.call('GET', '/v1/rules?search=burst')).body.data as Item[];
      expect(listed.map((r) => r.id)).toEqual(inListOrder(burst as Item[]).map((r) => r.id));
      for (const rule of burst) expect((await t.call('DELETE', `/v1/rules/${rule.id}`)).status).toBe(200);
    });
  });

  describe('filters and counts', () => {
    const t = useTestApp({ db });

    it('filters rules by status, ruleType and groupId, alone and together', async () => {
      const group = await createGroup(t);
      const other = await createGroup(t);
      const a = await createRule(t, { groupId: group.id, status: 'Active' });
      const b = await createRule(t, { groupId: group.id, ruleType: 'Redirect', pairs: [redirectPair()] });
      const c = await createRule(t, {
        groupId: other.id,
        status: 'Active',
        ruleType: 'Redirect',
        pairs: [redirectPair()],
      });
      const d = await createRule(t, { status: 'Active' });
      const e = await createRule(t);
      const outsiders = await createRule(t, { status: 'Active' }, t.outsider.key);

      const ids = async (query: string) => {
        const reply = await t.call('GET', `/v1/rules?${query}`);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body.total).toBe(reply.body.data.length);
        return (reply.body.data as Item[]).map((r) => r.id);
      };
      expect(await ids('status=Active')).toEqual([a.id, c.id, d.id]);
      expect(await ids('status=Inactive')).toEqual([b.id, e.id]);
      expect(await ids('ruleType=Redirect')).toEqual([b.id, c.id]);
      expect(await ids('ruleType=Cancel')).toEqual([a.id, d.id, e.id]);
      expect(await ids('ruleType=Delay')).toEqual([]);
      expect(await ids(`groupId=${group.id}`)).toEqual([a.id, b.id]);
      expect(await ids(`groupId=${other.id}`)).toEqual([c.id]);
      expect(await ids('groupId=')).toEqual([d.id, e.id]);
      expect(await ids('groupId=Group_zzzzz')).toEqual([]);
      expect(await ids(`groupId=${group.id}&status=Active`)).toEqual([a.id]);
      expect(await ids('groupId=&status=Inactive&ruleType=Cancel')).toEqual([e.id]);
      expect(await ids('status=Active&ruleType=Redirect')).toEqual([c.id]);
      expect(await ids('')).not.toContain(outsiders.id);
    });

    it('pages a filtered list with the filtered total', async () => {
      const group = await createGroup(t);
      const made: Json[] = [];
      for (let i = 0; i < 5; i++) made.push(await createRule(t, { groupId: group.id }));
      const first = await t.call('GET', `/v1/rules?groupId=${group.id}&pageSize=2`);
      expectPage(first, made.slice(0, 2), 5, 2);
      const last = await t.call('GET', `/v1/rules?groupId=${group.id}&pageSize=2&offset=4`);
      expectPage(last, made.slice(4), 5, null);
    });

    it('searches names case-insensitively, as a substring', async () => {
      const names = ['Checkout Redirect QX', 'checkout mock qx', 'CHECKOUT qx', 'Login qx'];
      const made = [];
      for (const name of names) made.push(await createRule(t, { name }));
      const found = async (search: string) => {
        const reply = await t.call('GET', `/v1/rules?search=${encodeURIComponent(search)}`);
        expect(reply.status).toBe(200);
        return (reply.body.data as Item[]).map((r) => r.name);
      };
      expect(await found('checkout')).toEqual(names.slice(0, 3));
      expect(await found('CheckOut')).toEqual(names.slice(0, 3));
      expect(await found('kout m')).toEqual(['checkout mock qx']);
      expect(await found('QX')).toEqual(names);
      expect(await found('redirect qx')).toEqual(['Checkout Redirect QX']);
      expect(await found('nothing like it')).toEqual([]);
      const combined = await t.call('GET', `/v1/rules?search=qx&status=Inactive&pageSize=1`);
      expectPage(combined, [made[0]], 4, 1);
    });

    it('searches names case-insensitively beyond ASCII', async () => {
      const rule = await createRule(t, { name: 'ÄRGER Ünïcode' });
      const reply = await t.call('GET', `/v1/rules?search=${encodeURIComponent('ärger ünï')}`);
      expect(reply.status).toBe(200);
      expect(reply.body.data.map((r: Item) => r.id)).toEqual([rule.id]);
    });

    it('takes %, _ and \\ in a search literally', async () => {
      const percent = await createRule(t, { name: 'LIT 100% done' });
      await createRule(t, { name: 'LIT 100 done' });
      await createRule(t, { name: 'LIT 1000 done' });
      const underscore = await createRule(t, { name: 'LIT snake_case' });
      await createRule(t, { name: 'LIT snakeXcase' });
      const backslash = await createRule(t, { name: 'LIT back\\slash' });
      await createRule(t, { name: 'LIT backslash' });
      const found = async (search: string) => {
        const reply = await t.call('GET', `/v1/rules?search=${encodeURIComponent(search)}`);
        expect(reply.status).toBe(200);
        return (reply.body.data as Item[]).map((r) => r.id);
      };
      expect(await found('%')).toEqual([percent.id]);
      expect(await found('0%')).toEqual([percent.id]);
      expect(await found('_')).toEqual([underscore.id]);
      expect(await found('e_c')).toEqual([underscore.id]);
      expect(await found('\\')).toEqual([backslash.id]);
      expect(await found('k\\s')).toEqual([backslash.id]);
      expect(await found('LIT ')).toHaveLength(7);
    });

    it('searches descriptions and source values too, never what a rule does', async () => {
      const described = await createRule(t, { name: 'alpha', description: 'Sends Checkout-ZQ to staging' });
      const sourced = await createRule(t, {
        name: 'beta',
        pairs: [cancelPair('ads.example.com'), cancelPair('zq-shop.example.com')],
      });
      await createRule(t, {
        name: 'gamma',
        ruleType: 'Redirect',
        pairs: [redirectPair('https://zq-dest.example.com/')],
      });
      const found = async (search: string) => {
        const reply = await t.call('GET', `/v1/rules?search=${encodeURIComponent(search)}`);
        expect(reply.status).toBe(200);
        return (reply.body.data as Item[]).map((r) => r.id);
      };
      expect(await found('checkout-zq')).toEqual([described.id]);
      expect(await found('ZQ-SHOP')).toEqual([sourced.id]);
      expect(await found('zq-dest')).toEqual([]);
      expect(await found('zq')).toEqual([described.id, sourced.id]);
      // One part at a time: a search never spans the name and the description.
      expect(await found('alphasends')).toEqual([]);
      expect(await found('alpha sends')).toEqual([]);

      // It follows every write: an edit, a switch, a delete and a restore.
      await t.call('PUT', `/v1/rules/${described.id}`, { body: { description: 'nothing to find' } });
      expect(await found('checkout-zq')).toEqual([]);
      await t.call('PUT', `/v1/rules/${sourced.id}`, { body: { status: 'Active' } });
      expect(await found('zq-shop')).toEqual([sourced.id]);
      await t.call('PUT', `/v1/rules/${sourced.id}`, {
        body: { pairs: [cancelPair('zq-moved.example.com')] },
      });
      expect(await found('zq-shop')).toEqual([]);
      expect(await found('zq-moved')).toEqual([sourced.id]);
      await t.call('DELETE', `/v1/rules/${sourced.id}`);
      expect(await found('zq-moved')).toEqual([]);
      const versions = (await t.call('GET', `/v1/rules/${sourced.id}/versions`)).body.data;
      await t.call('POST', `/v1/rules/${sourced.id}/restore`, { body: { version: versions[0].version } });
      expect(await found('zq-moved')).toEqual([sourced.id]);
    });

    it('sorts by name, type or last change, ties in id order, and pages in that order', async () => {
      const group = await createGroup(t);
      const b = await createRule(t, { name: 'b sorted', groupId: group.id });
      const a = await createRule(t, {
        name: 'A sorted',
        groupId: group.id,
        ruleType: 'Redirect',
        pairs: [redirectPair()],
      });
      const c = await createRule(t, { name: 'c sorted', groupId: group.id });
      const ids = async (query: string) => {
        const reply = await t.call('GET', `/v1/rules?groupId=${group.id}&${query}`);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        return (reply.body.data as Item[]).map((r) => r.id);
      };
      expect(await ids('')).toEqual([b.id, a.id, c.id]);
      expect(await ids('sort=creationDate')).toEqual([b.id, a.id, c.id]);
      expect(await ids('sort=name')).toEqual([a.id, b.id, c.id]);
      expect(await ids('sort=ruleType')).toEqual([b.id, c.id, a.id]);
      await t.call('PUT', `/v1/rules/${b.id}`, { body: { status: 'Active' } });
      expect(await ids('sort=modificationDate')).toEqual([a.id, c.id, b.id]);
      expect(await ids('sort=-modificationDate')).toEqual([b.id, c.id, a.id]);
      // b is active now; c pinned: each first in its order, the others by name.
      expect(await ids('sort=status')).toEqual([b.id, a.id, c.id]);
      await t.call('PUT', `/v1/rules/${c.id}`, { body: { isFavourite: true } });
      expect(await ids('sort=pinned')).toEqual([c.id, a.id, b.id]);
      const paged = [];
      for (let offset = 0; offset < 3; offset++)
        paged.push(...(await ids(`sort=name&pageSize=1&offset=${offset}`)));
      expect(paged).toEqual([a.id, b.id, c.id]);
    });

    it('sorts by group in the groups list order, ungrouped last, each group by name, and pages so', async () => {
      const first = await createGroup(t);
      const second = await createGroup(t);
      const b = await createRule(t, { name: 'zgrp b', groupId: second.id });
      const a = await createRule(t, { name: 'zgrp a' });
      const c = await createRule(t, { name: 'zgrp c', groupId: first.id });
      const d = await createRule(t, { name: 'ZGRP d', groupId: second.id });
      const ids = async (query: string) => {
        const reply = await t.call('GET', `/v1/rules?search=zgrp&sort=group&${query}`);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        return (reply.body.data as Item[]).map((r) => r.id);
      };
      // An ungrouped rule first by name and by creation: the order is the groups', not the names'.
      expect(await ids('')).toEqual([c.id, b.id, d.id, a.id]);
      expect(await ids(`groupId=${second.id}`)).toEqual([b.id, d.id]);
      expect(await ids('groupId=')).toEqual([a.id]);
      const paged = [];
      for (let offset = 0; offset < 4; offset++) paged.push(...(await ids(`pageSize=1&offset=${offset}`)));
      expect(paged).toEqual([c.id, b.id, d.id, a.id]);
    });

    it('group list items carry ruleCount and activeRuleCount', async () => {
      const busy = await createGroup(t);
      const idle = await createGroup(t);
      const empty = await createGroup(t);
      await createRule(t, { groupId: busy.id, status: 'Active' });
      await createRule(t, { groupId: busy.id, status: 'Active' });
      const inactive = await createRule(t, { groupId: busy.id });
      await createRule(t, { groupId: idle.id });
      await createRule(t);

      const counts = async () => {
        const reply = await t.call('GET', '/v1/groups');
        expect(reply.status).toBe(200);
        const byId = new Map((reply.body.data as Item[]).map((g) => [g.id, g]));
        return [busy, idle, empty].map((group) => {
          const item = byId.get(group.id as string);
          expect(item).toMatchObject(group);
          return [item?.ruleCount, item?.activeRuleCount];
        });
      };
      expect(await counts()).toEqual([
        [3, 2],
        [1, 0],
        [0, 0],
      ]);

      await t.call('PUT', `/v1/rules/${inactive.id}`, { body: { status: 'Active', groupId: idle.id } });
      expect(await counts()).toEqual([
        [2, 2],
        [2, 1],
        [0, 0],
      ]);
    });
  });

  describe('reads are never stale (SQLite keeps them in memory between changes)', () => {
    const t = useTestApp({ db });

    const names = async (query = '') =>
      ((await t.call('GET', `/v1/rules${query}`)).body.data as Item[]).map((rule) => rule.name);

    it('a page or a rule read again after a change through the API shows the change', async () => {
      const rule = await createRule(t, { name: 'before' });
      expect(await names()).toStrictEqual(['before']);
      expect(await names()).toStrictEqual(['before']); // the same page, asked twice
      expect((await t.call('GET', `/v1/rules/${rule.id}`)).body.data.name).toBe('before');
      const put = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'after' } });
      expect(await names()).toStrictEqual(['after']);
      const got = await t.call('GET', `/v1/rules/${rule.id}`);
      expect([got.body.data.name, got.headers.etag]).toStrictEqual(['after', put.headers.etag]);
      await createRule(t, { name: 'second' });
      expect(await names()).toStrictEqual(['after', 'second']);
      expect(await names('?offset=1')).toStrictEqual(['second']);
      await t.call('DELETE', `/v1/rules/${rule.id}`);
      expect(await names()).toStrictEqual(['second']);
      expectError(await t.call('GET', `/v1/rules/${rule.id}`), 'RULE_NOT_FOUND');
    });

    it('a page or a rule read again after a change made by another process shows the change', async () => {
      expect(await names()).toStrictEqual(['second']);
      const [id] = ((await t.call('GET', '/v1/rules')).body.data as Item[]).map((rule) => rule.id);
      const before = await t.call('GET', `/v1/rules/${id}`);
      expect(before.body.data.name).toBe('second');
      // Another connection to the same database, as the CLI, another instance or an operator's script has.
      const other = openDatabase(t.config);
      try {
        await other.db.transaction().execute(async (trx) => {
          await trx.updateTable('rules').set({ name: 'renamed elsewhere' }).execute();
          // On PostgreSQL the caches are validated by the workspace revision, which every writer
          // (service, import, another instance) moves in its transaction; SQLite's data_version
          // sees any commit, even this bare one.
          if (db === 'postgres') {
            await trx
              .updateTable('workspaces')
              .set({ revision: sql`revision + 1` })
              .where('id', '=', t.owner.workspaceId)
              .execute();
          }
        });
      } finally {
        await other.close();
      }
      expect(await names()).toStrictEqual(['renamed elsewhere']);
      expect((await t.call('GET', `/v1/rules/${id}`)).body.data.name).toBe('renamed elsewhere');
    });
  });

  describe('invalid queries', () => {
    const t = useTestApp({ db });
    beforeAll(async () => {
      await createRule(t, { pairs: [cancelPair()] });
    });

    const both = ['rules', 'groups'];
    const paging: [string, string, string][] = [
      ['an unknown parameter', 'foo=1', '/foo'],
      ['a misspelt parameter', 'page_size=10', '/page_size'],
      ['a negative offset', 'offset=-1', '/offset'],
      ['a non-numeric offset', 'offset=abc', '/offset'],
      ['a fractional offset', 'offset=1.5', '/offset'],
      ['an empty offset', 'offset=', '/offset'],
      ['pageSize 0', 'pageSize=0', '/pageSize'],
      ['pageSize 1001', 'pageSize=1001', '/pageSize'],
      ['a negative pageSize', 'pageSize=-5', '/pageSize'],
      ['a non-numeric pageSize', 'pageSize=ten', '/pageSize'],
      ['a repeated offset', 'offset=0&offset=1', '/offset'],
      ['a repeated pageSize', 'pageSize=1&pageSize=1', '/pageSize'],
    ];
    for (const kind of both) {
      it.each(paging)(`GET /v1/${kind} with %s is Invalid query`, async (_title, query, path) => {
        expectError(await t.call('GET', `/v1/${kind}?${query}`), 'INVALID_QUERY', [at(path)]);
      });
    }

    it.each([
      ['a status in the wrong case', 'status=active', '/status'],
      ['a status not allowed', 'status=Paused', '/status'],
      ['an unknown ruleType', 'ruleType=Teleport', '/ruleType'],
      ['ruleType Header', 'ruleType=Header', '/ruleType'],
      ['a repeated status', 'status=Active&status=Inactive', '/status'],
      ['a repeated ruleType', 'ruleType=Cancel&ruleType=Cancel', '/ruleType'],
      ['a repeated groupId', 'groupId=&groupId=Group_abcde', '/groupId'],
      ['a repeated search', 'search=a&search=b', '/search'],
      ['an unknown sort', 'sort=size', '/sort'],
      ['a sort in the wrong case', 'sort=Name', '/sort'],
      ['a repeated sort', 'sort=name&sort=name', '/sort'],
    ])('GET /v1/rules with %s is Invalid query', async (_title, query, path) => {
      expectError(await t.call('GET', `/v1/rules?${query}`), 'INVALID_QUERY', [at(path)]);
    });

    it.each([
      ['status', 'status=Active'],
      ['search', 'search=x'],
      ['ruleType', 'ruleType=Cancel'],
    ])('GET /v1/groups does not take the rules filter %s', async (name, query) => {
      expectError(await t.call('GET', `/v1/groups?${query}`), 'INVALID_QUERY', [at(`/${name}`)]);
    });

    it('names every bad parameter at once', async () => {
      const reply = await t.call('GET', '/v1/rules?foo=1&status=on&offset=x');
      expect(reply.body.code).toBe('INVALID_QUERY');
      expect(((reply.body.details ?? []) as { path: string }[]).map((d) => d.path).sort()).toEqual([
        '/foo',
        '/offset',
        '/status',
      ]);
    });

    it('an invalid query needs a valid key first', async () => {
      expectError(await t.call('GET', '/v1/rules?foo=1', { key: null }), 'API_KEY_REQUIRED');
    });
  });
});
