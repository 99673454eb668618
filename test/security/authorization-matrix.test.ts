// The authorization matrix: every endpoint and method, with ids in the path and in the body, for every
// kind of key. One test per cell; each expects the exact status and error (or the documented success),
// and a refused write leaves both workspaces as they were (the cell's objects, and how many there are).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorName, expectError, type Reply } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

type Caller = 'owner' | 'teammate' | 'outsider' | 'revoked' | 'unknown' | 'malformed' | 'none';
const CALLERS: Caller[] = ['owner', 'teammate', 'outsider', 'revoked', 'unknown', 'malformed', 'none'];

/** The objects a cell acts on: ours (workspace acme, created by the owner) and theirs (the outsider's). */
interface World {
  ourRule: string;
  ourGroup: string;
  theirRule: string;
  theirGroup: string;
}
const MISSING_RULE = 'Cancel_zzzzz';
const MISSING_GROUP = 'Group_zzzzz';
const cancel = {
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
};

/** Expected for owner, teammate and outsider: a success status, or a documented error. */
type Outcome = 200 | 201 | ErrorName;
interface Row {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: (w: World) => string;
  title: string;
  body?: (w: World) => unknown;
  expect: [owner: Outcome, teammate: Outcome, outsider: Outcome];
}

const F = 'UNAUTHORIZED_ACTION' as const;
// biome-ignore format: the matrix reads best as a table
const ROWS: Row[] = [
  { method: 'GET', title: '/rules', path: () => '/v1/rules', expect: [200, 200, 200] },
  { method: 'POST', title: '/rules', path: () => '/v1/rules', body: () => ({ name: 'new', ...cancel }), expect: [201, 201, 201] },
  { method: 'POST', title: '/rules with our groupId', path: () => '/v1/rules', body: (w) => ({ name: 'g', groupId: w.ourGroup, ...cancel }), expect: [201, 201, F] },
  { method: 'POST', title: '/rules with their groupId', path: () => '/v1/rules', body: (w) => ({ name: 'g', groupId: w.theirGroup, ...cancel }), expect: [F, F, 201] },
  { method: 'POST', title: '/rules with a missing groupId', path: () => '/v1/rules', body: () => ({ name: 'g', groupId: MISSING_GROUP, ...cancel }), expect: ['GROUP_NOT_FOUND', 'GROUP_NOT_FOUND', 'GROUP_NOT_FOUND'] },
  { method: 'GET', title: '/rules/:ours', path: (w) => `/v1/rules/${w.ourRule}`, expect: [200, 200, F] },
  { method: 'GET', title: '/rules/:theirs', path: (w) => `/v1/rules/${w.theirRule}`, expect: [F, F, 200] },
  { method: 'GET', title: '/rules/:missing', path: () => `/v1/rules/${MISSING_RULE}`, expect: ['RULE_NOT_FOUND', 'RULE_NOT_FOUND', 'RULE_NOT_FOUND'] },
  { method: 'PUT', title: '/rules/:ours', path: (w) => `/v1/rules/${w.ourRule}`, body: () => ({ name: 'renamed' }), expect: [200, 200, F] },
  { method: 'PUT', title: '/rules/:theirs', path: (w) => `/v1/rules/${w.theirRule}`, body: () => ({ name: 'renamed' }), expect: [F, F, 200] },
  { method: 'PUT', title: '/rules/:ours with their groupId', path: (w) => `/v1/rules/${w.ourRule}`, body: (w) => ({ groupId: w.theirGroup }), expect: [F, F, F] },
  { method: 'PUT', title: '/rules/:ours with our groupId', path: (w) => `/v1/rules/${w.ourRule}`, body: (w) => ({ groupId: w.ourGroup }), expect: [200, 200, F] },
  { method: 'PUT', title: '/rules/:ours with a missing groupId', path: (w) => `/v1/rules/${w.ourRule}`, body: () => ({ groupId: MISSING_GROUP }), expect: ['GROUP_NOT_FOUND', 'GROUP_NOT_FOUND', F] },
  { method: 'PUT', title: '/rules/:ours with an invalid body', path: (w) => `/v1/rules/${w.ourRule}`, body: () => ({ pairs: 'none' }), expect: ['RULE_PAYLOAD_INVALID', 'RULE_PAYLOAD_INVALID', F] },
  { method: 'PUT', title: '/rules/:missing', path: () => `/v1/rules/${MISSING_RULE}`, body: () => ({ name: 'x' }), expect: ['RULE_NOT_FOUND', 'RULE_NOT_FOUND', 'RULE_NOT_FOUND'] },
  { method: 'DELETE', title: '/rules/:ours', path: (w) => `/v1/rules/${w.ourRule}`, expect: [200, 200, F] },
  { method: 'DELETE', title: '/rules/:theirs', path: (w) => `/v1/rules/${w.theirRule}`, expect: [F, F, 200] },
  { method: 'DELETE', title: '/rules/:missing', path: () => `/v1/rules/${MISSING_RULE}`, expect: ['RULE_NOT_FOUND', 'RULE_NOT_FOUND', 'RULE_NOT_FOUND'] },
  { method: 'GET', title: '/groups', path: () => '/v1/groups', expect: [200, 200, 200] },
  { method: 'POST', title: '/groups', path: () => '/v1/groups', body: () => ({ name: 'new group' }), expect: [201, 201, 201] },
  { method: 'GET', title: '/groups/:ours', path: (w) => `/v1/groups/${w.ourGroup}`, expect: [200, 200, F] },
  { method: 'GET', title: '/groups/:theirs', path: (w) => `/v1/groups/${w.theirGroup}`, expect: [F, F, 200] },
  { method: 'GET', title: '/groups/:missing', path: () => `/v1/groups/${MISSING_GROUP}`, expect: ['GROUP_NOT_FOUND', 'GROUP_NOT_FOUND', 'GROUP_NOT_FOUND'] },
  { method: 'GET', title: '/groups/:malformed', path: () => '/v1/groups/not-a-group', expect: ['INVALID_GROUP_ID', 'INVALID_GROUP_ID', 'INVALID_GROUP_ID'] },
  { method: 'PUT', title: '/groups/:ours', path: (w) => `/v1/groups/${w.ourGroup}`, body: () => ({ name: 'renamed' }), expect: [200, 200, F] },
  { method: 'PUT', title: '/groups/:theirs', path: (w) => `/v1/groups/${w.theirGroup}`, body: () => ({ name: 'renamed' }), expect: [F, F, 200] },
  { method: 'PUT', title: '/groups/:ours with an invalid body', path: (w) => `/v1/groups/${w.ourGroup}`, body: () => ({ name: 7 }), expect: ['GROUP_PAYLOAD_INVALID', 'GROUP_PAYLOAD_INVALID', F] },
  { method: 'PUT', title: '/groups/:missing', path: () => `/v1/groups/${MISSING_GROUP}`, body: () => ({ name: 'x' }), expect: ['GROUP_NOT_FOUND', 'GROUP_NOT_FOUND', 'GROUP_NOT_FOUND'] },
  { method: 'DELETE', title: '/groups/:ours', path: (w) => `/v1/groups/${w.ourGroup}`, expect: [200, 200, F] },
  { method: 'DELETE', title: '/groups/:theirs', path: (w) => `/v1/groups/${w.theirGroup}`, expect: [F, F, 200] },
  { method: 'DELETE', title: '/groups/:missing', path: () => `/v1/groups/${MISSING_GROUP}`, expect: ['GROUP_NOT_FOUND', 'GROUP_NOT_FOUND', 'GROUP_NOT_FOUND'] },
  { method: 'DELETE', title: '/groups/:malformed', path: () => '/v1/groups/not-a-group', expect: ['INVALID_GROUP_ID', 'INVALID_GROUP_ID', 'INVALID_GROUP_ID'] },
  { method: 'POST', title: '/trace', path: () => '/v1/trace', body: () => ({ request: { url: 'https://a.example/' } }), expect: [200, 200, 200] },
  { method: 'POST', title: '/trace of our ruleIds', path: () => '/v1/trace', body: (w) => ({ request: { url: 'https://a.example/' }, ruleIds: [w.ourRule] }), expect: [200, 200, F] },
  { method: 'POST', title: '/trace of their ruleIds', path: () => '/v1/trace', body: (w) => ({ request: { url: 'https://a.example/' }, ruleIds: [w.theirRule] }), expect: [F, F, 200] },
  { method: 'POST', title: '/trace of a missing ruleId', path: () => '/v1/trace', body: () => ({ request: { url: 'https://a.example/' }, ruleIds: [MISSING_RULE] }), expect: ['RULE_NOT_FOUND', 'RULE_NOT_FOUND', 'RULE_NOT_FOUND'] },
  { method: 'POST', title: '/trace of an unsaved rule in their group', path: () => '/v1/trace', body: (w) => ({ request: { url: 'https://a.example/' }, rules: [{ name: 'u', groupId: w.theirGroup, ...cancel }] }), expect: [F, F, 200] },
];

