// The console's words for people: which roles an admin or owner is offered for a member, the
// activity's sentences, and a key's state and last day, each as a person reads them.
import { describe, expect, it } from 'vitest';
import {
  CHANGE_KINDS,
  type Entry,
  WORK_KINDS,
  wayIn,
  whatHappened,
} from '../../console/src/activity/entry-words.js';
import { endOfDay, stateOf } from '../../console/src/keys/key-words.js';
import { rolesToGive, withArticle } from '../../console/src/members/roles.js';
import {
  CHANGE_KINDS as SERVICE_CHANGE_KINDS,
  WORK_KINDS as SERVICE_WORK_KINDS,
} from '../../src/modules/activity/activity-kinds.js';

const entry = (fields: Partial<Entry>): Entry => ({
  id: 'evt_1',
  at: 0,
  kind: 'sign_in',
  by: 'usr_alice',
  byName: 'alice',
  via: null,
  address: null,
  object: null,
  detail: null,
  ...fields,
});

const names = (id: string) => ({ usr_bob: 'bob' })[id] ?? `a former member (${id})`;

describe('the roles offered for a member', () => {
  it('offers owner to owners alone, and nothing to an admin for an owner', () => {
    expect(rolesToGive('owner', 'editor')).toEqual(['viewer', 'editor', 'admin', 'owner']);
    expect(rolesToGive('admin', 'editor')).toEqual(['viewer', 'editor', 'admin']);
    expect(rolesToGive('admin', 'owner')).toEqual([]);
    expect(['viewer', 'editor', 'admin', 'owner'].map((r) => withArticle(r as never))).toEqual([
      'a viewer',
      'an editor',
      'an admin',
      'an owner',
    ]);
  });
});

describe('the activity in words', () => {
  it('says what happened, to whom, and how the actor came in', () => {
    const changed = entry({
      kind: 'member_role_changed',
      object: { type: 'user', id: 'usr_bob' },
      detail: { from: 'editor', to: 'viewer' },
      via: { type: 'session', keyId: null, keyName: null },
    });
    expect(whatHappened(changed, names)).toBe('changed the role of bob from editor to viewer');
    expect(wayIn(changed)).toBe('signed in');
    const made = entry({
      kind: 'key_created',
      detail: { name: 'CI', scope: 'read', service: true },
      via: { type: 'key', keyId: 'key_1', keyName: 'laptop' },
    });
    expect(whatHappened(made, names)).toBe('made the key “CI” (read scope, for a machine)');
    expect(wayIn(made)).toBe('with the key “laptop”');
    expect(
      whatHappened(
        entry({
          kind: 'member_removed',
          object: { type: 'user', id: 'usr_gone' },
          detail: { role: 'editor' },
        }),
        names,
      ),
    ).toBe('removed a former member (usr_gone), an editor');
    expect(whatHappened(entry({ kind: 'sign_out', detail: { everywhere: true } }), names)).toBe(
      'signed out everywhere',
    );
    expect(wayIn(entry({ kind: 'rule_updated' }))).toBeNull();
  });

  it("tells a change request's steps by its title, and test suites and webhooks by name and host", () => {
    const about = (kind: Entry['kind'], detail: Record<string, unknown>) =>
      whatHappened(entry({ kind, detail }), names);
    const title = 'Tidy the staging rules';
    expect(about('change_request_opened', { title })).toBe(`opened the change request “${title}”`);
    expect(about('change_request_updated', { title })).toBe(`updated the change request “${title}”`);
    expect(about('change_request_reviewed', { title, verdict: 'approve' })).toBe(
      `approved the change request “${title}”`,
    );
    expect(about('change_request_reviewed', { title, verdict: 'request_changes' })).toBe(
      `asked for changes to the change request “${title}”`,
    );
    expect(about('change_request_merged', { title, revision: 42 })).toBe(
      `merged the change request “${title}” as revision 42`,
    );
    expect(about('change_request_closed', {})).toBe('closed a change request');
    expect(about('test_suite_created', { name: 'smoke' })).toBe('made the test suite “smoke”');
    expect(about('test_suite_updated', { name: 'smoke' })).toBe('changed the test suite “smoke”');
    expect(about('test_suite_deleted', { name: 'smoke' })).toBe('deleted the test suite “smoke”');
    expect(about('webhook_created', { host: 'chat.example.com' })).toBe(
      'added a webhook to chat.example.com',
    );
    const session = { type: 'session' as const, keyId: null, keyName: null };
    expect(wayIn(entry({ kind: 'change_request_merged', via: session }))).toBe('signed in');
    // Every kind of the team's work the service records has a label and a sentence of its own.
    expect(Object.keys(WORK_KINDS)).toEqual([...SERVICE_WORK_KINDS]);
    for (const kind of SERVICE_WORK_KINDS)
      expect(about(kind, { title, name: 'smoke' })).not.toBe(kind.replaceAll('_', ' '));
  });

  it('names a variable or an environment changed by its name, and every change kind has words', () => {
    const about = (kind: Entry['kind'], type: 'variable' | 'environment', id: string) =>
      whatHappened(entry({ kind, object: { type, id } }), names);
    expect(about('variable_updated', 'variable', 'API')).toBe('changed the variable API');
    expect(about('environment_deleted', 'environment', 'staging')).toBe('deleted the environment staging');
    expect(Object.keys(CHANGE_KINDS)).toEqual([...SERVICE_CHANGE_KINDS]);
  });
});

describe('a key as listed', () => {
  const key = { revokedAt: null, expiresAt: null } as never as Parameters<typeof stateOf>[0];
  it('is active, revoked, or expired from its last moment on', () => {
    expect(stateOf(key)).toBe('active');
    expect(stateOf({ ...key, revokedAt: 5 })).toBe('revoked');
    expect(stateOf({ ...key, expiresAt: 10 }, 10)).toBe('expired');
    expect(stateOf({ ...key, expiresAt: 11 }, 10)).toBe('active');
  });

  it('expires at the end of the day chosen, in the browser’s time zone', () => {
    const end = endOfDay('2030-05-01');
    expect(end).toBe(new Date(2030, 4, 1, 23, 59, 59, 999).getTime());
    expect(endOfDay('not a date')).toBeNull();
  });
});
