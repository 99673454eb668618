// Hits (decision 21): runtimes report the rules that acted; a rule's hits per day and by runtime, the
// workspace's rules by last hit, the lint's never_acted. Reports are bounded (entries, body size,
// counts, times, reports per key per minute), another workspace's ids are ignored without saying what
// they are, a read key reports and a viewer reads. The clock is moved, never waited for. Both databases.
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { createHitsService } from '../../src/modules/hits/hits-service.js';
import { createHitsStore } from '../../src/modules/hits/hits-store.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { at, createRule, expectError, type Json } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const dayText = (time: number) => new Date(time).toISOString().slice(0, 10);

forEachDatabase((db) => {
  let clock = Date.now();
  const t = useTestApp({ db, now: () => clock });
  let reader: IssuedKey;
  let viewer: IssuedKey;

  beforeAll(async () => {
    reader = await t.keysService.issue('acme', `reader ${db}`, {
      scope: 'read',
      expiresAt: null,
      name: null,
    });
    const admin = await t.keysService.issue('acme', 'alice', { scope: 'admin', expiresAt: null, name: null });
    viewer = await t.keysService.issue('acme', `viewer ${db}`);
    const made = await t.call('PATCH', `/v1/members/${viewer.userId}`, {
      key: admin.key,
      body: { role: 'viewer' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
  });
  // Each test starts a new minute of reports for every key.
  beforeEach(() => {
    clock += MINUTE_MS + 1;
  });

  const entry = (ruleId: unknown, count = 1, time = clock) => ({
    ruleId,
    count,
    firstAt: time,
    lastAt: time,
  });
  const report = (counts: unknown[], { key = reader.key, source = 'proxy' } = {}) =>
    t.call('POST', '/v1/hits', { key, body: { source, counts } });
  async function hitsOf(ruleId: unknown, key?: string): Promise<Json> {
    const reply = await t.call('GET', `/v1/rules/${ruleId}/hits`, key ? { key } : {});
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data;
  }

  it('a read key reports; the rule shows its hits per day, by runtime, in 7 days and its last hit', async () => {
    const rule = await createRule(t);
    const first = await report([entry(rule.id, 3)]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toEqual({ accepted: 1, ignored: 0 });
    // A second report adds to the same hour; another runtime counts apart.
    clock += 5_000;
    expect((await report([entry(rule.id, 2)])).status).toBe(200);
    expect((await report([entry(rule.id, 10)], { source: 'extension' })).status).toBe(200);

    const hits = await hitsOf(rule.id);
    expect(hits).toMatchObject({ ruleId: rule.id, lastHitAt: clock, total7Days: 15, total30Days: 15 });
    const days = hits.days as { date: string; count: number }[];
    expect(days).toHaveLength(30);
    expect(days[29]).toEqual({ date: dayText(clock), count: 15 });
    expect(days[0]?.date).toBe(dayText(clock - 29 * DAY_MS));
    expect(days.slice(0, 29).every((day) => day.count === 0)).toBe(true);
    expect(hits.sources).toEqual(
      expect.arrayContaining([
        { source: 'proxy', total7Days: 5, total30Days: 5, lastHitAt: clock },
        { source: 'extension', total7Days: 10, total30Days: 10, lastHitAt: clock },
      ]),
    );

    // A rule that never acted has none, and its last hit is null.
    const quiet = await createRule(t);
    expect(await hitsOf(quiet.id)).toMatchObject({ lastHitAt: null, total7Days: 0, sources: [] });
  });

  it('a viewer reads hits; GET /v1/hits lists every rule, most recently acted first, then the others', async () => {
    const older = await createRule(t);
    const newer = await createRule(t);
    const never = await createRule(t);
    expect((await report([entry(older.id, 4, clock - HOUR_MS)])).status).toBe(200);
    expect((await report([entry(newer.id, 1)])).status).toBe(200);
    expect((await hitsOf(newer.id, viewer.key)).total7Days).toBe(1);

    const all: Json[] = [];
    let offset = 0;
    for (;;) {
      const reply = await t.call('GET', `/v1/hits?pageSize=7&offset=${offset}`, { key: viewer.key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      all.push(...reply.body.data);
      if (reply.body.nextOffset === null) break;
      offset = reply.body.nextOffset;
    }
    const rules = await t.call('GET', '/v1/rules?pageSize=1000');
    expect(all).toHaveLength(rules.body.total);
    const ids = all.map((item) => item.ruleId);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(ids.indexOf(older.id)).toBeLessThan(ids.indexOf(never.id));
    expect(all.find((item) => item.ruleId === older.id)).toEqual({
      ruleId: older.id,
      lastHitAt: clock - HOUR_MS,
      total7Days: 4,
    });
    expect(all.find((item) => item.ruleId === never.id)).toEqual({
      ruleId: never.id,
      lastHitAt: null,
      total7Days: 0,
    });
    // Sorted: every rule that acted comes before every one that did not, newest first.
    const last = all.map((item) => item.lastHitAt as number | null);
    const acted = last.filter((time) => time !== null) as number[];
    expect(last.slice(0, acted.length).every((time) => time !== null)).toBe(true);
    expect([...acted].sort((a, b) => b - a)).toEqual(acted);
  });

  it("ignores unknown ids and another workspace's, alike; their counts never reach that workspace", async () => {
    const ours = await createRule(t);
    const theirs = await createRule(t, {}, t.outsider.key);
    const reply = await report([
      entry(ours.id),
      entry(theirs.id, 1000),
      entry('Redirect_nosuch'),
      entry('x'),
    ]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toEqual({ accepted: 1, ignored: 3 });
    expect((await hitsOf(theirs.id, t.outsider.key)).total7Days).toBe(0);
    // Their rule's hits cannot be read from here (403, as for any object of another workspace).
    expectError(await t.call('GET', `/v1/rules/${theirs.id}/hits`), 'UNAUTHORIZED_ACTION');
    expectError(await t.call('GET', '/v1/rules/Redirect_nosuch/hits'), 'RULE_NOT_FOUND');
    const listed = await t.call('GET', '/v1/hits?pageSize=1000', { key: t.outsider.key });
    expect(listed.body.data.map((item: Json) => item.ruleId)).toEqual([theirs.id]);
    expect(listed.body.data[0].lastHitAt).toBeNull();
  });

  it('bounds a report: counts capped, times moved into the last day, entries of one rule added together', async () => {
    const rule = await createRule(t);
    const reply = await report([
      { ruleId: rule.id, count: 2 ** 31 - 1, firstAt: 0, lastAt: clock + 365 * DAY_MS },
      { ruleId: rule.id, count: 2, firstAt: 0, lastAt: 0 },
    ]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const hits = await hitsOf(rule.id);
    // A time from the future is now; one from long ago a day ago (yesterday, or today just after midnight).
    expect(hits.lastHitAt).toBe(clock);
    expect(hits.total7Days).toBe(1_000_002);
  });

  it('refuses a report it cannot read with 400 Invalid hits report naming each problem; nothing is counted', async () => {
    const rule = await createRule(t);
    const cases: [unknown, string[]][] = [
      [{ source: 'curl', counts: [] }, ['/source']],
      [{ source: 'proxy' }, ['/counts']],
      [{ source: 'proxy', counts: [entry(rule.id, 0)] }, ['/counts/0/count']],
      [{ source: 'proxy', counts: [{ ...entry(rule.id), url: 'https://a.example/' }] }, ['/counts/0/url']],
      [{ source: 'proxy', counts: [entry(rule.id, 1.5)] }, ['/counts/0/count']],
      // Past what the document allows (and a database's integer holds), refused rather than capped.
      [{ source: 'proxy', counts: [entry(rule.id, 5_000_000_000)] }, ['/counts/0/count']],
      [
        { source: 'proxy', counts: [{ ruleId: rule.id, count: 1 }] },
        ['/counts/0/firstAt', '/counts/0/lastAt'],
      ],
      [{ source: 'proxy', counts: Array.from({ length: 1001 }, () => entry(rule.id)) }, ['/counts']],
      [[], ['']],
    ];
    for (const [body, paths] of cases) {
      const reply = await t.call('POST', '/v1/hits', { key: reader.key, body });
      expectError(
        reply,
        'HITS_PAYLOAD_INVALID',
        paths.map((path) => at(path)),
      );
    }
    expect((await hitsOf(rule.id)).total7Days).toBe(0);
    // A report of a million ids is refused by its size, before it is parsed.
    const huge = `{"source":"proxy","counts":[${Array.from({ length: 1_000_000 }, () => '{"ruleId":"Cancel_x"}').join(',')}]}`;
    const tooLarge = await t.call('POST', '/v1/hits', {
      key: reader.key,
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    expectError(tooLarge, 'PAYLOAD_TOO_LARGE');
  });

  it('a key past HITS_REPORTS_PER_MINUTE gets 429 with Retry-After; other keys report; the next minute it may again', async () => {
    const rule = await createRule(t);
    expect(t.config.hitsReportsPerMinute).toBe(60);
    for (let i = 0; i < 60; i++) expect((await report([entry(rule.id)])).status).toBe(200);
    // 15.5 s into the key's minute (it began with its first report): 44.5 s left, said as 45.
    clock += 15_500;
    const refused = await report([entry(rule.id)]);
    expectError(refused, 'RATE_LIMITED');
    expect(refused.headers['retry-after']).toBe('45');
    expect((await report([entry(rule.id)], { key: t.owner.key })).status).toBe(200);
    expect((await hitsOf(rule.id)).total7Days).toBe(61);
    clock += 44_500;
    expect((await report([entry(rule.id)])).status).toBe(200);
  });

  it('a viewer may report too; counts show in /metrics; without a key, 401', async () => {
    const rule = await createRule(t);
    expect((await report([entry(rule.id, 2), entry('Cancel_nosuch')], { key: viewer.key })).status).toBe(200);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/rulekeeper_hit_reports_total\{source="proxy"\} [1-9]/);
    expect(metrics.body).toMatch(/rulekeeper_hit_entries_total\{source="proxy",outcome="accepted"\} [1-9]/);
    expect(metrics.body).toMatch(/rulekeeper_hit_entries_total\{source="proxy",outcome="ignored"\} [1-9]/);
    expectError(
      await t.call('POST', '/v1/hits', { key: null, body: { source: 'proxy', counts: [] } }),
      'API_KEY_REQUIRED',
    );
  });

  it('lint: never_acted for an Active rule 14 days unchanged with no hit while runtimes reported, not before', async () => {
    const idle = await createRule(t, { status: 'Active' });
    const busy = await createRule(t, { status: 'Active' });
    const off = await createRule(t, { status: 'Inactive' });
    const neverActed = async () => {
      const reply = await t.call('GET', '/v1/lint');
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const findings = (reply.body.data.findings as Json[]).filter((f) => f.code === 'never_acted');
      for (const finding of findings) {
        expect(finding.severity).toBe('info');
        expect(reply.body.data.rules.map((r: Json) => r.id)).toContain((finding.ruleIds as string[])[0]);
      }
      return findings.map((f) => (f.ruleIds as string[])[0]);
    };
    // Runtimes report from now on; nothing has passed 14 days yet.
    expect((await report([entry(busy.id)])).status).toBe(200);
    expect(await neverActed()).toEqual([]);
    // 15 days on, runtimes still reporting: the rule that acted and the inactive one are not named.
    clock += 15 * DAY_MS;
    expect((await report([])).status).toBe(200);
    const named = await neverActed();
    expect(named).toContain(idle.id);
    expect(named).not.toContain(busy.id);
    expect(named).not.toContain(off.id);
    // Once nobody has reported for more than a day, silence proves nothing.
    clock += 2 * DAY_MS;
    expect(await neverActed()).toEqual([]);
  });

  it('sweeps hours older than 90 days (the module runs the sweep hourly)', async () => {
    const rule = await createRule(t);
    expect((await report([entry(rule.id, 7)])).status).toBe(200);
    const hits = createHitsService({
      db: t.database.db,
      store: createHitsStore(t.database.db),
      reportsPerMinute: 60,
      now: () => clock,
    });
    // Earlier tests' hours, moved past 90 days by their clocks, may go; this one's stays.
    clock += 89 * DAY_MS;
    await hits.sweep();
    expect((await hitsOf(rule.id)).lastHitAt).not.toBeNull();
    clock += 2 * DAY_MS;
    expect(await hits.sweep()).toBeGreaterThan(0);
    expect(await hitsOf(rule.id)).toMatchObject({ lastHitAt: null, total30Days: 0 });
  });
});
