// The authorization matrix: every endpoint and method, with ids in the path and in the body, for every
// kind of key: each scope (read, write, admin) in our workspace and in another, expired, revoked,
// unknown, malformed, none. One test per cell; each expects the exact status and error (or the
// documented success), and a refused write leaves both workspaces as they were (the cell's objects,
// and how many there are).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvitesStore } from '../../src/modules/invites/invites-store.js';
import { newLinkToken } from '../../src/modules/shared/single-use-links.js';
import { expectError, type Reply } from '../helpers/fixtures.js';
import { openStream } from '../helpers/sse-client.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';
import { insertDoneDelivery } from '../helpers/webhook-delivery.js';
import { cancel, type Outcome, ROWS, type Row, type World } from './authorization-matrix-rows.js';

/** The keys that call: who they are, where, and with which scope. */
const CALLERS = {
  owner: { workspace: 'acme', user: 'alice', scope: 'write', role: 'owner' },
  teammate: { workspace: 'acme', user: 'bob', scope: 'write', role: 'editor' },
  admin: { workspace: 'acme', user: 'adam', scope: 'admin', role: 'admin' },
  reader: { workspace: 'acme', user: 'rita', scope: 'read', role: 'viewer' },
  // A write key whose user was made a viewer: the role caps what the key may do.
  viewer: { workspace: 'acme', user: 'vera', scope: 'write', role: 'viewer' },
  // An admin key whose user is an editor.
  demotedAdmin: { workspace: 'acme', user: 'dora', scope: 'admin', role: 'editor' },
  outsider: { workspace: 'other', user: 'carol', scope: 'write', role: 'owner' },
  outsideReader: { workspace: 'other', user: 'olga', scope: 'read', role: 'viewer' },
  outsideAdmin: { workspace: 'other', user: 'oscar', scope: 'admin', role: 'admin' },
  expired: { workspace: 'acme', user: 'ed', scope: 'write', role: 'editor' },
  revoked: { workspace: 'acme', user: 'dave', scope: 'write', role: 'editor' },
  // A write key whose user was removed from the workspace: it speaks for nobody.
  removed: { workspace: 'acme', user: 'rex', scope: 'write', role: 'editor' },
  unknown: null,
  malformed: null,
  none: null,
} as const;
type Caller = keyof typeof CALLERS;

/** What a key gets on a route its scope, or its user's role, does not reach: 403 naming which. */
type Expected = Outcome | 'SCOPE' | 'ROLE';

const SCOPES = ['read', 'write', 'admin'] as const;
const REACH = { viewer: 'read', editor: 'write', admin: 'admin', owner: 'admin' } as const;
const WHAT = {
  read: 'read this workspace',
  write: 'change rules or groups',
  admin: "change the workspace's settings",
} as const;
const below = (held: (typeof SCOPES)[number], needed: (typeof SCOPES)[number]) =>
  SCOPES.indexOf(held) < SCOPES.indexOf(needed);

/** Routes that only read (a trace changes nothing): what a read key may use. */
const reads = (row: Row) => row.method === 'GET' || row.title.startsWith('/trace');
const noRoute = (row: Row) => row.title.includes('(no such');

function expected(row: Row, caller: Caller): Expected {
  // What is not a route is not one for anybody: no key is even looked at.
  if (noRoute(row)) return row.expect[0];
  if (caller === 'none') return 'API_KEY_REQUIRED';
  if (['expired', 'revoked', 'removed', 'unknown', 'malformed'].includes(caller)) return 'API_KEY_INVALID';
  const { workspace, scope, role } = CALLERS[caller] as NonNullable<(typeof CALLERS)[Caller]>;
  // The scope, then the role, are checked right after the key, before any id, body or reference.
  if (below(scope, needs(row))) return 'SCOPE';
  if (below(REACH[role], needs(row))) return 'ROLE';
  return row.except?.[caller] ?? row.expect[workspace === 'acme' ? 0 : 1];
}

const needs = (row: Row) => row.needs ?? (reads(row) ? 'read' : 'write');

