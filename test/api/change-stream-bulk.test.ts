// A revision of more than 1,000 changes (an import) is one `event: bulk` on the change stream, not its
// changes one by one; and the proxy's rule feed, a reader of the stream, reloads the rules on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuleFeed, type RuleFeed } from '../../src/proxy/rule-feed.js';
import { openStream, type SseClient } from '../helpers/sse-client.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

const cancel = (name: string) => ({
  objectType: 'rule',
  name,
  ruleType: 'Cancel',
  status: 'Active',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: `${name.replace(/\W/g, '')}.example.com` } }],
});

forEachDatabase((db) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];
  const feeds: RuleFeed[] = [];
  beforeAll(async () => {
    t = await buildTestApp({ db });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    for (const f of feeds) f.stop();
    await t?.close();
  });

  async function stream(key: string, headers: Record<string, string> = {}) {
    const client = await openStream(`${base}/v1/changes/stream`, { 'x-api-key': key, ...headers });
    streams.push(client);
    await client.waitFor((c) => c.events.length > 0, 10_000, 'the stream to open');
    return client;
  }

  async function importRules(key: string, count: number, prefix: string): Promise<number> {
    const reply = await t.call('POST', '/v1/import', {
      key,
      body: JSON.stringify(Array.from({ length: count }, (_, i) => cancel(`${prefix} ${i}`))),
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(200);
    return Number(reply.headers['rulekeeper-revision']);
  }

  describe('event: bulk', () => {
    it('sends a revision of 1,001 changes as one bulk event, and one of 1,000 change by change', async () => {
      const workspace = await t.keysService.issue(`bulk-${db}`, 'importer');
      const client = await stream(workspace.key);
      const large = await importRules(workspace.key, 1001, 'large');
      const small = await importRules(workspace.key, 1000, 'small');
      await client.waitFor((c) => c.events.some((e) => e.id === String(small)), 30_000, 'both imports');
      const events = client.events.filter((e) => e.event !== undefined);
      expect(events[0]).toEqual({
        event: 'bulk',
        id: String(large),
        data: JSON.stringify({ revision: large, changes: 1001 }),
      });
      const rest = events.slice(1);
      expect(rest).toHaveLength(1000);
      expect(rest.every((e) => e.event === 'change' && JSON.parse(e.data ?? '').revision === small)).toBe(
        true,
      );
      // A client resuming from before it gets the same bulk event.
      const resumed = await stream(workspace.key, { 'last-event-id': String(large - 1) });
      await resumed.waitFor((c) => c.events.some((e) => e.id === String(small)), 30_000, 'the catch-up');
      expect(resumed.events.find((e) => e.event !== undefined)).toEqual(events[0]);
    });

    it('makes the proxy’s rule feed read the rules again, without losing its stream', async () => {
      const workspace = await t.keysService.issue(`feed-${db}`, 'proxy');
      const logged: string[] = [];
      const feed = createRuleFeed({ server: base, key: workspace.key, log: (m) => logged.push(m) });
      feeds.push(feed);
      await feed.firstAttempt;
      expect(feed.status()).toMatchObject({ rules: 0, connected: true });
      const revision = await importRules(workspace.key, 1500, 'feed');
      await feed.reached(revision);
      expect(feed.status().rules).toBe(1500);
      expect(feed.current().rules.map((r) => r.rule.name)).toContain('feed 1499');
      // The feed carried on with the same stream: a later single change is applied as usual.
      const made = await t.call('POST', '/v1/rules', { key: workspace.key, body: cancel('after the bulk') });
      await feed.reached(Number(made.headers['rulekeeper-revision']));
      expect(feed.status().rules).toBe(1501);
      expect(logged).toEqual([expect.stringMatching(/^following .*: 0 rules$/)]);
    });
  });
});