function expected(row: Row, caller: Caller): Outcome {
  if (caller === 'none') return 'API_KEY_REQUIRED';
  if (caller === 'revoked' || caller === 'unknown' || caller === 'malformed') return 'API_KEY_INVALID';
  return row.expect[caller === 'owner' ? 0 : caller === 'teammate' ? 1 : 2];
}

forEachDatabase((db) => {
  const t = useTestApp({ db });
  const keys = {} as Record<Caller, string | null>;
  beforeAll(async () => {
    const revoked = await t.keysService.issue('acme', 'dave');
    expect(await t.keysService.revoke(revoked.keyId)).toBe(true);
    Object.assign(keys, {
      owner: t.owner.key,
      teammate: t.teammate.key,
      outsider: t.outsider.key,
      revoked: revoked.key,
      unknown: `rk_${'A'.repeat(43)}`,
      malformed: 'not-a-key',
      none: null,
    });
    shared = await world();
  });

  let shared: World;

  /** Fresh objects for each cell, so that writes in one cell cannot change another's outcome. */
  async function world(): Promise<World> {
    const make = async (path: string, key: string, body: object) => {
      const reply = await t.call('POST', path, { key, body });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.data.id as string;
    };
    const [owner, outsider] = [t.owner.key, t.outsider.key];
    return {
      ourRule: await make('/v1/rules', owner, { name: 'ours', ...cancel }),
      ourGroup: await make('/v1/groups', owner, { name: 'ours' }),
      theirRule: await make('/v1/rules', outsider, { name: 'theirs', ...cancel }),
      theirGroup: await make('/v1/groups', outsider, { name: 'theirs' }),
    };
  }

  /** The cell's objects as their owners read them, and how many objects each workspace holds. */
  async function observe(w: World): Promise<unknown[]> {
    const [ours, theirs] = [t.owner.key, t.outsider.key];
    const reads: [string, string][] = [
      [`/v1/rules/${w.ourRule}`, ours],
      [`/v1/groups/${w.ourGroup}`, ours],
      [`/v1/rules/${w.theirRule}`, theirs],
      [`/v1/groups/${w.theirGroup}`, theirs],
      ...['rules', 'groups'].flatMap((kind): [string, string][] => [
        [`/v1/${kind}?pageSize=1`, ours],
        [`/v1/${kind}?pageSize=1`, theirs],
      ]),
    ];
    return Promise.all(
      reads.map(async ([path, key]) => {
        const { status, body } = await t.call('GET', path, { key });
        return { path, status, data: body.total ?? body.data };
      }),
    );
  }

  /** The documented success for this caller: who wrote it, which workspace, what a list shows. */
  async function expectSuccess(row: Row, caller: Caller, w: World, reply: Reply) {
    const user = { owner: t.owner, teammate: t.teammate, outsider: t.outsider }[caller as 'owner'];
    const ownerOfWorkspace = caller === 'outsider' ? t.outsider.userId : t.owner.userId;
    if (row.method === 'DELETE') {
      const what = row.title.startsWith('/rules')
        ? 'Rule deleted successfully'
        : 'Group deleted successfully; 0 rules ungrouped';
      expect(reply.body).toStrictEqual({ success: true, message: what });
      return;
    }
    expect(reply.body.success).toBe(true);
    if (row.title.startsWith('/trace')) {
      // A trace explains the caller's rules only, and never another workspace's.
      const ids = (reply.body.data.rules as { ruleId: string }[]).map((rule) => rule.ruleId);
      expect(ids).not.toContain(caller === 'outsider' ? w.ourRule : w.theirRule);
      return;
    }
    if (row.method === 'GET' && (row.title === '/rules' || row.title === '/groups')) {
      const ids = (reply.body.data as { id: string }[]).map((item) => item.id);
      const [mine, notMine] = row.title === '/rules' ? [w.ourRule, w.theirRule] : [w.ourGroup, w.theirGroup];
      expect(ids).toContain(caller === 'outsider' ? notMine : mine);
      expect(ids).not.toContain(caller === 'outsider' ? mine : notMine);
      return;
    }
    const data = reply.body.data;
    expect(data.lastModifiedBy).toBe(row.method === 'GET' ? ownerOfWorkspace : user.userId);
    expect(data.createdBy).toBe(row.method === 'POST' ? user.userId : ownerOfWorkspace);
    expect(data.currentOwner ?? data.currentOwnerId).toBe(ownerOfWorkspace);
    if (row.method === 'POST') {
      // created in the caller's workspace: the other workspace's key is refused it
      const path = `${row.path(w)}/${data.id}`;
      const other = caller === 'outsider' ? t.owner.key : t.outsider.key;
      expect((await t.call('GET', path, { key: other })).status).toBe(403);
      expect((await t.call('GET', path, { key: keys[caller] })).body.data).toStrictEqual(data);
    }
  }

  for (const row of ROWS) {
    describe(`${row.method} ${row.title}`, () => {
      for (const caller of CALLERS) {
        const outcome = expected(row, caller);
        it(`${caller} → ${outcome}`, async () => {
          // reads share one world; every write gets its own, and a refused write must change nothing
          const writes = row.method !== 'GET';
          const w = writes ? await world() : shared;
          const state = async () => (writes ? await observe(w) : []);
          const before = await state();
          const reply = await t.call(row.method, row.path(w), {
            key: keys[caller],
            ...(row.body ? { body: row.body(w) } : {}),
          });
          if (typeof outcome === 'number') {
            expect(reply.status, JSON.stringify(reply.body)).toBe(outcome);
            await expectSuccess(row, caller, w, reply);
            return;
          }
          // details name the offending field of a body; their wording is the service's own
          expectError(reply, outcome, reply.body?.details);
          if (row.body && reply.status === 400) expect(reply.body.details.length).toBeGreaterThan(0);
          expect(await state()).toStrictEqual(before);
        });
      }
    });
  }
});

afterAll(() => {
  const cells = ROWS.length * CALLERS.length;
  console.log(
    `[authorization matrix] ${cells} cells per database (${ROWS.length} requests × ${CALLERS.length} callers)`,
  );
});
