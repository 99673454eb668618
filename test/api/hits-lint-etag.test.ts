// The lint's ETag follows the never_acted findings, not only the revision (decision 21): a client
// polling with If-None-Match gets 304 while nothing falls due, and 200 with the finding once the clock
// passes the rule's 14 days, the runtimes reporting all along; a hit changes it too. The clock is
// moved, never waited for; a database of its own, so that no other test's rules fall due. Both databases.
import { beforeAll, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { createRule, type Json } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

forEachDatabase((db) => {
  let clock = Date.now();
  const t = useTestApp({ db, now: () => clock });
  let reader: IssuedKey;

  beforeAll(async () => {
    reader = await t.keysService.issue('acme', `reader ${db}`, {
      scope: 'read',
      expiresAt: null,
      name: null,
    });
  });

  const entry = (ruleId: unknown, count = 1, time = clock) => ({
    ruleId,
    count,
    firstAt: time,
    lastAt: time,
  });
  const report = (counts: unknown[]) =>
    t.call('POST', '/v1/hits', { key: reader.key, body: { source: 'proxy', counts } });

  it("lint's ETag follows never_acted: 304 while nothing is due, 200 with the finding once the clock passes 14 days", async () => {
    const idle = await createRule(t, { status: 'Active' });
    // Rules are dated by the real clock: the moved one starts at the rule's last change.
    const start = Number(idle.modificationDate);
    clock = Math.max(clock, start);
    expect(clock).toBe(start);
    expect((await report([])).status).toBe(200);
    const lint = (etag?: string) =>
      t.call('GET', '/v1/lint', etag ? { headers: { 'if-none-match': etag } } : {});
    const named = (reply: Awaited<ReturnType<typeof lint>>) =>
      (reply.body.data.findings as Json[])
        .filter((f) => f.code === 'never_acted')
        .map((f) => (f.ruleIds as string[])[0]);
    // never_acted is asked by the hour: the rule falls due on the first hour 14 days after its change.
    const dueHour = Math.ceil(start / HOUR_MS) * HOUR_MS + 14 * DAY_MS;
    // Runtimes report every day; in the hour before, it is not due.
    for (let day = 1; day < 14; day++) {
      clock = start + day * DAY_MS;
      expect((await report([])).status).toBe(200);
    }
    clock = dueHour - HOUR_MS + 5 * MINUTE_MS;
    expect((await report([])).status).toBe(200);
    const before = await lint();
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(named(before)).not.toContain(idle.id);
    const etag = before.headers.etag as string;
    expect(etag).toMatch(/^"\d+-/);
    clock += 10 * MINUTE_MS;
    expect((await lint(etag)).status).toBe(304);

    // The next hour, no report meanwhile and no change of the rules: the finding is due, and the old
    // ETag no longer holds.
    clock = dueHour + 5 * MINUTE_MS;
    const due = await lint(etag);
    expect(due.status).toBe(200);
    expect(named(due)).toContain(idle.id);
    const dueEtag = due.headers.etag as string;
    expect(dueEtag).not.toBe(etag);
    expect(due.headers['rulekeeper-revision']).toBe(before.headers['rulekeeper-revision']);
    expect((await lint(dueEtag)).status).toBe(304);

    // The rule acts: a report changes the ETag, and the finding goes.
    expect((await report([entry(idle.id)])).status).toBe(200);
    const acted = await lint(dueEtag);
    expect(acted.status).toBe(200);
    expect(named(acted)).not.toContain(idle.id);
  });
});
