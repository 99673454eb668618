// POST /v1/import and GET /v1/export: real Requestly files in each mode and error mode, older formats
// converted with warnings, one transaction (all, all valid, or nothing), idempotent retries, and an
// export that imports back to the same rules and groups.
import { describe, expect, it } from 'vitest';
import { at, expectError, type Json } from '../helpers/fixtures.js';
import { olderRecords, requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const cancel = (name: string, fields: Json = {}) => ({
  objectType: 'rule',
  name,
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'ads.example.com' } }],
  ...fields,
});

forEachDatabase((db) => {
  describe('import and export', () => {
    const t = useTestApp({ db });
    const bodyOf = (records: unknown) => ({
      body: JSON.stringify(records),
      headers: { 'content-type': 'application/json' },
    });
    const importAs = (key: string, records: unknown, query = '', headers: Record<string, string> = {}) =>
      t.call('POST', `/v1/import${query}`, {
        key,
        ...bodyOf(records),
        headers: { 'content-type': 'application/json', ...headers },
      });

    /** A workspace of its own for each test: a fresh key, so counts start at zero. */
    async function workspace(): Promise<{
      key: string;
      count(): Promise<{ rules: number; groups: number }>;
    }> {
      const issued = await t.keysService.issue(`ws-${Math.random().toString(36).slice(2)}`, 'importer');
      return {
        key: issued.key,
        async count() {
          const rules = await t.call('GET', '/v1/rules?pageSize=1', { key: issued.key });
          const groups = await t.call('GET', '/v1/groups?pageSize=1', { key: issued.key });
          return { rules: rules.body.total, groups: groups.body.total };
        },
      };
    }

    it('takes a Requestly export in copy mode: groups first, rules pointing at the new groups', async () => {
      const w = await workspace();
      const file = [
        requestlyRules['Redirect pair without destinationType, filters [null]'],
        { ...requestlyGroup },
        cancel('grouped', { groupId: requestlyGroup.id }),
      ];
      const reply = await importAs(w.key, file);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { data } = reply.body;
      expect(data).toMatchObject({ dryRun: false, created: 3, updated: 0, failed: 0 });
      expect(data.items.map((i: Json) => [i.index, i.objectType, i.outcome])).toEqual([
        [0, 'rule', 'created'],
        [1, 'group', 'created'],
        [2, 'rule', 'created'],
      ]);
      const groupId = data.items[1].id;
      expect(groupId).toMatch(/^Group_[0-9a-z]{5}$/);
      expect(groupId).not.toBe(requestlyGroup.id);
      const grouped = await t.call('GET', `/v1/rules/${data.items[2].id}`, { key: w.key });
      expect(grouped.body.data).toMatchObject({ name: 'grouped', groupId });
      const redirect = await t.call('GET', `/v1/rules/${data.items[0].id}`, { key: w.key });
      expect(redirect.body.data.pairs[0]).toMatchObject({ destinationType: 'url' });
      expect(await w.count()).toEqual({ rules: 2, groups: 1 });
    });

    it('converts the older formats, saying so in the record’s warnings', async () => {
      const w = await workspace();
      const reply = await importAs(w.key, Object.values(olderRecords));
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [headers, redirect] = reply.body.data.items;
      expect(headers.warnings).toEqual([expect.stringMatching(/older Headers format/)]);
      expect(redirect.warnings).toEqual([
        expect.stringMatching(/older Redirect format: source.values became 2 pairs/),
      ]);
      const stored = await t.call('GET', `/v1/rules/${redirect.id}`, { key: w.key });
      expect(stored.body.data.pairs.map((p: Json) => (p.source as Json).value)).toEqual([
        'old.example.com',
        'older.example.com',
      ]);
      const storedHeaders = await t.call('GET', `/v1/rules/${headers.id}`, { key: w.key });
      expect(storedHeaders.body.data.pairs[1].modifications).toEqual([
        { Response: [{ header: 'Server', type: 'Remove' }] },
      ]);
    });

    it('with onError=abort (the default), one bad record writes nothing and names every failure in the file', async () => {
      const w = await workspace();
      const bad = cancel('bad', { pairs: [{ source: { key: 'host', operator: 'Is', value: 'x' } }] });
      const reply = await importAs(w.key, [cancel('good'), bad, { objectType: 'widget' }]);
      expectError(reply, 'IMPORT_INVALID', [at('/1/pairs/0/source/operator'), at('/2/objectType')]);
      expect(await w.count()).toEqual({ rules: 0, groups: 0 });
      const changes = await t.call('GET', '/v1/changes', { key: w.key });
      expect(changes.body.latest).toBe(0);
    });

    it('with onError=skip, writes the valid records and reports the failed ones', async () => {
      const w = await workspace();
      const bad = cancel('bad', { pairs: [{ source: { key: 'host', operator: 'Is', value: 'x' } }] });
      const reply = await importAs(w.key, [cancel('good'), bad], '?onError=skip');
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ created: 1, failed: 1 });
      expect(reply.body.data.items[1]).toMatchObject({
        index: 1,
        outcome: 'failed',
        id: null,
        message: 'Rule pairs are invalid',
        details: [at('/1/pairs/0/source/operator')],
      });
      expect(await w.count()).toEqual({ rules: 1, groups: 0 });
    });

    it('with dryRun=true, reports what would happen and writes nothing', async () => {
      const w = await workspace();
      const bad = cancel('bad', { pairs: [] });
      const reply = await importAs(w.key, [cancel('good'), requestlyGroup, bad], '?dryRun=true');
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ dryRun: true, created: 2, failed: 1 });
      expect(await w.count()).toEqual({ rules: 0, groups: 0 });
    });

    it('records the import as one revision of the change log', async () => {
      const w = await workspace();
      await importAs(w.key, [requestlyGroup, cancel('a'), cancel('b')]);
      const changes = await t.call('GET', '/v1/changes', { key: w.key });
      expect(changes.body.latest).toBe(1);
      expect(changes.body.data.map((c: Json) => [c.revision, c.objectType, c.change])).toEqual([
        [1, 'group', 'created'],
        [1, 'rule', 'created'],
        [1, 'rule', 'created'],
      ]);
    });

    // The import reads its rules in batches of 2,000: a file of several batches is still one
    // transaction, one revision, with groups found wherever they are in the file.
    describe('a file larger than one batch', () => {
      const RULES = 4_500;
      const file = (last: unknown) => [
        ...Array.from({ length: RULES }, (_, i) =>
          cancel(`rule ${i}`, i % 3 === 0 ? { groupId: requestlyGroup.id } : {}),
        ),
        { ...requestlyGroup },
        last,
      ];

      it('is written whole as one revision, every rule in the group that comes after it', async () => {
        const w = await workspace();
        const reply = await importAs(w.key, file(cancel('last')), '?onError=skip');
        expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
        expect(reply.body.data).toMatchObject({ created: RULES + 2, failed: 0 });
        const { items } = reply.body.data;
        expect(items.map((i: Json) => i.index)).toEqual(Array.from({ length: RULES + 2 }, (_, i) => i));
        const groupId = items[RULES].id;
        const grouped = await t.call('GET', `/v1/rules?groupId=${groupId}&pageSize=1`, { key: w.key });
        expect(grouped.body.total).toBe(RULES / 3);
        const stored = await t.call('GET', `/v1/rules/${items[RULES - 3].id}`, { key: w.key });
        expect(stored.body.data).toMatchObject({ name: `rule ${RULES - 3}`, groupId });
        expect(new Set(items.map((i: Json) => i.id)).size).toBe(RULES + 2);
        const changes = await t.call('GET', '/v1/changes?limit=10', { key: w.key });
        expect(changes.body.latest).toBe(1);
        expect(await w.count()).toEqual({ rules: RULES + 1, groups: 1 });
      });

      it('writes nothing when its last record fails (onError=abort)', async () => {
        const w = await workspace();
        const reply = await importAs(w.key, file(cancel('bad', { pairs: [] })));
        expectError(reply, 'IMPORT_INVALID', [at(`/${RULES + 1}/pairs`)]);
        expect(await w.count()).toEqual({ rules: 0, groups: 0 });
        expect((await t.call('GET', '/v1/changes', { key: w.key })).body.latest).toBe(0);
      });
    });

    it('exports groups then rules as GET returns them, as an attachment, and imports back to the same objects', async () => {
      const w = await workspace();
      const first = await importAs(w.key, [
        requestlyGroup,
        cancel('one', { groupId: requestlyGroup.id }),
        cancel('two', { status: 'Inactive' }),
      ]);
      expect(first.status).toBe(200);
      const exported = await t.app.inject({
        method: 'GET',
        url: '/v1/export',
        headers: { 'x-api-key': w.key },
      });
      expect(exported.statusCode).toBe(200);
      expect(exported.headers['content-disposition']).toMatch(/^attachment; filename=/);
      const file = JSON.parse(exported.body) as Json[];
      expect(file.map((o) => o.objectType)).toEqual(['group', 'rule', 'rule']);
      for (const object of file) {
        const path = object.objectType === 'group' ? 'groups' : 'rules';
        expect((await t.call('GET', `/v1/${path}/${object.id}`, { key: w.key })).body.data).toStrictEqual(
          object,
        );
      }

      // Emptied, then imported back with overwrite: the same ids, contents and creation dates.
      for (const object of [...file].reverse()) {
        const path = object.objectType === 'group' ? 'groups' : 'rules';
        await t.call('DELETE', `/v1/${path}/${object.id}`, { key: w.key });
      }
      expect(await w.count()).toEqual({ rules: 0, groups: 0 });
      const back = await importAs(w.key, file, '?mode=overwrite');
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      const again = JSON.parse(
        (await t.app.inject({ method: 'GET', url: '/v1/export', headers: { 'x-api-key': w.key } })).body,
      ) as Json[];
      const content = ({ modificationDate: _m, lastModifiedBy: _l, ...rest }: Json) => rest;
      expect(again.map(content)).toEqual(file.map(content));
    });

    it('with mode=overwrite, replaces this workspace’s objects in place; another workspace’s ids get new ones', async () => {
      const w = await workspace();
      const created = await importAs(w.key, [cancel('original')]);
      const id = created.body.data.items[0].id;
      const reply = await importAs(w.key, [cancel('replaced', { id })], '?mode=overwrite');
      expect(reply.body.data.items[0]).toMatchObject({ id, outcome: 'updated', sourceId: id });
      expect((await t.call('GET', `/v1/rules/${id}`, { key: w.key })).body.data.name).toBe('replaced');

      const other = await workspace();
      const theirs = await importAs(other.key, [cancel('mine now', { id })], '?mode=overwrite');
      expect(theirs.body.data.items[0]).toMatchObject({ outcome: 'created', sourceId: id });
      expect(theirs.body.data.items[0].id).not.toBe(id);
      expect((await t.call('GET', `/v1/rules/${id}`, { key: w.key })).body.data.name).toBe('replaced');
    });

    it('answers a retry with the same Idempotency-Key with the first report, writing once', async () => {
      const w = await workspace();
      const headers = { 'idempotency-key': 'import-1' };
      const first = await importAs(w.key, [cancel('once')], '', headers);
      const second = await importAs(w.key, [cancel('once')], '', headers);
      expect(second.body).toEqual(first.body);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(await w.count()).toEqual({ rules: 1, groups: 0 });
    });

    it.each([
      ['not JSON', '[{"name": ', '/0'],
      ['not an array', '{"objectType":"rule"}', ''],
      ['an array of non-records', '[1, "two"]', '/0'],
    ])(
      'refuses a file that is %s with 400 Import is invalid, writing nothing',
      async (_title, text, path) => {
        const w = await workspace();
        const reply = await t.call('POST', '/v1/import', {
          key: w.key,
          body: text,
          headers: { 'content-type': 'application/json' },
        });
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({
          code: 'IMPORT_INVALID',
          details: expect.arrayContaining([at(path)]),
        });
        expect(await w.count()).toEqual({ rules: 0, groups: 0 });
      },
    );

    it('refuses unknown query parameters with 400 Invalid query', async () => {
      const w = await workspace();
      expectError(await importAs(w.key, [], '?mode=merge'), 'INVALID_QUERY', [at('/mode')]);
    });
  });

  describe('the import body limit', () => {
    const t = useTestApp({ db, env: { MAX_IMPORT_BYTES: '2048' } });

    it('takes bodies over MAX_BODY_BYTES up to MAX_IMPORT_BYTES on /v1/import only, and refuses larger ones with 413', async () => {
      const record = (i: number) => cancel(`rule ${i}`);
      const small = JSON.stringify(Array.from({ length: 5 }, (_, i) => record(i)));
      const large = JSON.stringify(Array.from({ length: 30 }, (_, i) => record(i)));
      expect(small.length).toBeLessThan(2048);
      expect(large.length).toBeGreaterThan(2048);
      const ok = await t.call('POST', '/v1/import', {
        body: small,
        headers: { 'content-type': 'application/json' },
      });
      expect(ok.status).toBe(200);
      const before = (await t.call('GET', '/v1/rules?pageSize=1')).body.total;
      expectError(
        await t.call('POST', '/v1/import', { body: large, headers: { 'content-type': 'application/json' } }),
        'PAYLOAD_TOO_LARGE',
      );
      expect((await t.call('GET', '/v1/rules?pageSize=1')).body.total).toBe(before);
    });
  });
});
