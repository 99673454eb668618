// POST /v1/import and GET /v1/export (decision 12), on both databases: every mode and error mode in detail,
// ids taken elsewhere, type changes, pointers into older formats, the record limit, idempotency conflicts.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { at, expectError, type Json, rawJson, uniqueName } from '../helpers/fixtures.js';
import { olderRecords, requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';
import { buildTestApp, forEachDatabase, type TestApp, useTestApp } from '../helpers/test-app.js';

const rules = Object.values(requestlyRules);
/** A realistic export: its group first, then one rule of each shape (the first one in that group). */
const exportFile = [requestlyGroup, ...rules];

/** A key of a new, empty workspace, so each test starts from nothing. */
async function freshWorkspace(t: TestApp): Promise<string> {
  return (await t.keysService.issue(uniqueName('ws').replace(' ', '-'), 'importer')).key;
}

/** The record under an id no other test uses (tests share the database, and ids are global). */
function unique(record: Json): Json {
  return { ...record, id: `${record.ruleType}_${uniqueName('').replace(' ', '')}` };
}

async function importFile(t: TestApp, key: string, body: unknown, query = '') {
  return t.call('POST', `/v1/import${query}`, { key, body });
}

async function everything(t: TestApp, key: string): Promise<{ rules: Json[]; groups: Json[] }> {
  const rules = await t.call('GET', '/v1/rules', { key });
  const groups = await t.call('GET', '/v1/groups', { key });
  return { rules: rules.body.data, groups: groups.body.data };
}

forEachDatabase((db) => {
  const t = useTestApp({ db });

  describe('import', () => {
    it('copy (the default): every record created with a new id, rules pointing at the new group', async () => {
      const key = await freshWorkspace(t);
      const reply = await importFile(t, key, exportFile);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { data } = reply.body;
      expect(data).toMatchObject({ dryRun: false, created: exportFile.length, updated: 0, failed: 0 });
      expect(data.items).toHaveLength(exportFile.length);
      data.items.forEach((item: Json, index: number) => {
        const record = exportFile[index] as Json;
        expect(item).toStrictEqual({
          index,
          name: record.name,
          objectType: record.objectType,
          sourceId: record.id,
          id: expect.any(String),
          outcome: 'created',
          // The rule lint's one finding about these records (README, Rule lint): a true self-redirect.
          warnings:
            record.id === 'Redirect_kt3hx' ? [expect.stringMatching(/^redirect_loop \(warning\): /)] : [],
        });
        expect(item.id).not.toBe(record.id);
      });
      const stored = await everything(t, key);
      expect(stored.groups.map((g) => g.id)).toEqual([data.items[0].id]);
      expect(stored.groups[0]).toMatchObject({ name: 'Staging', creationDate: requestlyGroup.creationDate });
      expect(stored.rules).toHaveLength(rules.length);
      const redirect = stored.rules.find((r) => r.ruleType === 'Redirect');
      expect(redirect?.groupId).toBe(data.items[0].id);
    });

    it('overwrite: free ids of our form are kept; a second import replaces them whole', async () => {
      const key = await freshWorkspace(t);
      const first = await importFile(t, key, exportFile, '?mode=overwrite');
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data.items.map((i: Json) => i.id)).toEqual(exportFile.map((r) => r.id));
      const changed = exportFile.map((record) => ({ ...record, name: `${record.name} v2` }));
      const second = await importFile(t, key, changed, '?mode=overwrite');
      expect(second.body.data).toMatchObject({ created: 0, updated: exportFile.length, failed: 0 });
      const stored = await everything(t, key);
      expect(stored.rules).toHaveLength(rules.length);
      expect(stored.groups).toHaveLength(1);
      expect(stored.rules.every((r) => String(r.name).endsWith(' v2'))).toBe(true);
      expect(stored.rules.find((r) => r.id === 'Redirect_kt3hx')?.groupId).toBe(requestlyGroup.id);
    });

    it('overwrite: an id taken by another workspace is not touched; the record gets a new id', async () => {
      const theirs = await freshWorkspace(t);
      const mine = await freshWorkspace(t);
      const record = unique(requestlyRules['Replace pair with a status'] as Json);
      await importFile(t, theirs, [record], '?mode=overwrite');
      const reply = await importFile(t, mine, [{ ...record, name: 'mine' }], '?mode=overwrite');
      expect(reply.body.data.items[0]).toMatchObject({ outcome: 'created', sourceId: record.id });
      expect(reply.body.data.items[0].id).not.toBe(record.id);
      expect((await t.call('GET', `/v1/rules/${record.id}`, { key: theirs })).body.data.name).toBe(
        record.name,
      );
    });

    it("overwrite: a record of another type under a rule's id fails, the rest goes in with skip", async () => {
      const key = await freshWorkspace(t);
      const record = unique(requestlyRules['Replace pair with a status'] as Json);
      await importFile(t, key, [record], '?mode=overwrite');
      const cancel = { ...(requestlyRules['Cancel with pageUrl filter'] as Json), id: record.id };
      const reply = await importFile(t, key, [cancel, requestlyGroup], '?mode=overwrite&onError=skip');
      expect(reply.body.data).toMatchObject({ created: 1, updated: 0, failed: 1 });
      expect(reply.body.data.items[0]).toMatchObject({
        outcome: 'failed',
        message: 'Rule Type update not allowed',
        details: [at('/0/ruleType')],
      });
    });

    it.each(Object.keys(olderRecords))('converts the older format: %s, with a warning', async (title) => {
      const key = await freshWorkspace(t);
      const reply = await importFile(t, key, [olderRecords[title]]);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [item] = reply.body.data.items;
      expect(item.outcome).toBe('created');
      expect(item.warnings).toEqual([expect.stringMatching(/^converted from the older/)]);
      const rule = (await t.call('GET', `/v1/rules/${item.id}`, { key })).body.data;
      const expected: Record<string, Json[]> = {
        'flat Headers pairs': [
          {
            source: { key: 'Url', operator: 'Contains', value: 'old.example.com' },
            modifications: [{ Request: [{ header: 'X-Old', type: 'Add', value: '1' }] }],
          },
          {
            source: { key: 'Url', operator: 'Contains', value: '' },
            modifications: [{ Response: [{ header: 'Server', type: 'Remove' }] }],
          },
        ],
        'Redirect with source.values': ['old.example.com', 'older.example.com'].map((value) => ({
          source: { key: 'Url', operator: 'Contains', value },
          destination: 'https://new.example.com',
          destinationType: 'url',
        })),
      };
      expect(rule.pairs).toEqual(
        (expected[title] as Json[]).map((pair) => ({ id: expect.any(String), ...pair })),
      );
    });

    it('older formats: errors point into the record as it is in the file', async () => {
      const key = await freshWorkspace(t);
      const headers = olderRecords['flat Headers pairs'] as Json;
      const badHeaders = {
        ...headers,
        pairs: [{ ...(headers.pairs as Json[])[0], type: 'Add', value: undefined }],
      };
      const redirect = olderRecords['Redirect with source.values'] as Json;
      const badRedirect = { ...redirect, source: { ...(redirect.source as Json), values: ['a', 7] } };
      const reply = await importFile(t, key, [badHeaders, badRedirect]);
      expectError(reply, 'IMPORT_INVALID', [at('/0/pairs/0/value'), at('/1/source/values/1')]);
    });

    it('onError=abort (the default): one bad record and nothing is written; every failure listed', async () => {
      const key = await freshWorkspace(t);
      const bad = { ...(requestlyRules['Delay as a string, key in upper case'] as Json) };
      bad.pairs = [{ source: { key: 'Url', operator: 'Begins', value: 'x' }, delay: 'soon' }];
      const reply = await importFile(t, key, [...exportFile, bad, { objectType: 'page' }, 7]);
      const n = exportFile.length;
      expectError(reply, 'IMPORT_INVALID', [
        at(`/${n}/pairs/0/delay`),
        at(`/${n}/pairs/0/source/operator`),
        at(`/${n + 1}/objectType`),
        at(`/${n + 2}`),
      ]);
      expect(await everything(t, key)).toEqual({ rules: [], groups: [] });
    });

    it('onError=skip: valid records written, failed ones reported with pointers into the file', async () => {
      const key = await freshWorkspace(t);
      const bad = { name: '', ruleType: 'Cancel', pairs: [{ source: { key: 'host', operator: 'Equals' } }] };
      const reply = await importFile(t, key, [requestlyGroup, bad, rules[0]], '?onError=skip');
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ created: 2, updated: 0, failed: 1 });
      expect(reply.body.data.items[1]).toStrictEqual({
        index: 1,
        name: '',
        objectType: 'rule',
        sourceId: null,
        id: null,
        outcome: 'failed',
        warnings: [],
        message: 'Rule Payload is invalid',
        details: [at('/1/name'), at('/1/pairs/0/source/value')],
      });
      const stored = await everything(t, key);
      expect(stored.rules).toHaveLength(1);
      expect(stored.groups).toHaveLength(1);
    });

    it('a rule whose group is in neither the file nor the workspace goes in ungrouped, with a warning', async () => {
      const key = await freshWorkspace(t);
      const reply = await importFile(t, key, [rules[0]]);
      expect(reply.body.data.items[0].warnings).toEqual([
        expect.stringContaining(String(requestlyGroup.id)),
        expect.stringMatching(/^redirect_loop \(warning\): /),
      ]);
      expect((await everything(t, key)).rules[0]?.groupId).toBe('');
    });

    it('dryRun: the same report, nothing written', async () => {
      const key = await freshWorkspace(t);
      const reply = await importFile(t, key, [...exportFile, 'x'], '?dryRun=true&mode=overwrite');
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ dryRun: true, created: exportFile.length, failed: 1 });
      expect(await everything(t, key)).toEqual({ rules: [], groups: [] });
    });

    it('a file that is not JSON, not an array, too long, or a bad query gets its error and writes nothing', async () => {
      const key = await freshWorkspace(t);
      const json = { headers: { 'content-type': 'application/json' } };
      // The file is read a record at a time: the pointer names the record it ended in.
      expectError(await t.call('POST', '/v1/import', { key, ...rawJson('[{"a":') }), 'IMPORT_INVALID', [
        at('/0'),
      ]);
      expectError(await importFile(t, key, { rules }), 'IMPORT_INVALID', [at('')]);
      const tooMany = `[${Array(100_001).fill('0').join(',')}]`;
      expectError(await t.call('POST', '/v1/import', { key, body: tooMany, ...json }), 'IMPORT_INVALID', [
        at(''),
      ]);
      expectError(await importFile(t, key, exportFile, '?mode=merge'), 'INVALID_QUERY', [at('/mode')]);
      expect(await everything(t, key)).toEqual({ rules: [], groups: [] });
    });

    it('Idempotency-Key: a retry gets the first report and writes nothing more; another body is 409', async () => {
      const key = await freshWorkspace(t);
      const headers = { 'idempotency-key': 'import-1' };
      const first = await t.call('POST', '/v1/import', { key, body: exportFile, headers });
      const again = await t.call('POST', '/v1/import', { key, body: exportFile, headers });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toStrictEqual(first.body);
      expect((await everything(t, key)).rules).toHaveLength(rules.length);
      const other = await t.call('POST', '/v1/import', { key, body: [requestlyGroup], headers });
      expect(other.status).toBe(409);
    });
  });

  describe('export', () => {
    it('answers groups then rules, as GET returns them, as an attachment', async () => {
      const key = await freshWorkspace(t);
      await importFile(t, key, exportFile);
      const reply = await t.app.inject({ method: 'GET', url: '/v1/export', headers: { 'x-api-key': key } });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-disposition']).toMatch(/^attachment; filename=".+\.json"$/);
      expect(String(reply.headers['content-type'])).toMatch(/^application\/json/);
      const file = JSON.parse(reply.body) as Json[];
      const stored = await everything(t, key);
      const { ruleCount: _r, activeRuleCount: _a, ...group } = stored.groups[0] as Json;
      expect(file).toEqual([group, ...stored.rules]);
    });

    it('export, then import with overwrite into an empty workspace, gives back the same objects', async () => {
      const key = await freshWorkspace(t);
      await importFile(t, key, [...exportFile, ...Object.values(olderRecords)]);
      const exported = JSON.parse(
        (await t.app.inject({ method: 'GET', url: '/v1/export', headers: { 'x-api-key': key } })).body,
      ) as Json[];
      const other = await buildTestApp({ db });
      try {
        const reply = await other.call('POST', '/v1/import?mode=overwrite', { body: exported });
        expect(reply.body.data).toMatchObject({ created: exported.length, failed: 0 });
        const again = JSON.parse(
          (
            await other.app.inject({
              method: 'GET',
              url: '/v1/export',
              headers: { 'x-api-key': other.owner.key },
            })
          ).body,
        ) as Json[];
        // Who and when of the writing differ; everything the objects say is the same.
        const what = ({
          createdBy,
          lastModifiedBy,
          modificationDate,
          currentOwner,
          currentOwnerId,
          ...rest
        }: Json) => rest;
        expect(again.map(what)).toEqual(exported.map(what));
      } finally {
        await other.close();
      }
    });
  });
});

