// What an activity entry can tell of: a security event's kind (decisions §18), a step of the team's
// reviewed work (a change request's, a test suite's: decisions §19), or a rule's or group's change as the
// change log keeps it. One list, read by the recorder, the query's check and the document.

/** Security events: written by the modules they happen in, seen by admins and owners only. */
export const SECURITY_KINDS = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'key_created',
  'key_revoked',
  'invite_created',
  'invite_accepted',
  'invite_revoked',
  'password_reset_created',
  'password_reset',
  'member_added',
  'member_removed',
  'member_role_changed',
  'setting_changed',
  'webhook_created',
  'webhook_updated',
  'webhook_deleted',
] as const;
export type SecurityKind = (typeof SECURITY_KINDS)[number];

/**
 * The team's work around its rules: a change request's steps and test suites' writes. Recorded as
 * security events are (with the way in), but seen by every member, as the changes they lead to are.
 */
export const WORK_KINDS = [
  'change_request_opened',
  'change_request_updated',
  'change_request_reviewed',
  'change_request_merged',
  'change_request_closed',
  'test_suite_created',
  'test_suite_updated',
  'test_suite_deleted',
] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** Changes of rules, groups, variables and environments, read from the change log: seen by every member. */
export const CHANGE_KINDS = [
  'rule_created',
  'rule_updated',
  'rule_deleted',
  'group_created',
  'group_updated',
  'group_deleted',
  'variable_created',
  'variable_updated',
  'variable_deleted',
  'environment_created',
  'environment_deleted',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** What a module records (`activity.record`): a security event or a step of the team's work. */
export type RecordedKind = SecurityKind | WorkKind;
export type ActivityKind = RecordedKind | ChangeKind;

const securityKinds = new Set<string>(SECURITY_KINDS);
export const isSecurityKind = (kind: string): kind is SecurityKind => securityKinds.has(kind);
const workKinds = new Set<string>(WORK_KINDS);
export const isWorkKind = (kind: string): kind is WorkKind => workKinds.has(kind);
const changeKinds = new Set<string>(CHANGE_KINDS);
export const isChangeKind = (kind: string): kind is ChangeKind => changeKinds.has(kind);

/** What a security event is about, when it is about something. */
export const OBJECT_TYPES = [
  'rule',
  'group',
  'variable',
  'environment',
  'user',
  'key',
  'invite',
  'setting',
  'workspace',
  'webhook',
  'change_request',
  'test_suite',
] as const;
export type ActivityObjectType = (typeof OBJECT_TYPES)[number];
