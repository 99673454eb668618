// The typed client a user imports, `rulekeeper/client`, against a running service: every operation of
// the OpenAPI document called through it, answers as typed; and its types refuse a Delay rule with
// Redirect pairs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'rulekeeper/client';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createUsersService } from '../../src/modules/users/users-service.js';
import { createUsersStore } from '../../src/modules/users/users-store.js';
import { createKeyWithCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';
import { typeProblems } from '../helpers/typescript.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PASSWORD = 'correct horse battery staple';

describe('rulekeeper/client', () => {
  let database: ScratchDatabase;
  let service: ServiceProcess;
  let key: string;
  /** The owner's admin key, for the member routes; and a teammate to change. */
  let adminKey: string;
  let teammate: string;
  /** An admin of the workspace who is not dev: a change request's reviewer. */
  let reviewerKey: string;
  let receiver: Receiver;
  beforeAll(async () => {
    database = await scratchDatabase('sqlite');
    key = (await createKeyWithCli(database.url, 'client', 'dev')).key;
    adminKey = (await createKeyWithCli(database.url, 'client', 'dev', ['--scope', 'admin'])).key;
    teammate = (await createKeyWithCli(database.url, 'client', 'pat')).userId;
    reviewerKey = (await createKeyWithCli(database.url, 'client', 'rev', ['--scope', 'admin'])).key;
    // The owner, dev, gets an email and a password: the session routes are called as a person.
    const opened = openDatabase(loadConfig({ DATABASE_URL: database.url }));
    const users = createUsersService({
      db: opened.db,
      store: createUsersStore(opened.db),
      signals: opened.signals,
      forget: () => {},
    });
    await opened.db
      .transaction()
      .execute((trx) =>
        users.create(trx, { email: 'dev@example.com', name: 'dev', password: PASSWORD }, Date.now()),
      );
    await opened.close();
    receiver = await startReceiver();
    service = await startService({
      DATABASE_URL: database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it('calls every operation of the document, with typed answers', async () => {
    const client = createClient({ baseUrl: service.url, key });
    const called = new Set<string>();
    const note = (operation: string, status: number, expected: number) => {
      expect(status, operation).toBe(expected);
      called.add(operation);
    };
    const source = { key: 'host' as const, operator: 'Equals' as const, value: 'ads.example.com' };

    const group = await client.POST('/v1/groups', { body: { name: 'team' } });
    note('createGroup', group.response.status, 201);
    const groupId = group.data?.data.id as string;
    note('listGroups', (await client.GET('/v1/groups')).response.status, 200);
    note(
      'getGroup',
      (await client.GET('/v1/groups/{id}', { params: { path: { id: groupId } } })).response.status,
      200,
    );
    const renamed = await client.PUT('/v1/groups/{id}', {
      params: { path: { id: groupId } },
      body: { name: 'team 2' },
    });
    note('updateGroup', renamed.response.status, 200);
    expect(renamed.data?.data.name).toBe('team 2');

    const rule = await client.POST('/v1/rules', {
      body: { name: 'block ads', ruleType: 'Cancel', status: 'Active', groupId, pairs: [{ source }] },
    });
    note('createRule', rule.response.status, 201);
    const ruleId = rule.data?.data.id as string;
    expect(rule.data?.data.ruleType).toBe('Cancel');
    const path = { params: { path: { ruleId } } };
    note(
      'listRules',
      (await client.GET('/v1/rules', { params: { query: { status: 'Active' } } })).response.status,
      200,
    );
    note('getRule', (await client.GET('/v1/rules/{ruleId}', path)).response.status, 200);
    note(
      'updateRule',
      (await client.PUT('/v1/rules/{ruleId}', { ...path, body: { name: 'block more ads' } })).response.status,
      200,
    );
    const versions = await client.GET('/v1/rules/{ruleId}/versions', path);
    note('listRuleVersions', versions.response.status, 200);
    note(
      'restoreRule',
      (await client.POST('/v1/rules/{ruleId}/restore', { ...path, body: { version: 1 } })).response.status,
      200,
    );
    note(
      'listGroupVersions',
      (await client.GET('/v1/groups/{id}/versions', { params: { path: { id: groupId } } })).response.status,
      200,
    );
    note(
      'restoreGroup',
      (
        await client.POST('/v1/groups/{id}/restore', {
          params: { path: { id: groupId } },
          body: { version: 1 },
        })
      ).response.status,
      200,
    );

    const now = Date.now();
    const reported = await client.POST('/v1/hits', {
      body: { source: 'runtime', counts: [{ ruleId, count: 2, firstAt: now, lastAt: now }] },
    });
    note('reportHits', reported.response.status, 200);
    expect(reported.data?.data).toEqual({ accepted: 1, ignored: 0 });
    const ruleHits = await client.GET('/v1/rules/{ruleId}/hits', path);
    note('getRuleHits', ruleHits.response.status, 200);
    expect(ruleHits.data?.data.total7Days).toBe(2);
    const byLastHit = await client.GET('/v1/hits', { params: { query: { pageSize: '10' } } });
    note('listHits', byLastHit.response.status, 200);
    expect(byLastHit.data?.data[0]).toEqual({ ruleId, lastHitAt: now, total7Days: 2 });

    const trace = await client.POST('/v1/trace', {
      body: { request: { url: 'https://ads.example.com/x.js' } },
    });
    note('traceRequest', trace.response.status, 200);
    expect(trace.data?.data.outcome.cancelled).toBe(true);
    const changes = await client.GET('/v1/changes', { params: { query: { after: '0' } } });
    note('listChanges', changes.response.status, 200);
    expect(changes.data?.latest).toBeGreaterThan(0);
    const stream = await client.GET('/v1/changes/stream', {
      parseAs: 'stream',
      params: { query: { after: '0' } },
    });
    note('streamChanges', stream.response.status, 200);
    await stream.response.body?.cancel();

    const exported = await client.GET('/v1/export', { parseAs: 'text' });
    note('exportFile', exported.response.status, 200);
    const imported = await client.POST('/v1/import', {
      params: { query: { dryRun: 'true' } },
      body: JSON.parse(exported.data as string),
    });
    note('importFile', imported.response.status, 200);
    expect(imported.data?.data.created).toBe(2);

    const lint = await client.GET('/v1/lint');
    note('lintRules', lint.response.status, 200);
    expect(lint.data?.data.counts.error).toBe(0);

    const browser = await client.GET('/v1/browser-rules');
    note('browserRules', browser.response.status, 200);
    expect(browser.data?.data.report.length).toBeGreaterThan(0);

    // A test suite kept in the workspace: one case that passes (the rule cancels the request).
    const cases = [
      {
        name: 'ads are blocked',
        request: { url: 'https://ads.example.com/x.js' },
        expect: { cancelled: true },
      },
    ];
    const suite = await client.POST('/v1/test-suites', { body: { name: 'ads', cases } });
    note('createTestSuite', suite.response.status, 201);
    const suitePath = { params: { path: { suiteId: suite.data?.data.id as string } } };
    const suites = await client.GET('/v1/test-suites', { params: { query: { name: 'ads' } } });
    note('listTestSuites', suites.response.status, 200);
    expect(suites.data?.data.map((item) => item.caseCount)).toEqual([1]);
    note('getTestSuite', (await client.GET('/v1/test-suites/{suiteId}', suitePath)).response.status, 200);
    const suiteRenamed = await client.PUT('/v1/test-suites/{suiteId}', {
      ...suitePath,
      body: { name: 'ads 2' },
    });
    note('updateTestSuite', suiteRenamed.response.status, 200);
    const ran = await client.POST('/v1/test-suites/{suiteId}/run', suitePath);
    note('runTestSuite', ran.response.status, 200);
    expect(ran.data?.data).toMatchObject({ passed: 1, failed: 0 });
    note(
      'deleteTestSuite',
      (await client.DELETE('/v1/test-suites/{suiteId}', suitePath)).response.status,
      200,
    );

    const whoami = await client.GET('/v1/whoami');
    note('whoami', whoami.response.status, 200);
    expect(whoami.data?.data.key?.scope).toBe('write');
    expect(whoami.data?.data.user.role).toBe('owner');

    const admin = createClient({ baseUrl: service.url, key: adminKey });
    const members = await admin.GET('/v1/members');
    note('listMembers', members.response.status, 200);
    expect(members.data?.data.map((m) => [m.name, m.role])).toEqual([
      ['dev', 'owner'],
      ['pat', 'editor'],
      ['rev', 'admin'],
    ]);
    const member = { params: { path: { userId: teammate } } };
    const demoted = await admin.PATCH('/v1/members/{userId}', { ...member, body: { role: 'viewer' } });
    note('setMemberRole', demoted.response.status, 200);
    expect(demoted.data?.data.role).toBe('viewer');
    note('removeMember', (await admin.DELETE('/v1/members/{userId}', member)).response.status, 200);
    note('listActivity', (await admin.GET('/v1/activity')).response.status, 200);

    // Settings and a change request: proposed by dev, approved by rev, merged, another closed.
    note('getSettings', (await client.GET('/v1/settings')).response.status, 200);
    const settings = await admin.PATCH('/v1/settings', { body: { reviewers: 'admins' } });
    note('updateSettings', settings.response.status, 200);
    expect(settings.data?.data).toEqual({ review: 'off', reviewers: 'admins' });
    const proposal = {
      title: 'a group',
      operations: [{ op: 'create' as const, kind: 'group' as const, body: { name: 'proposed' } }],
    };
    const proposed = await client.POST('/v1/change-requests', { body: proposal });
    note('createChangeRequest', proposed.response.status, 201);
    const cr = { params: { path: { id: proposed.data?.data.id as string } } };
    note('listChangeRequests', (await client.GET('/v1/change-requests')).response.status, 200);
    note('getChangeRequest', (await client.GET('/v1/change-requests/{id}', cr)).response.status, 200);
    const retitled = await client.PATCH('/v1/change-requests/{id}', { ...cr, body: { title: 'the group' } });
    note('updateChangeRequest', retitled.response.status, 200);
    const reviewer = createClient({ baseUrl: service.url, key: reviewerKey });
    const approved = await reviewer.POST('/v1/change-requests/{id}/reviews', {
      ...cr,
      body: { verdict: 'approve' },
    });
    note('reviewChangeRequest', approved.response.status, 200);
    expect(approved.data?.data.state).toBe('approved');
    const merged = await client.POST('/v1/change-requests/{id}/merge', cr);
    note('mergeChangeRequest', merged.response.status, 200);
    expect(merged.data?.data.state).toBe('merged');
    const other = await client.POST('/v1/change-requests', { body: proposal });
    const closed = await client.POST('/v1/change-requests/{id}/close', {
      params: { path: { id: other.data?.data.id as string } },
    });
    note('closeChangeRequest', closed.response.status, 200);

    // A person's session: the sign-in answer's cookie and CSRF token, then the same client calls.
    const signIn = await client.POST('/v1/session', {
      body: { email: 'dev@example.com', password: PASSWORD },
    });
    note('signIn', signIn.response.status, 200);
    const cookie = (signIn.response.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const person = createClient({
      baseUrl: service.url,
      session: { csrfToken: signIn.data?.data.csrfToken as string, cookie },
    });
    const session = await person.GET('/v1/session');
    note('getSession', session.response.status, 200);
    expect(session.data?.data.workspaces.map((w) => [w.name, w.role])).toEqual([['client', 'owner']]);
    // A change made with the session carries its CSRF token.
    expect((await person.POST('/v1/groups', { body: { name: 'made by a person' } })).response.status).toBe(
      201,
    );
    note('signOut', (await person.DELETE('/v1/session')).response.status, 200);
    expect((await person.GET('/v1/session')).error?.code).toBe('SESSION_INVALID');
    note('getSignInProviders', (await client.GET('/v1/session/providers')).response.status, 200);

    // Keys, invites and password resets, as the workspace's admin.
    const made = await admin.POST('/v1/keys', { body: { name: 'from the client', scope: 'read' } });
    note('createKey', made.response.status, 201);
    note('listKeys', (await admin.GET('/v1/keys')).response.status, 200);
    const keyPath = { params: { path: { id: made.data?.data.id as string } } };
    note('revokeKey', (await admin.DELETE('/v1/keys/{id}', keyPath)).response.status, 200);

    const tokenOf = (link: string | undefined) =>
      new URLSearchParams(String(link).split('?')[1]).get('token') as string;
    const invited = await admin.POST('/v1/invites', { body: { email: 'rae@example.com', role: 'viewer' } });
    note('createInvite', invited.response.status, 201);
    note('listInvites', (await admin.GET('/v1/invites')).response.status, 200);
    const accepted = await client.POST('/v1/invites/accept', {
      body: { token: tokenOf(invited.data?.data.link), name: 'Rae', password: PASSWORD },
    });
    note('acceptInvite', accepted.response.status, 200);
    const another = await admin.POST('/v1/invites', { body: { email: 'sol@example.com', role: 'editor' } });
    const invitePath = { params: { path: { inviteId: another.data?.data.id as string } } };
    note('revokeInvite', (await admin.DELETE('/v1/invites/{inviteId}', invitePath)).response.status, 200);

    // Webhooks, as the workspace's admin, to a receiver on loopback (the service allows it).
    const hook = await admin.POST('/v1/webhooks', { body: { url: receiver.url, events: ['rules.changed'] } });
    note('createWebhook', hook.response.status, 201);
    expect(hook.data?.data.secret).toMatch(/^whsec_/);
    const hookPath = { params: { path: { webhookId: hook.data?.data.id as string } } };
    note('listWebhooks', (await admin.GET('/v1/webhooks')).response.status, 200);
    note('getWebhook', (await admin.GET('/v1/webhooks/{webhookId}', hookPath)).response.status, 200);
    const patched = await admin.PATCH('/v1/webhooks/{webhookId}', {
      ...hookPath,
      body: { description: 'ci' },
    });
    note('updateWebhook', patched.response.status, 200);
    expect((await admin.POST('/v1/groups', { body: { name: 'told' } })).response.status).toBe(201);
    const sent = await admin.GET('/v1/webhooks/{webhookId}/deliveries', hookPath);
    note('listWebhookDeliveries', sent.response.status, 200);
    const deliveryId = sent.data?.data[0]?.id as string;
    const replayed = await admin.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/replay', {
      params: { path: { webhookId: hook.data?.data.id as string, deliveryId } },
    });
    note('replayWebhookDelivery', replayed.response.status, 200);
    note('deleteWebhook', (await admin.DELETE('/v1/webhooks/{webhookId}', hookPath)).response.status, 200);

    // Environments and variables: a secret's value is null in every read, resolved for a key's runtime.
    note(
      'createEnvironment',
      (await client.POST('/v1/environments', { body: { name: 'staging' } })).response.status,
      201,
    );
    note('listEnvironments', (await client.GET('/v1/environments')).response.status, 200);
    const variable = await client.POST('/v1/variables', {
      body: {
        name: 'API',
        secret: true,
        values: { default: 'http://localhost:3000', staging: 'https://s.example' },
      },
    });
    note('createVariable', variable.response.status, 201);
    expect(variable.data?.data.values).toEqual({ default: null, staging: null });
    const variablePath = { params: { path: { name: 'API' } } };
    note('listVariables', (await client.GET('/v1/variables')).response.status, 200);
    note('getVariable', (await client.GET('/v1/variables/{name}', variablePath)).response.status, 200);
    const updated = await client.PUT('/v1/variables/{name}', {
      ...variablePath,
      body: { description: 'the API', values: { default: null, staging: 'https://staging.example' } },
    });
    note('updateVariable', updated.response.status, 200);
    const variableVersions = await client.GET('/v1/variables/{name}/versions', variablePath);
    note('listVariableVersions', variableVersions.response.status, 200);
    expect(JSON.stringify(variableVersions.data)).not.toContain('staging.example');
    const values = await client.GET('/v1/environments/{name}/values', {
      params: { path: { name: 'staging' } },
    });
    note('getEnvironmentValues', values.response.status, 200);
    expect(values.data?.data.values).toEqual({ API: 'https://staging.example' });
    note('deleteVariable', (await client.DELETE('/v1/variables/{name}', variablePath)).response.status, 200);
    note(
      'deleteEnvironment',
      (await client.DELETE('/v1/environments/{name}', { params: { path: { name: 'staging' } } })).response
        .status,
      204,
    );

    const devId = whoami.data?.data.user.id as string;
    const reset = await admin.POST('/v1/members/{userId}/reset', { params: { path: { userId: devId } } });
    note('createPasswordReset', reset.response.status, 201);
    const changed = await client.POST('/v1/password/reset', {
      body: { token: tokenOf(reset.data?.data.link), password: 'another horse battery staple' },
    });
    note('resetPassword', changed.response.status, 200);
    note(
      'forgotPassword',
      (await client.POST('/v1/password/forgot', { body: { email: 'dev@example.com' } })).response.status,
      202,
    );

    note('deleteRule', (await client.DELETE('/v1/rules/{ruleId}', path)).response.status, 200);
    const deleted = await client.GET('/v1/rules/deleted', { params: { query: { pageSize: '10' } } });
    note('listDeletedRules', deleted.response.status, 200);
    expect(deleted.data?.data.map((item) => [item.id, item.rule.name])).toEqual([[ruleId, 'block ads']]);
    note(
      'deleteGroup',
      (await client.DELETE('/v1/groups/{id}', { params: { path: { id: groupId } } })).response.status,
      200,
    );
    const gone = await client.GET('/v1/rules/{ruleId}', path);
    expect(gone.response.status).toBe(404);
    expect(gone.error?.code).toBe('RULE_NOT_FOUND');

    const document = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operations = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).flatMap((operation) => (operation.operationId ? [operation.operationId] : [])),
    );
    expect([...called].sort()).toEqual(operations.sort());
  });

  it('its types refuse a Delay rule with Redirect pairs', () => {
    const dir = mkdtempSync(join(ROOT, 'test', '.client-types-'));
    try {
      writeFileSync(
        join(dir, 'use.ts'),
        `import { createClient } from 'rulekeeper/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:8080', key: 'k' });
const source = { key: 'host', operator: 'Equals', value: 'a.example' } as const;
export const ok = client.POST('/v1/rules', { body: { name: 'd', ruleType: 'Delay', pairs: [{ source, delay: 5 }] } });
export const mixed = client.POST('/v1/rules', {
  // @ts-expect-error a Delay rule with Redirect pairs
  body: { name: 'd', ruleType: 'Delay', pairs: [{ source, destinationType: 'url', destination: 'https://b.example' }] },
});
`,
      );
      const problems = typeProblems(join(dir, 'use.ts'), {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ['node'],
        skipLibCheck: true,
      });
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