describe('import body limit', () => {
  const t = useTestApp({ env: { MAX_IMPORT_BYTES: '2048' } });

  it('is its own: over MAX_IMPORT_BYTES is 413 and writes nothing, while rules keep MAX_BODY_BYTES', async () => {
    const big = Array.from({ length: 10 }, () => requestlyRules['Script with libraries']);
    expectError(await t.call('POST', '/v1/import', { body: big }), 'PAYLOAD_TOO_LARGE');
    expect((await t.call('GET', '/v1/rules')).body.total).toBe(0);
    const small = await t.call('POST', '/v1/import', { body: [requestlyGroup] });
    expect(small.status).toBe(200);
  });

  it('counts the bytes of a body sent without Content-Length, and checks a declared one', async () => {
    const groupsBefore = (await t.call('GET', '/v1/groups')).body.total;
    const text = JSON.stringify(Array.from({ length: 10 }, () => requestlyRules['Script with libraries']));
    const headers = { 'x-api-key': t.owner.key, 'content-type': 'application/json' };
    const chunked = await t.app.inject({
      method: 'POST',
      url: '/v1/import',
      headers,
      payload: Readable.from([text.slice(0, 1000), text.slice(1000)]),
    });
    expect(chunked.statusCode).toBe(413);
    expect(chunked.json().code).toBe('PAYLOAD_TOO_LARGE');
    const short = JSON.stringify([requestlyGroup]);
    const wrongLength = await t.app.inject({
      method: 'POST',
      url: '/v1/import',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(short) + 5) },
      payload: Readable.from([short]),
    });
    expect(wrongLength.json().code).toBe('PAYLOAD_TOO_LARGE');
    expect((await t.call('GET', '/v1/rules')).body.total).toBe(0);
    expect((await t.call('GET', '/v1/groups')).body.total).toBe(groupsBefore);
  });
});
