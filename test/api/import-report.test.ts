// The import report: records numbered from 0 as the pointers number them, each with its name, and in a
// dry run a warning for each rule that looks like one already in the workspace.
import { describe, expect, it } from 'vitest';
import type { Json } from '../helpers/fixtures.js';
import { requestlyRules } from '../helpers/requestly-records.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const cancel = (name: string, value = 'ads.example.com') => ({
  objectType: 'rule',
  name,
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'host', operator: 'Equals', value } }],
});

forEachDatabase((db) => {
  describe('the import report', () => {
    const t = useTestApp({ db });

    async function workspace() {
      const issued = await t.keysService.issue(`ws-${Math.random().toString(36).slice(2)}`, 'importer');
      const key = issued.key;
      return (records: unknown, query = '') =>
        t.call('POST', `/v1/import${query}`, {
          key,
          body: JSON.stringify(records),
          headers: { 'content-type': 'application/json' },
        });
    }

    it('numbers records from 0, as the pointers do, with their names', async () => {
      const importFile = await workspace();
      const reply = await importFile(
        [cancel('first'), { ...cancel('broken'), ruleType: 'Nope' }],
        '?onError=skip',
      );
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [first, broken] = reply.body.data.items as Json[];
      expect(first).toMatchObject({ index: 0, name: 'first', outcome: 'created' });
      expect(broken).toMatchObject({ index: 1, name: 'broken', outcome: 'failed' });
      expect(broken).toMatchObject({ details: [{ path: expect.stringMatching(/^\/1\//) }] });
    });

    it('warns in a dry run of records that look like rules already here (same type, name and pairs)', async () => {
      const importFile = await workspace();
      const records = [
        cancel('block ads'),
        requestlyRules['Headers with ids on modifications, one-object modifications'],
      ];
      const first = await importFile(records);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const ids = (first.body.data.items as Json[]).map((item) => item.id);

      const again = [...records, cancel('block ads', 'other.example.com'), cancel('another name')];
      const dry = await importFile(again, '?dryRun=true');
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      const warnings = (dry.body.data.items as Json[]).map((item) => item.warnings);
      expect(warnings).toEqual([
        [`looks like rule "block ads" (${ids[0]}), already in this workspace: same type, name and pairs`],
        [`looks like rule "CORS" (${ids[1]}), already in this workspace: same type, name and pairs`],
        [],
        [],
      ]);

      // Not a dry run: the records are imported as asked, without the warning.
      const real = await importFile([cancel('block ads')]);
      const [written] = real.body.data.items as { warnings: string[] }[];
      expect(written?.warnings.filter((warning) => warning.startsWith('looks like'))).toEqual([]);
    });
  });
});