forEachDatabase((db) => {
  // Every cell that writes suites makes two: room for all of them.
  const t = useTestApp({
    db,
    env: { MAX_TEST_SUITES: '100000', MAX_VARIABLES: '100000', MAX_ENVIRONMENTS: '1000' },
  });
  const keys = {} as Record<Caller, string | null>;
  const userIds = {} as Record<Caller, string>;
  let expiredAt = 0;
  let cells = 0;
  let base = '';
  let shared: World;
  /** The shared world's state after a refusal, and the count of worlds made when it was read. */
  let unchangedSince: { at: number; state: unknown[] } | undefined;

  beforeAll(async () => {
    const issue = async (caller: Caller, expiresAt: number | null = null) => {
      const { workspace, user, scope } = CALLERS[caller] as {
        workspace: string;
        user: string;
        scope: 'read';
      };
      return t.keysService.issue(workspace, user, { scope, expiresAt, name: caller });
    };
    expiredAt = Date.now() - 1000;
    const issued = {
      admin: await issue('admin'),
      reader: await issue('reader'),
      viewer: await issue('viewer'),
      demotedAdmin: await issue('demotedAdmin'),
      outsideReader: await issue('outsideReader'),
      outsideAdmin: await issue('outsideAdmin'),
      expired: await issue('expired', expiredAt),
      revoked: await issue('revoked'),
      removed: await issue('removed'),
    };
    expect(await t.keysService.revoke(issued.revoked.keyId)).toBe(true);
    // Roles changed and a member removed through the API, by the workspace's admin.
    const member = async (method: 'PATCH' | 'DELETE', caller: Caller, body?: object) => {
      const reply = await t.call(method, `/v1/members/${issued[caller as keyof typeof issued].userId}`, {
        key: issued.admin.key,
        ...(body ? { body } : {}),
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    };
    await member('PATCH', 'viewer', { role: 'viewer' });
    await member('PATCH', 'demotedAdmin', { role: 'editor' });
    await member('DELETE', 'removed');
    const mine = { owner: t.owner, teammate: t.teammate, outsider: t.outsider, ...issued };
    for (const [caller, key] of Object.entries(mine)) {
      keys[caller as Caller] = key.key;
      userIds[caller as Caller] = key.userId;
    }
    Object.assign(keys, { unknown: `rk_${'A'.repeat(43)}`, malformed: 'not-a-key', none: null });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    shared = await world();
  });

  /**
   * Fresh objects for each cell, so that writes in one cell cannot change another's outcome: rules and
   * groups for a cell that writes them, members for one that changes members (the rest shared).
   */
  async function world(
    fresh:
      | 'all'
      | 'objects'
      | 'members'
      | 'keys'
      | 'suites'
      | 'changeRequests'
      | 'webhooks'
      | 'variables' = 'all',
  ): Promise<World> {
    const make = async (path: string, key: string, body: object) => {
      const reply = await t.call('POST', path, { key, body });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.data.id as string;
    };
    const [owner, outsider] = [t.owner.key, t.outsider.key];
    const cell = ++cells;
    const proposed = (key: string, rule: string) =>
      make('/v1/change-requests', key, {
        title: `cell ${cell}`,
        operations: [{ op: 'update', kind: 'rule', id: rule, body: { name: 'proposed' } }],
      });
    const objects =
      fresh === 'members' ||
      fresh === 'keys' ||
      fresh === 'suites' ||
      fresh === 'webhooks' ||
      fresh === 'variables'
        ? shared
        : {
            ourRule: await make('/v1/rules', owner, { name: 'ours', ...cancel }),
            ourGroup: await make('/v1/groups', owner, { name: 'ours' }),
            theirRule: await make('/v1/rules', outsider, { name: 'theirs', ...cancel }),
            theirGroup: await make('/v1/groups', outsider, { name: 'theirs' }),
          };
    const members =
      fresh === 'objects' ||
      fresh === 'keys' ||
      fresh === 'suites' ||
      fresh === 'changeRequests' ||
      fresh === 'webhooks' ||
      fresh === 'variables'
        ? shared
        : {
            ourMember: (await t.keysService.issue('acme', `our member ${cell}`)).userId,
            theirMember: (await t.keysService.issue('other', `their member ${cell}`)).userId,
          };
    const ownersKey = async (workspace: string, user: string) =>
      (await t.keysService.issue(workspace, user, { scope: 'read', expiresAt: null, name: `cell ${cell}` }))
        .keyId;
    const keys =
      fresh === 'objects' ||
      fresh === 'members' ||
      fresh === 'suites' ||
      fresh === 'changeRequests' ||
      fresh === 'webhooks' ||
      fresh === 'variables'
        ? shared
        : { ourKey: await ownersKey('acme', 'alice'), theirKey: await ownersKey('other', 'carol') };
    const invite = async (workspaceId: string) => {
      const id = `inv_cell${cell}${workspaceId === t.owner.workspaceId ? 'a' : 'b'}`;
      const at = Date.now();
      await t.database.db.transaction().execute((trx) =>
        createInvitesStore(t.database.db).insert(trx, {
          id,
          workspaceId,
          email: `invited.${cell}@example.com`,
          role: 'viewer',
          kind: 'invite',
          tokenHash: newLinkToken().tokenHash,
          createdBy: null,
          now: at,
          expiresAt: at + 3600_000,
        }),
      );
      return id;
    };
    const suite = (key: string) =>
      make('/v1/test-suites', key, {
        name: `cell ${cell}`,
        cases: [{ name: 'any', request: { url: 'https://a.example/' }, expect: {} }],
      });
    const suites =
      fresh === 'all' || fresh === 'suites'
        ? { ourSuite: await suite(owner), theirSuite: await suite(outsider) }
        : shared;
    // A webhook and a delivery of each workspace, fresh for every cell of a webhook route (the ones
    // before removed: a workspace holds 20 at most, and a cell that makes one must not find the limit).
    const webhook = async (workspaceId: string, side: 'a' | 'b') => {
      const id = `whk_cell${cell}${side}`;
      const at = Date.now();
      await t.database.db
        .insertInto('webhooks')
        .values({
          id,
          workspace_id: workspaceId,
          url: 'https://203.0.113.10/hook',
          description: null,
          events: null,
          active: 0,
          secret: 'whsec_cell',
          created_by: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const delivery = `dlv_cell${cell}${side}`;
      await insertDoneDelivery(t.database.db, { id: delivery, workspaceId, webhookId: id });
      return [id, delivery];
    };
    if (fresh === 'webhooks' || fresh === 'all') {
      await t.database.db.deleteFrom('webhook_deliveries').execute();
      await t.database.db.deleteFrom('webhooks').execute();
    }
    const [ourWebhook, ourDelivery] =
      fresh === 'webhooks' || fresh === 'all'
        ? await webhook(t.owner.workspaceId, 'a')
        : [shared.ourWebhook, shared.ourDelivery];
    const [theirWebhook, theirDelivery] =
      fresh === 'webhooks' || fresh === 'all'
        ? await webhook(t.outsider.workspaceId, 'b')
        : [shared.theirWebhook, shared.theirDelivery];
    // An environment and a variable with a value there, of each workspace, named after the cell.
    const variablesOf = async (key: string, side: 'a' | 'b') => {
      const environment = `env-${cell}${side}`;
      const variable = `VAR_${cell}${side.toUpperCase()}`;
      const made = await t.call('POST', '/v1/environments', { key, body: { name: environment } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const body = { name: variable, values: { default: 'd', [environment]: 'e' } };
      const kept = await t.call('POST', '/v1/variables', { key, body });
      expect(kept.status, JSON.stringify(kept.body)).toBe(201);
      return [environment, variable] as const;
    };
    const [ourEnvironment, ourVariable] =
      fresh === 'all' || fresh === 'variables'
        ? await variablesOf(owner, 'a')
        : [shared.ourEnvironment, shared.ourVariable];
    const [theirEnvironment, theirVariable] =
      fresh === 'all' || fresh === 'variables'
        ? await variablesOf(outsider, 'b')
        : [shared.theirEnvironment, shared.theirVariable];
    return {
      ourEnvironment,
      theirEnvironment,
      ourVariable,
      theirVariable,
      ourSuite: suites.ourSuite,
      theirSuite: suites.theirSuite,
      ourWebhook: ourWebhook as string,
      theirWebhook: theirWebhook as string,
      ourDelivery: ourDelivery as string,
      theirDelivery: theirDelivery as string,
      ourKey: keys.ourKey,
      theirKey: keys.theirKey,
      ourRule: objects.ourRule,
      ourGroup: objects.ourGroup,
      theirRule: objects.theirRule,
      theirGroup: objects.theirGroup,
      ourMember: members.ourMember,
      theirMember: members.theirMember,
      ourInvite: await invite(t.owner.workspaceId),
      theirInvite: await invite(t.outsider.workspaceId),
      ...(fresh === 'all' || fresh === 'changeRequests'
        ? {
            ourChangeRequest: await proposed(owner, objects.ourRule),
            theirChangeRequest: await proposed(outsider, objects.theirRule),
          }
        : { ourChangeRequest: shared.ourChangeRequest, theirChangeRequest: shared.theirChangeRequest }),
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
      [`/v1/test-suites/${w.ourSuite}`, ours],
      [`/v1/test-suites/${w.theirSuite}`, theirs],
      ...['rules', 'groups', 'test-suites'].flatMap((kind): [string, string][] => [
        [`/v1/${kind}?pageSize=1`, ours],
        [`/v1/${kind}?pageSize=1`, theirs],
      ]),
      ['/v1/members', ours],
      ['/v1/members', theirs],
      // The owners' keys that work (a write key lists its own user's keys).
      ['/v1/keys?state=active', ours],
      ['/v1/keys?state=active', theirs],
      [`/v1/change-requests/${w.ourChangeRequest}`, ours],
      [`/v1/change-requests/${w.theirChangeRequest}`, theirs],
      ['/v1/change-requests?pageSize=1', ours],
      ['/v1/change-requests?pageSize=1', theirs],
      ['/v1/settings', ours],
      [`/v1/variables/${w.ourVariable}`, ours],
      [`/v1/variables/${w.theirVariable}`, theirs],
      ['/v1/variables?pageSize=1', ours],
      ['/v1/variables?pageSize=1', theirs],
      ['/v1/environments', ours],
      ['/v1/environments', theirs],
      // Its revision is the workspace's: a refused write moves neither.
      [`/v1/environments/${w.ourEnvironment}/values`, ours],
      [`/v1/environments/${w.theirEnvironment}/values`, theirs],
    ];
    const webhooks = await t.database.db.selectFrom('webhooks').selectAll().orderBy('id').execute();
    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .orderBy('id')
      .execute();
    return [
      ...(await Promise.all(
        reads.map(async ([path, key]) => {
          const { status, body } = await t.call('GET', path, { key });
          return { path, status, data: body.total ?? body.data };
        }),
      )),
      webhooks,
      deliveries,
    ];
  }

  /** The documented success for this caller: who wrote it, which workspace, what a list shows. */
  async function expectSuccess(row: Row, caller: Caller, w: World, reply: Reply) {
    const theirs = CALLERS[caller]?.workspace === 'other';
    const ownerOfWorkspace = theirs ? t.outsider.userId : t.owner.userId;
    /** Of a pair (ours, theirs): the caller's own first. */
    const mine = ([ours, others]: [string, string]) => (theirs ? [others, ours] : [ours, others]);
    const body = reply.body;
    if (row.title === '/export') {
      const ids = (body as { id: string }[]).map((record) => record.id);
      expect(ids).toContain(theirs ? w.theirRule : w.ourRule);
      expect(ids).not.toContain(theirs ? w.ourRule : w.theirRule);
      return;
    }
    if (row.title.startsWith('/environments')) {
      const [own, other] = mine([w.ourEnvironment, w.theirEnvironment]);
      const workspaceKey = theirs ? t.outsider.key : t.owner.key;
      const listed = async () =>
        (
          (await t.call('GET', '/v1/environments', { key: workspaceKey })).body.data as { name: string }[]
        ).map((e) => e.name);
      if (row.method === 'DELETE') {
        expect(reply.body).toBeUndefined();
        expect(await listed()).not.toContain(own);
      } else if (row.title.endsWith('/values')) {
        expect(body.data).toMatchObject({
          environment: own,
          values: { [mine([w.ourVariable, w.theirVariable])[0] as string]: 'e' },
        });
      } else if (row.method === 'POST') {
        expect(body.data.name).toBe(`new-${w.ourEnvironment}`);
        expect(await listed()).toContain(body.data.name);
      } else {
        const names = (body.data as { name: string }[]).map((e) => e.name);
        expect(names).toContain(own);
        expect(names).not.toContain(other);
      }
      return;
    }
    expect(body.success).toBe(true);
    if (row.title === '/whoami') {
      expect(body.data.user.id).toBe(userIds[caller]);
      expect(body.data.user.role).toBe(CALLERS[caller]?.role);
      expect(body.data.key.scope).toBe(CALLERS[caller]?.scope);
      expect(body.data.workspace.name).toBe(CALLERS[caller]?.workspace);
      return;
    }
    if (row.title.startsWith('/import')) {
      expect(body.data.items.map((item: { outcome: string }) => item.outcome)).toStrictEqual(['created']);
      expect(body.data.dryRun).toBe(row.title.includes('dry run'));
      return;
    }
    if (row.title.startsWith('/members')) {
      const member = mine([w.ourMember, w.theirMember])[0];
      if (row.method === 'GET') {
        const ids = (body.data as { userId: string }[]).map((m) => m.userId);
        expect(ids).toContain(member);
        expect(ids).not.toContain(mine([w.ourMember, w.theirMember])[1]);
      } else if (row.method === 'PATCH') {
        expect(body.data).toMatchObject({ userId: member, role: 'viewer' });
      } else {
        expect(body).toStrictEqual({ success: true, message: 'Member removed' });
        const left = await t.call('GET', '/v1/members', { key: keys[caller] });
        expect(left.body.data.map((m: { userId: string }) => m.userId)).not.toContain(member);
      }
      return;
    }
    if (row.title.startsWith('/keys')) {
      const [own, other] = mine([w.ourKey, w.theirKey]);
      if (row.method === 'GET') {
        const listed = (body.data as { id: string; user: { id: string } }[]).map((k) => k.id);
        expect(listed).not.toContain(other);
        expect(listed.length).toBeGreaterThan(0);
      } else if (row.method === 'POST') {
        expect(body.data).toMatchObject({
          name: 'cell',
          scope: 'read',
          user: { id: userIds[caller] },
          service: false,
        });
        expect(body.data.key).toMatch(/^rk_/);
      } else {
        expect(body).toStrictEqual({ success: true, message: 'Key revoked' });
        const left = await t.call('GET', '/v1/keys?state=revoked', {
          key: theirs ? t.outsider.key : t.owner.key,
        });
        expect(left.body.data.map((k: { id: string }) => k.id)).toContain(own);
      }
      return;
    }
    if (row.title.startsWith('/variables')) {
      const [own, other] = mine([w.ourVariable, w.theirVariable]);
      if (row.method === 'GET' && row.title === '/variables') {
        const names = (body.data as { name: string }[]).map((v) => v.name);
        expect(names).toContain(own);
        expect(names).not.toContain(other);
      } else if (row.title.endsWith('/versions')) {
        expect(body.data.map((v: { object: { name: string } }) => v.object.name)).toContain(own);
      } else if (row.method === 'DELETE') {
        expect(body).toStrictEqual({ success: true, message: 'Variable deleted' });
        expect((await t.call('GET', `/v1/variables/${own}`, { key: keys[caller] })).status).toBe(404);
      } else if (row.method === 'POST') {
        expect(body.data.name).toBe(`NEW_${w.ourVariable}`);
        // Kept in the caller's workspace: the other's key finds no such variable.
        const path = `/v1/variables/${body.data.name}`;
        expect((await t.call('GET', path, { key: theirs ? t.owner.key : t.outsider.key })).status).toBe(404);
        expect((await t.call('GET', path, { key: keys[caller] })).body.data).toStrictEqual(body.data);
      } else {
        expect(body.data.name).toBe(own);
        expect(body.data.description).toBe(row.method === 'PUT' ? 'changed' : '');
      }
      return;
    }
    if (row.title.startsWith('/webhooks')) {
      const [own, other] = mine([w.ourWebhook, w.theirWebhook]);
      const [ownDelivery] = mine([w.ourDelivery, w.theirDelivery]);
      if (row.title === '/webhooks' && row.method === 'GET') {
        const ids = (body.data as { id: string }[]).map((hook) => hook.id);
        expect(ids).toContain(own);
        expect(ids).not.toContain(other);
        expect(JSON.stringify(body)).not.toContain('whsec_');
      } else if (row.title === '/webhooks') {
        expect(body.data).toMatchObject({ url: 'https://203.0.113.10/hook', active: true });
        expect(body.data.secret).toMatch(/^whsec_/);
      } else if (row.title.endsWith('/replay')) {
        expect(body.data).toMatchObject({ id: ownDelivery, state: 'pending' });
      } else if (row.title.endsWith('/deliveries')) {
        expect((body.data as { id: string }[]).map((d) => d.id)).toStrictEqual([ownDelivery]);
      } else if (row.method === 'DELETE') {
        expect(body).toStrictEqual({ success: true, message: 'Webhook removed' });
      } else {
        expect(body.data.id).toBe(own);
        expect(body.data).not.toHaveProperty('secret');
        if (row.method === 'PATCH') expect(body.data.active).toBe(false);
      }
      return;
    }
    if (row.title.startsWith('/invites')) {
      const [own, other] = mine([w.ourInvite, w.theirInvite]);
      if (row.method === 'GET') {
        const ids = (body.data as { id: string }[]).map((invite) => invite.id);
        expect(ids).toContain(own);
        expect(ids).not.toContain(other);
      } else if (row.method === 'POST') {
        expect(body.data).toMatchObject({
          email: 'newcomer@example.com',
          role: 'viewer',
          createdBy: userIds[caller],
        });
      } else {
        expect(body).toStrictEqual({ success: true, message: 'Invite revoked' });
        const left = await t.call('GET', '/v1/invites', { key: keys[caller] });
        expect(left.body.data.map((invite: { id: string }) => invite.id)).not.toContain(own);
      }
      return;
    }
    if (row.title.startsWith('/test-suites')) {
      const [own, other] = mine([w.ourSuite, w.theirSuite]);
      if (row.method === 'GET' && row.title === '/test-suites') {
        const ids = (body.data as { id: string }[]).map((suite) => suite.id);
        expect(ids).toContain(own);
        expect(ids).not.toContain(other);
      } else if (row.title.endsWith('/run')) {
        expect(body.data).toMatchObject({ suite: { id: own }, passed: 1, failed: 0 });
      } else if (row.method === 'DELETE') {
        expect(body).toStrictEqual({ success: true, message: 'Test suite deleted' });
        expect((await t.call('GET', `/v1/test-suites/${own}`, { key: keys[caller] })).status).toBe(404);
      } else if (row.method === 'POST') {
        expect(body.data).toMatchObject({ name: `new ${w.ourSuite}`, createdBy: userIds[caller] });
        // Kept in the caller's workspace: the other's key finds no such suite.
        const path = `/v1/test-suites/${body.data.id}`;
        expect((await t.call('GET', path, { key: theirs ? t.owner.key : t.outsider.key })).status).toBe(404);
        expect((await t.call('GET', path, { key: keys[caller] })).body.data).toStrictEqual(body.data);
      } else {
        expect(body.data.id).toBe(own);
        const wrote = row.method === 'PUT';
        expect(body.data.lastModifiedBy).toBe(wrote ? userIds[caller] : ownerOfWorkspace);
        expect(body.data.caseCount).toBe(wrote ? 0 : 1);
      }
      return;
    }
    if (row.method === 'DELETE') {
      const what = row.title.startsWith('/rules')
        ? 'Rule deleted successfully'
        : 'Group deleted successfully; 0 rules ungrouped';
      expect(body).toStrictEqual({ success: true, message: what });
      return;
    }
    if (row.title.startsWith('/trace')) {
      // A trace explains the caller's rules only, and never another workspace's.
      const ids = (body.data.rules as { ruleId: string }[]).map((rule) => rule.ruleId);
      expect(ids).not.toContain(theirs ? w.ourRule : w.theirRule);
      return;
    }
    if (row.title === '/lint') {
      // The lint names the caller's rules only, never another workspace's.
      const ids = (body.data.rules as { id: string }[]).map((rule) => rule.id);
      expect(ids).not.toContain(theirs ? w.ourRule : w.theirRule);
      return;
    }
    if (row.title === '/browser-rules') {
      // The report names the caller's active rules only, never another workspace's.
      const ids = (body.data.report as { ruleId: string }[]).map((rule) => rule.ruleId);
      expect(ids).not.toContain(theirs ? w.ourRule : w.theirRule);
      return;
    }
    if (row.title.startsWith('/activity')) {
      // The caller's workspace's rule is there, another's never (not even asked for by id).
      const objects = (body.data as { object: { id: string } | null }[]).map((entry) => entry.object?.id);
      const [own, other] = mine([w.ourRule, w.theirRule]);
      const asked = row.title.endsWith('our rule')
        ? w.ourRule
        : row.title.endsWith('their rule')
          ? w.theirRule
          : '';
      if (asked === own) expect(objects).toContain(own);
      expect(objects).not.toContain(other);
      return;
    }
    if (row.title.startsWith('/hits') && row.method === 'POST') {
      // The caller's workspace's rule is counted; another's is ignored alike with an unknown id.
      const asked = row.title.endsWith('our rule') ? w.ourRule : w.theirRule;
      const counted = asked === mine([w.ourRule, w.theirRule])[0];
      expect(body.data).toStrictEqual(counted ? { accepted: 1, ignored: 0 } : { accepted: 0, ignored: 1 });
      return;
    }
    if (row.title === '/hits') {
      const ids = (body.data as { ruleId: string }[]).map((item) => item.ruleId);
      const [own, other] = mine([w.ourRule, w.theirRule]);
      expect(ids).toContain(own);
      expect(ids).not.toContain(other);
      return;
    }
    if (row.title.endsWith('/hits')) {
      expect(body.data.ruleId).toBe(mine([w.ourRule, w.theirRule])[0]);
      return;
    }
    if (row.title.startsWith('/settings')) {
      expect(body.data).toStrictEqual({ review: 'off', reviewers: 'admins' });
      return;
    }
    if (row.title.startsWith('/change-requests')) {
      const [own, other] = mine([w.ourChangeRequest, w.theirChangeRequest]);
      if (row.method === 'GET' && row.title === '/change-requests') {
        const ids = (body.data as { id: string }[]).map((item) => item.id);
        expect(ids).toContain(own);
        expect(ids).not.toContain(other);
        return;
      }
      if (row.method === 'POST' && !row.title.includes('/:')) {
        // Made in the caller's workspace, by the caller: the other workspace does not find it.
        expect(body.data).toMatchObject({ state: 'open', author: userIds[caller] });
        const otherKey = theirs ? t.owner.key : t.outsider.key;
        expect((await t.call('GET', `/v1/change-requests/${body.data.id}`, { key: otherKey })).status).toBe(
          404,
        );
        return;
      }
      expect(body.data.id).toBe(own);
      const state = row.title.endsWith('/reviews')
        ? 'approved'
        : row.title.endsWith('/close')
          ? 'closed'
          : 'open';
      expect(body.data.state).toBe(state);
      if (row.method === 'PATCH') expect(body.data.title).toBe('retitled');
      return;
    }
    if (row.title === '/changes') {
      expect(body.data.length).toBeGreaterThan(0);
      return;
    }
    if (row.title === '/rules/deleted') {
      // The caller's deleted rules (earlier cells' deletions among them), never another workspace's.
      const ids = (body.data as { id: string }[]).map((item) => item.id);
      expect(ids).not.toContain(mine([w.ourRule, w.theirRule])[1]);
      return;
    }
    if (row.title.endsWith('/versions')) {
      const objectId = (v: { object: { id: string } }) => v.object.id;
      const id = row.title.startsWith('/rules')
        ? mine([w.ourRule, w.theirRule])[0]
        : mine([w.ourGroup, w.theirGroup])[0];
      expect((body.data as { object: { id: string } }[]).map(objectId)).toStrictEqual([id]);
      return;
    }
    if (row.method === 'GET' && (row.title === '/rules' || row.title === '/groups')) {
      const ids = (body.data as { id: string }[]).map((item) => item.id);
      const [own, other] = mine(
        row.title === '/rules' ? [w.ourRule, w.theirRule] : [w.ourGroup, w.theirGroup],
      );
      expect(ids).toContain(own);
      expect(ids).not.toContain(other);
      return;
    }
    const data = body.data;
    const wrote = row.method !== 'GET';
    const created = row.method === 'POST' && !row.title.endsWith('/restore');
    expect(data.lastModifiedBy).toBe(wrote ? userIds[caller] : ownerOfWorkspace);
    expect(data.createdBy).toBe(created ? userIds[caller] : ownerOfWorkspace);
    expect(data.currentOwner ?? data.currentOwnerId).toBe(ownerOfWorkspace);
    if (created) {
      // created in the caller's workspace: the other workspace's key is refused it
      const path = `${row.path(w)}/${data.id}`;
      const other = theirs ? t.owner.key : t.outsider.key;
      expect((await t.call('GET', path, { key: other })).status).toBe(403);
      expect((await t.call('GET', path, { key: keys[caller] })).body.data).toStrictEqual(data);
    }
  }

  /** The stream answers 200 and opens (its first block names where it starts); then it is closed. */
  async function expectStreamOpens(caller: Caller) {
    const client = await openStream(`${base}/v1/changes/stream`, { 'x-api-key': keys[caller] as string });
    try {
      expect(client.status).toBe(200);
      await client.waitFor((c) => c.events.length > 0, 5000, 'the opening block');
      expect(client.events[0]?.comment).toBe('open');
    } finally {
      client.close();
    }
  }

  for (const row of ROWS) {
    describe(`${row.method} ${row.title}`, () => {
      for (const caller of Object.keys(CALLERS) as Caller[]) {
        const outcome = expected(row, caller);
        it(`${caller} → ${outcome}`, async () => {
          // reads share one world; every write gets its own, and a refused write must change nothing
          const writes = !reads(row) && !noRoute(row);
          const fresh = row.title.startsWith('/change-requests')
            ? 'changeRequests'
            : row.title.startsWith('/members')
              ? 'members'
              : row.title.startsWith('/keys')
                ? 'keys'
                : row.title.startsWith('/test-suites')
                  ? 'suites'
                  : row.title.startsWith('/webhooks')
                    ? 'webhooks'
                    : row.title.startsWith('/variables') || row.title.startsWith('/environments')
                      ? 'variables'
                      : 'objects';
          // A write that succeeds gets a world of its own; a refused one is tried on the shared world,
          // which it must leave as it was. Every cell of a webhook route, reads too, gets webhooks of
          // its own (see world).
          const succeeds = typeof outcome === 'number';
          const w = (writes && succeeds) || fresh === 'webhooks' ? await world(fresh) : shared;
          if (row.title === '/changes/stream' && outcome === 200) return expectStreamOpens(caller);
          const state = async () => (writes ? await observe(w) : []);
          // What the last refusal left is what the next one starts from, unless a world was made or a
          // request succeeded since (either may change what observe reads).
          const before =
            writes && w === shared && unchangedSince?.at === cells ? unchangedSince.state : await state();
          const reply = await t.call(row.method, row.path(w), {
            key: keys[caller],
            ...(row.body ? { body: row.body(w) } : {}),
          });
          if (succeeds) {
            unchangedSince = undefined;
            expect(reply.status, JSON.stringify(reply.body)).toBe(outcome);
            await expectSuccess(row, caller, w, reply);
            return;
          }
          if (outcome === 'SCOPE' || outcome === 'ROLE') {
            const { scope, role } = CALLERS[caller] as NonNullable<(typeof CALLERS)[Caller]>;
            const held =
              outcome === 'SCOPE' ? `this key's scope is ${scope}` : `your role in this workspace is ${role}`;
            expectError(reply, 'UNAUTHORIZED_ACTION', [
              { path: '', message: `${held}: it cannot ${WHAT[needs(row)]}` },
            ]);
          } else if (outcome === 'API_KEY_INVALID' && caller === 'expired') {
            const message = `this key expired at ${new Date(expiredAt).toISOString()}`;
            expectError(reply, 'API_KEY_INVALID', [{ path: '', message }]);
          } else {
            // details name the offending field of a body; their wording is the service's own
            expectError(reply, outcome, reply.body?.details);
            if (row.body && reply.status === 400) expect(reply.body.details.length).toBeGreaterThan(0);
            // a refusal of the key says nothing more than that
            if (reply.status === 401) expect(reply.body.details).toBeUndefined();
          }
          expect(await state()).toStrictEqual(before);
          if (writes && w === shared) unchangedSince = { at: cells, state: before };
        });
      }
    });
  }
});

afterAll(() => {
  const callers = Object.keys(CALLERS).length;
  console.log(
    `[authorization matrix] ${ROWS.length * callers} cells per database (${ROWS.length} requests × ${callers} callers)`,
  );
});
