// Export, import, export gives the same bytes: the stored form is a fixed point, key order included
// (a Response pair's statusCode does not move), for records shaped like real Requestly exports.
import { describe, expect, it } from 'vitest';
import type { Json } from '../helpers/fixtures.js';
import { requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const withStatus = {
  ...(requestlyRules['Response with nested response, statusCode "" and isCompressed'] as Json),
  id: 'Response_s201x',
  pairs: [
    {
      id: 'p201s',
      response: { serveWithoutRequest: false, statusCode: '201', type: 'static', value: '{"ok":true}' },
      source: {
        filters: [{ pageDomains: ['.Example.com'] }],
        key: 'Url',
        operator: 'Contains',
        value: '/api',
      },
    },
  ],
};

/** A pinned Script rule that leaves its pages' Content-Security-Policy: both fields away from their default. */
const pinnedScript = {
  ...(requestlyRules['Script with libraries'] as Json),
  id: 'Script_pin01',
  name: 'Pinned inject',
  isFavourite: true,
  removeCSPHeader: false,
};

forEachDatabase((db) => {
  describe('export, import, export', () => {
    const t = useTestApp({ db });

    it('gives identical files', async () => {
      const issued = await t.keysService.issue(`ws-${Math.random().toString(36).slice(2)}`, 'round trip');
      const key = issued.key;
      const importFile = (records: unknown, query = '') =>
        t.call('POST', `/v1/import${query}`, {
          key,
          body: JSON.stringify(records),
          headers: { 'content-type': 'application/json' },
        });
      const exportFile = async () =>
        (await t.app.inject({ method: 'GET', url: '/v1/export', headers: { 'x-api-key': key } })).body;

      const first = await importFile([
        requestlyGroup,
        ...Object.values(requestlyRules),
        withStatus,
        pinnedScript,
      ]);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      // Written through the API with statusCode between other fields, where it must stay.
      const posted = await t.call('POST', '/v1/rules', {
        key,
        body: {
          name: 'created here',
          ruleType: 'Response',
          status: 'Active',
          pairs: [
            {
              source: { key: 'Url', operator: 'Contains', value: '/made' },
              type: 'static',
              statusCode: 202,
              value: 'made',
            },
          ],
        },
      });
      expect(posted.status, JSON.stringify(posted.body)).toBe(201);
      const exported = await exportFile();
      const again = await importFile(JSON.parse(exported), '?mode=overwrite');
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      // The dates of the change, and who made it, are the only fields an import may move.
      const strip = (text: string) =>
        text.replace(/"(modificationDate|lastModified|lastModifiedBy)":("[^"]*"|\d+),?/g, '');
      expect(strip(await exportFile())).toBe(strip(exported));

      const file = JSON.parse(exported) as Json[];
      const scripts = file.filter((o) => o.ruleType === 'Script');
      // Both kept, each field of each (sorted: the list order ties on the records' dates).
      expect(scripts.map((o) => [o.name, o.isFavourite, o.removeCSPHeader]).sort()).toEqual([
        ['Inject', false, true],
        ['Pinned inject', true, false],
      ]);
      const response = file.find((o) => JSON.stringify(o).includes('"statusCode":201')) as Json;
      const [pair] = response.pairs as Json[];
      expect(pair).toMatchObject({
        statusCode: 201,
        source: { filters: [{ pageDomains: ['example.com'] }] },
      });
    });
  });
});
