// GET /v1/activity: rule and group changes merged with security events, newest first, cursor-paged
// and filtered; admins see the security events, others the changes alone; one workspace never sees
// another's; members' changes are recorded with who, the way in and the address; old events are swept;
// a change request's steps and test suite writes are recorded with who and how, for every member to see,
// never with their operations or cases, and nothing of a step refused. Both databases.
import { beforeAll, describe, expect, it } from 'vitest';
import { createActivityService } from '../../src/modules/activity/activity-service.js';
import { createActivityStore } from '../../src/modules/activity/activity-store.js';
import type { IssuedKey } from '../../src/modules/keys/keys-service.js';
import { createMembersService } from '../../src/modules/members/members-service.js';
import { createMembersStore } from '../../src/modules/members/members-store.js';
import { createRule, expectError, type Json } from '../helpers/fixtures.js';
import { addPerson, signIn } from '../helpers/people.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ADMIN = { scope: 'admin' as const, expiresAt: null, name: null };

forEachDatabase((db) => {
  const t = useTestApp({ db });
  /** Alice (the owner) with an admin key: she sees everything. */
  let owner: IssuedKey;
  /** Carol, owner of workspace "other", with an admin key. */
  let theirs: IssuedKey;
  let serial = 0;
  const newMember = () => t.keysService.issue('acme', `member ${db} ${++serial}`);
  const activityService = () => createActivityService({ store: createActivityStore(t.database.db) });

  async function list(query = '', key = owner.key): Promise<Json[]> {
    const reply = await t.call('GET', `/v1/activity${query}`, { key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data;
  }
  /** Every entry, read a page of `pageSize` at a time. */
  async function allPages(query: string, pageSize: number, key = owner.key): Promise<Json[]> {
    const entries: Json[] = [];
    let cursor: string | null = null;
    do {
      const at: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const reply = await t.call('GET', `/v1/activity?pageSize=${pageSize}${query}${at}`, { key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.length).toBeLessThanOrEqual(pageSize);
      entries.push(...reply.body.data);
      cursor = reply.body.nextCursor;
      if (cursor) expect(reply.body.data.length).toBe(pageSize);
    } while (cursor);
    return entries;
  }
  const securityKinds = (entries: Json[]) =>
    entries.filter((e) => !/^(rule|group)_/.test(String(e.kind))).map((e) => e.kind);

  beforeAll(async () => {
    owner = await t.keysService.issue('acme', 'alice', ADMIN);
    theirs = await t.keysService.issue('other', 'carol', ADMIN);
  });

  it("records a role change and a removal with who, the key, the address and the member's roles", async () => {
    const member = await newMember();
    expect(
      (await t.call('PATCH', `/v1/members/${member.userId}`, { key: owner.key, body: { role: 'viewer' } }))
        .status,
    ).toBe(200);
    expect((await t.call('DELETE', `/v1/members/${member.userId}`, { key: owner.key })).status).toBe(200);
    const about = await list(`?object=${member.userId}`);
    const common = {
      by: owner.userId,
      byName: 'alice',
      via: { type: 'key', keyId: owner.keyId, keyName: null },
      address: '127.0.0.1',
      object: { type: 'user', id: member.userId },
    };
    expect(about).toEqual([
      {
        ...common,
        id: expect.stringMatching(/^evt_/),
        at: expect.any(Number),
        kind: 'member_removed',
        detail: { role: 'viewer' },
      },
      {
        ...common,
        id: expect.stringMatching(/^evt_/),
        at: expect.any(Number),
        kind: 'member_role_changed',
        detail: { from: 'editor', to: 'viewer' },
      },
    ]);
    // A role set to the one the member has changes nothing, and records nothing.
    const other = await newMember();
    await t.call('PATCH', `/v1/members/${other.userId}`, { key: owner.key, body: { role: 'editor' } });
    expect(await list(`?object=${other.userId}`)).toEqual([]);
  });

  it('records a member added from the command line, by the operator, with no address', async () => {
    const db_ = t.database.db;
    const members = createMembersService({
      db: db_,
      store: createMembersStore(db_),
      signals: t.database.signals,
      forget: () => {},
      activity: activityService(),
    });
    const user = await newMember();
    await t.call('DELETE', `/v1/members/${user.userId}`, { key: owner.key });
    const operator = {
      keyId: '',
      via: 'key' as const,
      userId: owner.userId,
      workspaceId: owner.workspaceId,
      ownerUserId: owner.userId,
      role: 'owner' as const,
    };
    await members.add(operator, user.userId, 'editor');
    const [added] = await list(`?kind=member_added&object=${user.userId}`);
    expect(added).toMatchObject({
      kind: 'member_added',
      by: owner.userId,
      via: { type: 'cli', keyId: null, keyName: null },
      address: null,
      detail: { role: 'editor' },
    });
  });

  it('merges rule changes with events newest first; viewers and editors see the changes alone', async () => {
    const rule = await createRule(t, { name: 'watched' }, t.teammate.key);
    await t.call('PUT', `/v1/rules/${rule.id}`, { key: t.teammate.key, body: { name: 'watched again' } });
    const member = await newMember();
    await t.call('PATCH', `/v1/members/${member.userId}`, { key: owner.key, body: { role: 'viewer' } });

    const everything = await list();
    expect(everything.slice(0, 3).map((e) => [e.kind, (e.object as Json).id])).toEqual([
      ['member_role_changed', member.userId],
      ['rule_updated', rule.id],
      ['rule_created', rule.id],
    ]);
    expect(everything[1]).toMatchObject({
      id: expect.stringMatching(/^chg_[0-9]+_0$/),
      by: t.teammate.userId,
      byName: 'bob',
      via: null,
      address: null,
      detail: { revision: expect.any(Number) },
    });
    const ats = everything.map((e) => e.at as number);
    expect(ats).toEqual([...ats].sort((a, b) => b - a));

    // Bob is an editor; alice's write key does what an editor does, whatever her role; a viewer too.
    const viewer = await newMember();
    await t.call('PATCH', `/v1/members/${viewer.userId}`, { key: owner.key, body: { role: 'viewer' } });
    for (const key of [t.teammate.key, t.owner.key, viewer.key]) {
      const seen = await list('', key);
      expect(securityKinds(seen)).toEqual([]);
      expect(seen.map((e) => e.id)).toEqual(
        everything.filter((e) => /^chg_/.test(String(e.id))).map((e) => e.id),
      );
      expect(await list('?kind=member_role_changed', key)).toEqual([]);
    }
  });

  it('filters by actor, kind and object', async () => {
    const rule = await createRule(t, { name: 'filtered' }, t.teammate.key);
    await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'by alice' } });
    await t.call('DELETE', `/v1/rules/${rule.id}`, { key: t.teammate.key });
    expect((await list(`?object=${rule.id}`)).map((e) => [e.kind, e.by])).toEqual([
      ['rule_deleted', t.teammate.userId],
      ['rule_updated', t.owner.userId],
      ['rule_created', t.teammate.userId],
    ]);
    expect((await list(`?object=${rule.id}&actor=${t.teammate.userId}`)).map((e) => e.kind)).toEqual([
      'rule_deleted',
      'rule_created',
    ]);
    expect((await list(`?object=${rule.id}&kind=rule_updated`)).map((e) => e.by)).toEqual([t.owner.userId]);
    const byBob = await list(`?actor=${t.teammate.userId}`);
    expect(byBob.length).toBeGreaterThan(0);
    expect(byBob.every((e) => e.by === t.teammate.userId)).toBe(true);
    const removals = await list('?kind=member_removed');
    expect(removals.length).toBeGreaterThan(0);
    expect(removals.every((e) => e.kind === 'member_removed')).toBe(true);
    expect(await list('?kind=group_created')).toEqual([]);
  });

  it('pages through everything with the cursor: nothing skipped, nothing twice, new entries not mixed in', async () => {
    for (let n = 0; n < 4; n++) {
      await createRule(t, { name: `paged ${n}` });
      const member = await newMember();
      await t.call('PATCH', `/v1/members/${member.userId}`, { key: owner.key, body: { role: 'viewer' } });
    }
    const whole = await list('?pageSize=1000');
    for (const size of [1, 2, 3, 7])
      expect((await allPages('', size)).map((e) => e.id)).toEqual(whole.map((e) => e.id));
    // Pages of changes alone, as an editor reads them.
    const changes = await list('', t.teammate.key);
    expect((await allPages('', 2, t.teammate.key)).map((e) => e.id)).toEqual(changes.map((e) => e.id));

    // What is written after the first page is not on the later ones.
    const first = await t.call('GET', '/v1/activity?pageSize=2', { key: owner.key });
    await createRule(t, { name: 'meanwhile' });
    const member = await newMember();
    await t.call('DELETE', `/v1/members/${member.userId}`, { key: owner.key });
    const rest = await allPages(`&cursor=${encodeURIComponent(first.body.nextCursor)}`, 1000);
    expect([...first.body.data, ...rest].map((e: Json) => e.id)).toEqual(whole.map((e) => e.id));
  });

  it("never shows one workspace another's activity", async () => {
    const ours = await list('?pageSize=1000');
    await createRule(t, { name: 'theirs' }, theirs.key);
    const member = await t.keysService.issue('other', `their member ${db}`);
    await t.call('PATCH', `/v1/members/${member.userId}`, { key: theirs.key, body: { role: 'viewer' } });
    const theirList = await list('?pageSize=1000', theirs.key);
    expect(theirList.map((e) => e.kind)).toEqual(['member_role_changed', 'rule_created']);
    // Entry ids count within a workspace (its revisions); who acted says whose entries these are.
    expect(theirList.every((e) => e.by === theirs.userId)).toBe(true);
    expect((await list('?pageSize=1000')).map((e) => e.id)).toEqual(ours.map((e) => e.id));
    // Their objects and users, asked for by id, show nothing here; ours show nothing there.
    expect(await list(`?object=${member.userId}`)).toEqual([]);
    expect(await list(`?actor=${theirs.userId}`)).toEqual([]);
    expect(await list(`?actor=${owner.userId}`, theirs.key)).toEqual([]);
  });

  it('sweeps security events older than ACTIVITY_RETENTION_DAYS; the change log keeps its own time', async () => {
    expect(t.config.activityRetentionDays).toBe(400);
    const service = activityService();
    const events = () => list('?pageSize=1000').then((all) => securityKinds(all).length);
    const changes = () => list('?pageSize=1000').then((all) => all.length - securityKinds(all).length);
    const [eventsBefore, changesBefore] = [await events(), await changes()];
    expect(eventsBefore).toBeGreaterThan(0);
    const retention = t.config.activityRetentionDays * DAY_MS;
    expect(await service.sweep(retention, Date.now() + 399 * DAY_MS)).toBe(0);
    expect(await events()).toBe(eventsBefore);
    expect(await service.sweep(retention, Date.now() + 401 * DAY_MS)).toBe(eventsBefore + 1); // carol's too
    expect(await events()).toBe(0);
    expect(await changes()).toBe(changesBefore);
  });

  it('refuses a query it cannot read with 400 Invalid query, naming the parameter', async () => {
    const cases: [string, string][] = [
      ['?pageSize=0', '/pageSize'],
      ['?pageSize=1001', '/pageSize'],
      ['?kind=coffee', '/kind'],
      ['?cursor=abc', '/cursor'],
      ['?actor=alice', '/actor'],
      ['?object=a%20b', '/object'],
      ['?offset=3', ''],
    ];
    for (const [query, path] of cases)
      expectError(await t.call('GET', `/v1/activity${query}`, { key: owner.key }), 'INVALID_QUERY', [
        expect.objectContaining({ path: expect.stringContaining(path) }),
      ]);
  });
  describe("the team's work: change requests and test suites", () => {
    /** Bob, the editor, through a key he named; Rita, an admin, signed in to the console. */
    let laptop: IssuedKey;
    let rita: { cookie: string; csrf: string; userId: string };
    let viewer: IssuedKey;
    const SECRET_BODY = 'never-in-the-activity';

    beforeAll(async () => {
      laptop = await t.keysService.issue('acme', 'bob', { scope: 'write', expiresAt: null, name: 'laptop' });
      const person = await addPerson(t, `rita-${db}@example.com`, { role: 'admin' });
      const session = await signIn(t, `rita-${db}@example.com`);
      rita = { cookie: session.cookie, csrf: session.csrf, userId: person.id };
      viewer = await newMember();
      await t.call('PATCH', `/v1/members/${viewer.userId}`, { key: owner.key, body: { role: 'viewer' } });
    });

    const asRita = (method: 'POST' | 'PATCH' | 'PUT', url: string, body: unknown) =>
      t.call(method, url, { key: null, headers: { cookie: rita.cookie, 'x-rk-csrf': rita.csrf }, body });
    const step = async (reply: Promise<{ status: number; body: any }>, status = 200): Promise<any> => {
      const answer = await reply;
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body.data;
    };

    it('records each step of a change request with who and how, its title alone; a refused merge records nothing', async () => {
      const rule = await createRule(t, { name: 'reviewed' });
      const operations = [
        { op: 'update', kind: 'rule', id: rule.id, body: { name: 'reviewed', description: SECRET_BODY } },
      ];
      const cr = await step(
        t.call('POST', '/v1/change-requests', { key: laptop.key, body: { title: 'Tidy', operations } }),
        201,
      );
      const url = `/v1/change-requests/${cr.id}`;
      await step(t.call('PATCH', url, { key: laptop.key, body: { title: 'Tidy up' } }));
      await step(asRita('POST', `${url}/reviews`, { verdict: 'request_changes', comment: SECRET_BODY }));
      await step(t.call('PATCH', url, { key: laptop.key, body: { operations } }));
      await step(asRita('POST', `${url}/reviews`, { verdict: 'approve' }));
      const before = await list(`?object=${cr.id}`);

      // The rule moved since: the merge is refused with nothing applied, and nothing recorded.
      await t.call('PUT', `/v1/rules/${rule.id}`, { key: owner.key, body: { name: 'moved' } });
      expectError(await t.call('POST', `${url}/merge`, { key: laptop.key }), 'CHANGE_REQUEST_CONFLICT', [
        expect.objectContaining({ path: '/operations/0/id' }),
      ]);
      expect(await list(`?object=${cr.id}`)).toEqual(before);

      await step(t.call('PATCH', url, { key: laptop.key, body: { operations } }));
      await step(asRita('POST', `${url}/reviews`, { verdict: 'approve' }));
      const merged = await step(t.call('POST', `${url}/merge`, { key: laptop.key }));

      const byBob = {
        by: t.teammate.userId,
        byName: 'bob',
        via: { type: 'key', keyId: laptop.keyId, keyName: 'laptop' },
        address: '127.0.0.1',
      };
      const byRita = {
        by: rita.userId,
        via: { type: 'session', keyId: null, keyName: null },
        address: '127.0.0.1',
      };
      const about = { object: { type: 'change_request', id: cr.id } };
      const title = 'Tidy up';
      const entries = await list(`?object=${cr.id}`);
      expect(
        entries.map(({ id, at, byName, ...rest }) => (rest.by === rita.userId ? rest : { byName, ...rest })),
      ).toEqual([
        {
          ...byBob,
          ...about,
          kind: 'change_request_merged',
          detail: { title, revision: merged.mergedRevision },
        },
        { ...byRita, ...about, kind: 'change_request_reviewed', detail: { title, verdict: 'approve' } },
        { ...byBob, ...about, kind: 'change_request_updated', detail: { title } },
        { ...byRita, ...about, kind: 'change_request_reviewed', detail: { title, verdict: 'approve' } },
        { ...byBob, ...about, kind: 'change_request_updated', detail: { title } },
        {
          ...byRita,
          ...about,
          kind: 'change_request_reviewed',
          detail: { title, verdict: 'request_changes' },
        },
        { ...byBob, ...about, kind: 'change_request_updated', detail: { title } },
        { ...byBob, ...about, kind: 'change_request_opened', detail: { title: 'Tidy' } },
      ]);
      // Neither the operations' bodies nor a review's comment nor the evidence is in the activity.
      expect(JSON.stringify(entries)).not.toContain(SECRET_BODY);
      expect(JSON.stringify(entries)).not.toContain('evidence');

      // Closed by its author: recorded too; a second close is refused and records nothing.
      const other = await step(
        t.call('POST', '/v1/change-requests', { key: laptop.key, body: { title: 'Dropped', operations } }),
        201,
      );
      await step(t.call('POST', `/v1/change-requests/${other.id}/close`, { key: laptop.key }));
      expectError(
        await t.call('POST', `/v1/change-requests/${other.id}/close`, { key: laptop.key }),
        'CHANGE_REQUEST_STATE',
        [expect.objectContaining({ path: '' })],
      );
      expect((await list(`?object=${other.id}`)).map((e) => [e.kind, e.detail])).toEqual([
        ['change_request_closed', { title: 'Dropped' }],
        ['change_request_opened', { title: 'Dropped' }],
      ]);
      expect((await list('?kind=change_request_closed&pageSize=1'))[0]).toMatchObject({
        ...byBob,
        object: { type: 'change_request', id: other.id },
      });
    });

    it('records test suite writes with who and how, the name and id alone', async () => {
      const suites = '/v1/test-suites';
      const cases = [
        { name: SECRET_BODY, request: { url: 'https://a.example/' }, expect: { cancelled: true } },
      ];
      const made = await step(
        t.call('POST', suites, { key: laptop.key, body: { name: 'smoke', cases } }),
        201,
      );
      await step(asRita('PUT', `${suites}/${made.id}`, { name: 'smoke tests' }));
      // A name another suite has is refused, and records nothing.
      await step(t.call('POST', suites, { key: laptop.key, body: { name: 'other', cases: [] } }), 201);
      expectError(
        await t.call('PUT', `${suites}/${made.id}`, { key: laptop.key, body: { name: 'other' } }),
        'TEST_SUITE_EXISTS',
        [expect.objectContaining({ path: '/name' })],
      );
      expect((await t.call('DELETE', `${suites}/${made.id}`, { key: laptop.key })).status).toBe(200);
      const entries = await list(`?object=${made.id}`);
      const about = { object: { type: 'test_suite', id: made.id }, address: '127.0.0.1' };
      expect(entries).toEqual([
        expect.objectContaining({
          ...about,
          kind: 'test_suite_deleted',
          by: t.teammate.userId,
          via: { type: 'key', keyId: laptop.keyId, keyName: 'laptop' },
          detail: { name: 'smoke tests' },
        }),
        expect.objectContaining({
          ...about,
          kind: 'test_suite_updated',
          by: rita.userId,
          via: { type: 'session', keyId: null, keyName: null },
          detail: { name: 'smoke tests' },
        }),
        expect.objectContaining({
          ...about,
          kind: 'test_suite_created',
          by: t.teammate.userId,
          detail: { name: 'smoke' },
        }),
      ]);
      expect(JSON.stringify(entries)).not.toContain(SECRET_BODY);
    });

    it('shows the work to every member, without the address; nothing of another workspace', async () => {
      const work = (entries: Json[]) =>
        entries.filter((e) => /^(change_request|test_suite)_/.test(String(e.kind)));
      const ours = work(await list('?pageSize=1000'));
      expect(ours.length).toBeGreaterThan(10);
      for (const key of [viewer.key, t.teammate.key, t.owner.key]) {
        const seen = await list('?pageSize=1000', key);
        expect(work(seen)).toEqual(ours.map((e) => ({ ...e, address: null })));
        // Still no security event for them.
        expect(seen.every((e) => /^(rule|group|change_request|test_suite)_/.test(String(e.kind)))).toBe(true);
        expect((await list('?kind=change_request_merged', key)).length).toBe(1);
      }

      // Carol's change request and suite are hers alone; ours are not hers.
      await step(
        t.call('POST', '/v1/test-suites', { key: theirs.key, body: { name: 'theirs', cases: [] } }),
        201,
      );
      const crOfTheirs = await step(
        t.call('POST', '/v1/change-requests', {
          key: theirs.key,
          body: { title: 'Theirs', operations: [{ op: 'create', kind: 'group', body: { name: 'G' } }] },
        }),
        201,
      );
      expect(work(await list('?pageSize=1000'))).toEqual(ours);
      expect(await list(`?object=${crOfTheirs.id}`, viewer.key)).toEqual([]);
      expect(work(await list('?pageSize=1000', theirs.key)).map((e) => [e.kind, e.by])).toEqual([
        ['change_request_opened', theirs.userId],
        ['test_suite_created', theirs.userId],
      ]);
      const merged = ours.find((e) => e.kind === 'change_request_merged')?.object as Json;
      expect(await list(`?object=${merged.id}`, theirs.key)).toEqual([]);
    });
  });
});
