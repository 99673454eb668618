// GET /v1/export?format=requestly: the shapes Requestly's app stores (Headers modifications as one
// object, bodies nested under response/request, pageUrl filters, its bookkeeping fields), and round
// trips through both formats that lose nothing, from records shaped like real exports of both eras.
import { describe, expect, it } from 'vitest';
import { expectError, type Json } from '../helpers/fixtures.js';
import { olderRecords, requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const withStatus = {
  ...(requestlyRules['Response with nested response, statusCode "" and isCompressed'] as Json),
  id: 'Response_st201',
  name: 'Created',
  pairs: [
    {
      id: 'st201',
      response: {
        serveWithoutRequest: true,
        statusCode: 201,
        statusText: 'Created',
        type: 'static',
        value: '{}',
      },
      source: {
        filters: [{ pageDomains: ['app.example.com'] }],
        key: 'Url',
        operator: 'Contains',
        value: '/new',
      },
    },
  ],
};

const FILE = [requestlyGroup, ...Object.values(requestlyRules), ...Object.values(olderRecords), withStatus];

/** What an import may change on its way: when, and by whom, the objects were last written. */
const content = ({ modificationDate: _m, lastModified: _l, lastModifiedBy: _b, ...rest }: Json) => rest;

/**
 * `content` without what the Requestly format adds because Requestly's types require it (src/model/
 * requestly-format.ts): a header Remove's `value: ""` and a script's `id`. Everything else must match.
 */
const withoutRequired = (record: Json) =>
  JSON.parse(JSON.stringify(content(record)), (key, value) => {
    if (key === 'scripts' && Array.isArray(value)) return value.map(({ id: _id, ...script }) => script);
    if (value && typeof value === 'object' && value.type === 'Remove' && value.value === '') {
      const { value: _value, ...change } = value;
      return change;
    }
    return value;
  });

forEachDatabase((db) => {
  describe('GET /v1/export?format=requestly', () => {
    const t = useTestApp({ db });

    async function workspace() {
      const issued = await t.keysService.issue(`ws-${Math.random().toString(36).slice(2)}`, 'mover');
      const key = issued.key;
      const exportFile = async (query = '') => {
        const reply = await t.app.inject({
          method: 'GET',
          url: `/v1/export${query}`,
          headers: { 'x-api-key': key },
        });
        expect(reply.statusCode, reply.body).toBe(200);
        return JSON.parse(reply.body) as Json[];
      };
      const importFile = async (records: unknown, query = '') => {
        const reply = await t.call('POST', `/v1/import${query}`, {
          key,
          body: JSON.stringify(records),
          headers: { 'content-type': 'application/json' },
        });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        return reply;
      };
      const empty = async (file: Json[]) => {
        for (const object of [...file].reverse()) {
          const path = object.objectType === 'group' ? 'groups' : 'rules';
          await t.call('DELETE', `/v1/${path}/${object.id}`, { key });
        }
      };
      return { key, exportFile, importFile, empty };
    }

    it("writes the shapes Requestly's app stores", async () => {
      const w = await workspace();
      await w.importFile(FILE);
      const file = await w.exportFile('?format=requestly');
      const byName = (name: string) => file.find((o) => o.name === name) as Json;

      expect(byName('Staging')).toMatchObject({ objectType: 'group', children: [], description: '' });
      const headers = byName('CORS');
      expect(headers).toMatchObject({ objectType: 'rule', schemaVersion: '3.0.0', isSample: false });
      expect(Object.keys(headers)).toEqual([...Object.keys(headers)].sort());
      expect((headers.pairs as Json[])[0]?.modifications).toEqual({
        Request: [{ header: 'X-Debug', id: 'qw3rt', type: 'Add', value: '1' }],
        Response: [{ header: 'Access-Control-Allow-Origin', id: 'as4df', type: 'Add', value: '*' }],
      });
      expect((byName('Created').pairs as Json[])[0]).toEqual({
        id: 'st201',
        response: {
          serveWithoutRequest: true,
          statusCode: '201', // a string, as Requestly's ResponseRule.Pair declares it
          statusText: 'Created',
          type: 'static',
          value: '{}',
        },
        source: {
          filters: [{ pageDomains: ['app.example.com'] }],
          key: 'Url',
          operator: 'Contains',
          value: '/new',
        },
      });
      expect((byName('Mock user').pairs as Json[])[0]?.response).toMatchObject({
        statusCode: '',
        type: 'static',
      });
      expect((byName('Body').pairs as Json[])[0]).toHaveProperty('request.value', '{}');
      expect((byName('Block ads').pairs as Json[])[0]?.source).toMatchObject({
        filters: [{ pageUrl: { operator: 'Contains', value: 'news' }, requestMethod: ['GET'] }],
      });
      const grouped = byName('API to staging');
      expect(grouped.groupId).toBe(byName('Staging').id);
      expect(byName('Slow').groupId).toBe('');
    });

    it('round trips through both formats, losing nothing', async () => {
      const w = await workspace();
      await w.importFile(FILE);
      const canonical = await w.exportFile();
      const requestly = await w.exportFile('?format=requestly');

      // Requestly's shapes imported back (same ids, into the emptied workspace): the same rules, with
      // only what Requestly's types require and ours may leave out (a Remove's value "", a script's id).
      await w.empty(canonical);
      await w.importFile(requestly, '?mode=overwrite');
      expect((await w.exportFile()).map(withoutRequired)).toEqual(canonical.map(withoutRequired));
      // And written again in Requestly's shapes: the same bytes, key order included.
      const again = await w.exportFile('?format=requestly');
      expect(JSON.stringify(again.map(content))).toBe(JSON.stringify(requestly.map(content)));

      // The canonical file imported back: export, import, export gives the same file.
      const canonicalAgain = await w.exportFile();
      await w.empty(canonicalAgain);
      await w.importFile(canonicalAgain, '?mode=overwrite');
      expect(JSON.stringify((await w.exportFile()).map(content))).toBe(
        JSON.stringify(canonicalAgain.map(content)),
      );
    });

    it('keeps the default export as it was, and refuses an unknown format', async () => {
      const w = await workspace();
      await w.importFile([requestlyRules['Headers with ids on modifications, one-object modifications']]);
      const [rule] = await w.exportFile('?format=rulekeeper');
      expect(rule).toEqual((await w.exportFile())[0]);
      expect(rule).toMatchObject({ pairs: [{ modifications: [expect.any(Object)] }] });
      const reply = await t.call('GET', '/v1/export?format=har', { key: w.key });
      expectError(reply, 'INVALID_QUERY', [{ path: '/format', message: expect.any(String) }]);
    });
  });
});
