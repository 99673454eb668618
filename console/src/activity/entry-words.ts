// An activity entry in words: a sentence for what happened ("alice changed bob's role from editor to
// viewer"), what it is about, and how the actor came in. Kept apart from the page so the wording of
// every kind is in one place.
import type { Schemas } from '../api.js';
import { withArticle } from '../members/roles.js';
import type { Role } from '../session.js';

export type Entry = Schemas['ActivityEntry'];
export type Kind = Entry['kind'];

/** Each kind as the filter names it, rule and group changes first (every member sees them). */
export const CHANGE_KINDS: Record<string, string> = {
  rule_created: 'Rule created',
  rule_updated: 'Rule changed',
  rule_deleted: 'Rule deleted',
  group_created: 'Group created',
  group_updated: 'Group changed',
  group_deleted: 'Group deleted',
  variable_created: 'Variable added',
  variable_updated: 'Variable changed',
  variable_deleted: 'Variable deleted',
  environment_created: 'Environment added',
  environment_deleted: 'Environment deleted',
};

/** Security events: admins and owners alone see them. */
export const SECURITY_KINDS: Record<string, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  sign_out: 'Signed out',
  key_created: 'Key made',
  key_revoked: 'Key revoked',
  invite_created: 'Invite made',
  invite_accepted: 'Invite accepted',
  member_added: 'Member added',
  member_removed: 'Member removed',
  member_role_changed: 'Role changed',
  setting_changed: 'Setting changed',
  webhook_created: 'Webhook added',
  webhook_updated: 'Webhook changed',
  webhook_deleted: 'Webhook removed',
};

/** The team's work around its rules: every member sees it, as the changes it leads to. */
export const WORK_KINDS: Record<string, string> = {
  change_request_opened: 'Change request opened',
  change_request_updated: 'Change request updated',
  change_request_reviewed: 'Change request reviewed',
  change_request_merged: 'Change request merged',
  change_request_closed: 'Change request closed',
  test_suite_created: 'Test suite made',
  test_suite_updated: 'Test suite changed',
  test_suite_deleted: 'Test suite deleted',
};

/** A step of the team's work: recorded with the way in as security events are, but not one. */
export const isWork = (entry: Entry): boolean => entry.kind in WORK_KINDS;

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
const isRole = (value: unknown): value is Role =>
  value === 'viewer' || value === 'editor' || value === 'admin' || value === 'owner';

/** Who acted: their name, else their id, else nobody known (a failed sign-in of an unknown email). */
export function actorOf(entry: Entry): string {
  return entry.byName ?? (entry.by ? `user ${entry.by}` : 'Someone unknown');
}

/**
 * What happened, as a sentence after the actor's name. `nameOf` names a user the entry is about (the
 * members list), falling back to their id.
 */
export function whatHappened(entry: Entry, nameOf: (userId: string) => string): string {
  const detail = entry.detail ?? {};
  const subject = entry.object?.type === 'user' ? nameOf(entry.object.id) : 'someone';
  const keyName = text(detail.name);
  const theKey = keyName ? `the key “${keyName}”` : 'a key';
  const title = text(detail.title);
  const theRequest = title ? `the change request “${title}”` : 'a change request';
  const theSuite = keyName ? `the test suite “${keyName}”` : 'a test suite';
  // A variable and an environment are named by their names (never a value, which may be secret).
  const named = entry.object?.id ?? '';
  const host = text(detail.host);
  const theWebhook = host ? `a webhook to ${host}` : 'a webhook';
  switch (entry.kind) {
    case 'rule_created':
      return 'created a rule';
    case 'rule_updated':
      return 'changed a rule';
    case 'rule_deleted':
      return 'deleted a rule';
    case 'group_created':
      return 'created a group';
    case 'group_updated':
      return 'changed a group';
    case 'group_deleted':
      return 'deleted a group';
    case 'variable_created':
      return `added the variable ${named}`;
    case 'variable_updated':
      return `changed the variable ${named}`;
    case 'variable_deleted':
      return `deleted the variable ${named}`;
    case 'environment_created':
      return `added the environment ${named}`;
    case 'environment_deleted':
      return `deleted the environment ${named}`;
    case 'sign_in':
      return detail.sso === true ? 'signed in with single sign-on' : 'signed in with a password';
    case 'sign_in_failed':
      return 'failed to sign in (wrong password)';
    case 'sign_out':
      return detail.everywhere === true ? 'signed out everywhere' : 'signed out';
    case 'key_created': {
      const scope = text(detail.scope);
      const what = [scope ? `${scope} scope` : null, detail.service === true ? 'for a machine' : null]
        .filter(Boolean)
        .join(', ');
      return `made ${theKey}${what ? ` (${what})` : ''}`;
    }
    case 'key_revoked': {
      const of = text(detail.of);
      const whose = of && of !== entry.by && !of.startsWith('svc_') ? ` of ${nameOf(of)}` : '';
      return `revoked ${theKey}${whose}`;
    }
    case 'invite_created':
      return `invited someone${isRole(detail.role) ? ` as ${withArticle(detail.role)}` : ''}`;
    case 'invite_accepted':
      return 'accepted an invite';
    case 'member_added':
      return `added ${subject}${isRole(detail.role) ? ` as ${withArticle(detail.role)}` : ''}`;
    case 'member_removed':
      return `removed ${subject}${isRole(detail.role) ? `, ${withArticle(detail.role)}` : ''}`;
    case 'member_role_changed':
      return isRole(detail.from) && isRole(detail.to)
        ? `changed the role of ${subject} from ${detail.from} to ${detail.to}`
        : `changed the role of ${subject}`;
    case 'setting_changed':
      return 'changed a setting';
    case 'webhook_created':
      return `added ${theWebhook}`;
    case 'webhook_updated':
      return `changed ${theWebhook}`;
    case 'webhook_deleted':
      return `removed ${theWebhook}`;
    case 'change_request_opened':
      return `opened ${theRequest}`;
    case 'change_request_updated':
      return `updated ${theRequest}`;
    case 'change_request_reviewed':
      return detail.verdict === 'approve'
        ? `approved ${theRequest}`
        : detail.verdict === 'request_changes'
          ? `asked for changes to ${theRequest}`
          : `reviewed ${theRequest}`;
    case 'change_request_merged':
      return typeof detail.revision === 'number'
        ? `merged ${theRequest} as revision ${detail.revision}`
        : `merged ${theRequest}`;
    case 'change_request_closed':
      return `closed ${theRequest}`;
    case 'test_suite_created':
      return `made ${theSuite}`;
    case 'test_suite_updated':
      return `changed ${theSuite}`;
    case 'test_suite_deleted':
      return `deleted ${theSuite}`;
    default:
      return String(entry.kind).replaceAll('_', ' ');
  }
}

/** How the actor came in: a session, a key (by name), the server's command line; null for changes. */
export function wayIn(entry: Entry): string | null {
  const { via } = entry;
  if (!via) return null;
  if (via.type === 'session') return 'signed in';
  if (via.type === 'cli') return 'from the command line';
  return via.keyName ? `with the key “${via.keyName}”` : `with a key (${via.keyId ?? 'unknown'})`;
}
