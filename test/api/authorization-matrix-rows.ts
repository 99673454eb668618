// The rows of the authorization matrix (authorization-matrix.test.ts): every endpoint and method,
// with ids in the path and in the body, and what a key of our workspace and one of theirs get.
import type { ErrorName } from '../helpers/fixtures.js';

/** The objects a cell acts on: ours (workspace acme, created by the owner) and theirs (the outsider's). */
export interface World {
  ourRule: string;
  ourGroup: string;
  theirRule: string;
  theirGroup: string;
  /** An editor of each workspace, made for the cell (a member row changes or removes them). */
  ourMember: string;
  theirMember: string;
  /** A key of each workspace's owner, made for the cell (a key row revokes them). */
  ourKey: string;
  theirKey: string;
  /** A pending invite of each workspace, made for the cell. */
  ourInvite: string;
  theirInvite: string;
  /** A test suite of each workspace (made for the cell that writes suites; shared otherwise). */
  ourSuite: string;
  theirSuite: string;
  /** An open change request of each workspace, by its owner, renaming its rule. */
  ourChangeRequest: string;
  theirChangeRequest: string;
  /** A webhook of each workspace with one delivery, made for the cell. */
  ourWebhook: string;
  theirWebhook: string;
  ourDelivery: string;
  theirDelivery: string;
  /** An environment and a variable (with a value there) of each workspace, named apart. */
  ourEnvironment: string;
  theirEnvironment: string;
  ourVariable: string;
  theirVariable: string;
}
const MISSING_RULE = 'Cancel_zzzzz';
const MISSING_GROUP = 'Group_zzzzz';
export const cancel = {
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' } }],
};
const url = 'https://a.example/';

/** Expected for a key of our workspace and for one of theirs: a success status, or a documented error. */
export type Outcome = 200 | 201 | 204 | ErrorName;
export interface Row {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: (w: World) => string;
  title: string;
  body?: (w: World) => unknown;
  expect: [ours: Outcome, theirs: Outcome];
  /** The scope (and role) the route needs, when not `read` for a read and `write` for a change. */
  needs?: 'read' | 'admin';
  /** What some callers (by name) get instead, past the scope and role checks: a rule of the service's. */
  except?: Record<string, Outcome>;
}

const F = 'UNAUTHORIZED_ACTION' as const;
const RNF = 'RULE_NOT_FOUND' as const;
const GNF = 'GROUP_NOT_FOUND' as const;
const IGI = 'INVALID_GROUP_ID' as const;
const MNF = 'MEMBER_NOT_FOUND' as const;
const KNF = 'KEY_NOT_FOUND' as const;
/** Another member's key is revoked by admins only (an admin key of an admin or owner). */
const notAdmins = (...callers: string[]) => Object.fromEntries(callers.map((caller) => [caller, F]));
const INF = 'INVITE_NOT_FOUND' as const;
const SNF = 'TEST_SUITE_NOT_FOUND' as const;
/** A suite of one case, named after the cell's suite so that no two cells take the same name. */
const suiteBody = (w: World) => ({
  name: `new ${w.ourSuite}`,
  cases: [{ name: 'c', request: { url }, expect: {} }],
});
const CRNF = 'CHANGE_REQUEST_NOT_FOUND' as const;
const proposal = (ops: unknown[]) => ({ title: 'cell', operations: ops });
/** A member made by `keys create`: they have no email, so no password to reset. */
const NO_SIGN_IN = 'USER_CANNOT_SIGN_IN' as const;
const WNF = 'WEBHOOK_NOT_FOUND' as const;
const DNF = 'DELIVERY_NOT_FOUND' as const;
/** A documentation address (TEST-NET-3): public, written as such (no DNS asked), reaching nobody. */
const hookUrl = 'https://203.0.113.10/hook';
const ENF = 'ENVIRONMENT_NOT_FOUND' as const;
const VNF = 'VARIABLE_NOT_FOUND' as const;
const same = (outcome: Outcome): [Outcome, Outcome] => [outcome, outcome];
const importFile = [{ objectType: 'rule', name: 'imported', ...cancel }];
// biome-ignore format: the matrix reads best as a table
export const ROWS: Row[] = [
  { method: 'GET', title: '/rules', path: () => '/v1/rules', expect: same(200) },
  { method: 'POST', title: '/rules', path: () => '/v1/rules', body: () => ({ name: 'new', ...cancel }), expect: same(201) },
  { method: 'POST', title: '/rules with our groupId', path: () => '/v1/rules', body: (w) => ({ name: 'g', groupId: w.ourGroup, ...cancel }), expect: [201, F] },
  { method: 'POST', title: '/rules with their groupId', path: () => '/v1/rules', body: (w) => ({ name: 'g', groupId: w.theirGroup, ...cancel }), expect: [F, 201] },
  { method: 'POST', title: '/rules with a missing groupId', path: () => '/v1/rules', body: () => ({ name: 'g', groupId: MISSING_GROUP, ...cancel }), expect: same(GNF) },
  { method: 'POST', title: '/rules with an invalid body', path: () => '/v1/rules', body: () => ({ name: 'x' }), expect: same('RULE_PAYLOAD_INVALID') },
  { method: 'GET', title: '/rules/:ours', path: (w) => `/v1/rules/${w.ourRule}`, expect: [200, F] },
  { method: 'GET', title: '/rules/:theirs', path: (w) => `/v1/rules/${w.theirRule}`, expect: [F, 200] },
  { method: 'GET', title: '/rules/:missing', path: () => `/v1/rules/${MISSING_RULE}`, expect: same(RNF) },
  { method: 'PUT', title: '/rules/:ours', path: (w) => `/v1/rules/${w.ourRule}`, body: () => ({ name: 'renamed' }), expect: [200, F] },
  { method: 'PUT', title: '/rules/:theirs', path: (w) => `/v1/rules/${w.theirRule}`, body: () => ({ name: 'renamed' }), expect: [F, 200] },
  { method: 'PUT', title: '/rules/:ours with their groupId', path: (w) => `/v1/rules/${w.ourRule}`, body: (w) => ({ groupId: w.theirGroup }), expect: same(F) },
  { method: 'PUT', title: '/rules/:ours with our groupId', path: (w) => `/v1/rules/${w.ourRule}`, body: (w) => ({ groupId: w.ourGroup }), expect: [200, F] },
  { method: 'PUT', title: '/rules/:ours with a missing groupId', path: (w) => `/v1/rules/${w.ourRule}`, body: () => ({ groupId: MISSING_GROUP }), expect: [GNF, F] },
  { method: 'PUT', title: '/rules/:ours with an invalid body', path: (w) => `/v1/rules/${w.ourRule}`, body: () => ({ pairs: 'none' }), expect: ['RULE_PAYLOAD_INVALID', F] },
  { method: 'PUT', title: '/rules/:missing', path: () => `/v1/rules/${MISSING_RULE}`, body: () => ({ name: 'x' }), expect: same(RNF) },
  { method: 'DELETE', title: '/rules/:ours', path: (w) => `/v1/rules/${w.ourRule}`, expect: [200, F] },
  { method: 'DELETE', title: '/rules/:theirs', path: (w) => `/v1/rules/${w.theirRule}`, expect: [F, 200] },
  { method: 'DELETE', title: '/rules/:missing', path: () => `/v1/rules/${MISSING_RULE}`, expect: same(RNF) },
  { method: 'GET', title: '/rules/:undecodable', path: () => '/v1/rules/%zz', expect: same(RNF) },
  { method: 'PUT', title: '/rules/:undecodable', path: () => '/v1/rules/%zz', body: () => ({ name: 'x' }), expect: same(RNF) },
  { method: 'GET', title: '/rules/deleted', path: () => '/v1/rules/deleted', expect: same(200) },
  { method: 'GET', title: '/rules/:ours/versions', path: (w) => `/v1/rules/${w.ourRule}/versions`, expect: [200, F] },
  { method: 'GET', title: '/rules/:theirs/versions', path: (w) => `/v1/rules/${w.theirRule}/versions`, expect: [F, 200] },
  { method: 'GET', title: '/rules/:missing/versions', path: () => `/v1/rules/${MISSING_RULE}/versions`, expect: same(RNF) },
  { method: 'POST', title: '/rules/:ours/restore', path: (w) => `/v1/rules/${w.ourRule}/restore`, body: () => ({ version: 1 }), expect: [200, F] },
  { method: 'POST', title: '/rules/:theirs/restore', path: (w) => `/v1/rules/${w.theirRule}/restore`, body: () => ({ version: 1 }), expect: [F, 200] },
  { method: 'POST', title: '/rules/:missing/restore', path: () => `/v1/rules/${MISSING_RULE}/restore`, body: () => ({ version: 1 }), expect: same(RNF) },
  { method: 'GET', title: '/groups', path: () => '/v1/groups', expect: same(200) },
  { method: 'POST', title: '/groups', path: () => '/v1/groups', body: () => ({ name: 'new group' }), expect: same(201) },
  { method: 'GET', title: '/groups/:ours', path: (w) => `/v1/groups/${w.ourGroup}`, expect: [200, F] },
  { method: 'GET', title: '/groups/:theirs', path: (w) => `/v1/groups/${w.theirGroup}`, expect: [F, 200] },
  { method: 'GET', title: '/groups/:missing', path: () => `/v1/groups/${MISSING_GROUP}`, expect: same(GNF) },
  { method: 'GET', title: '/groups/:malformed', path: () => '/v1/groups/not-a-group', expect: same(IGI) },
  { method: 'PUT', title: '/groups/:ours', path: (w) => `/v1/groups/${w.ourGroup}`, body: () => ({ name: 'renamed' }), expect: [200, F] },
  { method: 'PUT', title: '/groups/:theirs', path: (w) => `/v1/groups/${w.theirGroup}`, body: () => ({ name: 'renamed' }), expect: [F, 200] },
  { method: 'PUT', title: '/groups/:ours with an invalid body', path: (w) => `/v1/groups/${w.ourGroup}`, body: () => ({ name: 7 }), expect: ['GROUP_PAYLOAD_INVALID', F] },
  { method: 'PUT', title: '/groups/:missing', path: () => `/v1/groups/${MISSING_GROUP}`, body: () => ({ name: 'x' }), expect: same(GNF) },
  { method: 'DELETE', title: '/groups/:ours', path: (w) => `/v1/groups/${w.ourGroup}`, expect: [200, F] },
  { method: 'DELETE', title: '/groups/:theirs', path: (w) => `/v1/groups/${w.theirGroup}`, expect: [F, 200] },
  { method: 'DELETE', title: '/groups/:missing', path: () => `/v1/groups/${MISSING_GROUP}`, expect: same(GNF) },
  { method: 'DELETE', title: '/groups/:malformed', path: () => '/v1/groups/not-a-group', expect: same(IGI) },
  { method: 'DELETE', title: '/groups/:undecodable', path: () => '/v1/groups/%zz', expect: same(IGI) },
  { method: 'GET', title: '/groups/:ours/versions', path: (w) => `/v1/groups/${w.ourGroup}/versions`, expect: [200, F] },
  { method: 'GET', title: '/groups/:theirs/versions', path: (w) => `/v1/groups/${w.theirGroup}/versions`, expect: [F, 200] },
  { method: 'GET', title: '/groups/:malformed/versions', path: () => '/v1/groups/not-a-group/versions', expect: same(IGI) },
  { method: 'POST', title: '/groups/:ours/restore', path: (w) => `/v1/groups/${w.ourGroup}/restore`, body: () => ({ version: 1 }), expect: [200, F] },
  { method: 'POST', title: '/groups/:theirs/restore', path: (w) => `/v1/groups/${w.theirGroup}/restore`, body: () => ({ version: 1 }), expect: [F, 200] },
  { method: 'POST', title: '/groups/:malformed/restore', path: () => '/v1/groups/not-a-group/restore', body: () => ({ version: 1 }), expect: same(IGI) },
  { method: 'POST', title: '/trace', path: () => '/v1/trace', body: () => ({ request: { url } }), expect: same(200) },
  { method: 'POST', title: '/trace of our ruleIds', path: () => '/v1/trace', body: (w) => ({ request: { url }, ruleIds: [w.ourRule] }), expect: [200, F] },
  { method: 'POST', title: '/trace of their ruleIds', path: () => '/v1/trace', body: (w) => ({ request: { url }, ruleIds: [w.theirRule] }), expect: [F, 200] },
  { method: 'POST', title: '/trace of a missing ruleId', path: () => '/v1/trace', body: () => ({ request: { url }, ruleIds: [MISSING_RULE] }), expect: same(RNF) },
  { method: 'POST', title: '/trace of an unsaved rule in their group', path: () => '/v1/trace', body: (w) => ({ request: { url }, rules: [{ name: 'u', groupId: w.theirGroup, ...cancel }] }), expect: [F, 200] },
  { method: 'GET', title: '/lint', path: () => '/v1/lint', expect: same(200) },
  { method: 'GET', title: '/browser-rules', path: () => '/v1/browser-rules', expect: same(200) },
  { method: 'GET', title: '/changes', path: () => '/v1/changes', expect: same(200) },
  { method: 'GET', title: '/changes/stream', path: () => '/v1/changes/stream', expect: same(200) },
  { method: 'GET', title: '/export', path: () => '/v1/export', expect: same(200) },
  { method: 'POST', title: '/import', path: () => '/v1/import', body: () => importFile, expect: same(200) },
  { method: 'POST', title: '/import as a dry run', path: () => '/v1/import?dryRun=true', body: () => importFile, expect: same(200) },
  { method: 'GET', title: '/whoami', path: () => '/v1/whoami', expect: same(200) },
  { method: 'GET', title: '/members', path: () => '/v1/members', expect: same(200) },
  { method: 'PATCH', title: '/members/:ours', path: (w) => `/v1/members/${w.ourMember}`, body: () => ({ role: 'viewer' }), expect: [200, MNF], needs: 'admin' },
  { method: 'PATCH', title: '/members/:theirs', path: (w) => `/v1/members/${w.theirMember}`, body: () => ({ role: 'viewer' }), expect: [MNF, 200], needs: 'admin' },
  { method: 'PATCH', title: '/members/:ours with an invalid body', path: (w) => `/v1/members/${w.ourMember}`, body: () => ({ role: 'boss' }), expect: ['MEMBER_PAYLOAD_INVALID', MNF], needs: 'admin' },
  { method: 'PATCH', title: '/members/:missing', path: () => '/v1/members/usr_zzzzz', body: () => ({ role: 'viewer' }), expect: same(MNF), needs: 'admin' },
  { method: 'DELETE', title: '/members/:ours', path: (w) => `/v1/members/${w.ourMember}`, expect: [200, MNF], needs: 'admin' },
  { method: 'DELETE', title: '/members/:theirs', path: (w) => `/v1/members/${w.theirMember}`, expect: [MNF, 200], needs: 'admin' },
  { method: 'POST', title: '/members/:ours/reset', path: (w) => `/v1/members/${w.ourMember}/reset`, expect: [NO_SIGN_IN, MNF], needs: 'admin' },
  { method: 'POST', title: '/members/:theirs/reset', path: (w) => `/v1/members/${w.theirMember}/reset`, expect: [MNF, NO_SIGN_IN], needs: 'admin' },
  { method: 'GET', title: '/invites', path: () => '/v1/invites', expect: same(200), needs: 'admin' },
  { method: 'POST', title: '/invites', path: () => '/v1/invites', body: () => ({ email: 'newcomer@example.com', role: 'viewer' }), expect: same(201), needs: 'admin' },
  { method: 'POST', title: '/invites with an invalid body', path: () => '/v1/invites', body: () => ({ email: 'nobody', role: 'viewer' }), expect: same('INVITE_PAYLOAD_INVALID'), needs: 'admin' },
  { method: 'DELETE', title: '/invites/:ours', path: (w) => `/v1/invites/${w.ourInvite}`, expect: [200, INF], needs: 'admin' },
  { method: 'DELETE', title: '/invites/:theirs', path: (w) => `/v1/invites/${w.theirInvite}`, expect: [INF, 200], needs: 'admin' },
  { method: 'DELETE', title: '/invites/:missing', path: () => '/v1/invites/inv_zzzzz', expect: same(INF), needs: 'admin' },
  { method: 'GET', title: '/test-suites', path: () => '/v1/test-suites', expect: same(200) },
  { method: 'POST', title: '/test-suites', path: () => '/v1/test-suites', body: suiteBody, expect: same(201) },
  { method: 'POST', title: '/test-suites with an invalid body', path: () => '/v1/test-suites', body: () => ({ name: 'bad', cases: [{ name: 'no request' }] }), expect: same('TEST_SUITE_PAYLOAD_INVALID') },
  { method: 'GET', title: '/test-suites/:ours', path: (w) => `/v1/test-suites/${w.ourSuite}`, expect: [200, SNF] },
  { method: 'GET', title: '/test-suites/:theirs', path: (w) => `/v1/test-suites/${w.theirSuite}`, expect: [SNF, 200] },
  { method: 'GET', title: '/test-suites/:missing', path: () => '/v1/test-suites/suite_zzzzz', expect: same(SNF) },
  { method: 'PUT', title: '/test-suites/:ours', path: (w) => `/v1/test-suites/${w.ourSuite}`, body: () => ({ cases: [] }), expect: [200, SNF] },
  { method: 'PUT', title: '/test-suites/:theirs', path: (w) => `/v1/test-suites/${w.theirSuite}`, body: () => ({ cases: [] }), expect: [SNF, 200] },
  { method: 'PUT', title: '/test-suites/:ours with an invalid body', path: (w) => `/v1/test-suites/${w.ourSuite}`, body: () => ({ cases: 'none' }), expect: ['TEST_SUITE_PAYLOAD_INVALID', SNF] },
  { method: 'DELETE', title: '/test-suites/:ours', path: (w) => `/v1/test-suites/${w.ourSuite}`, expect: [200, SNF] },
  { method: 'DELETE', title: '/test-suites/:theirs', path: (w) => `/v1/test-suites/${w.theirSuite}`, expect: [SNF, 200] },
  { method: 'DELETE', title: '/test-suites/:missing', path: () => '/v1/test-suites/suite_zzzzz', expect: same(SNF) },
  { method: 'POST', title: '/test-suites/:ours/run', path: (w) => `/v1/test-suites/${w.ourSuite}/run`, expect: [200, SNF], needs: 'read' },
  { method: 'POST', title: '/test-suites/:theirs/run', path: (w) => `/v1/test-suites/${w.theirSuite}/run`, expect: [SNF, 200], needs: 'read' },
  { method: 'GET', title: '/activity', path: () => '/v1/activity', expect: same(200) },
  { method: 'GET', title: '/activity about our rule', path: (w) => `/v1/activity?object=${w.ourRule}`, expect: same(200) },
  { method: 'GET', title: '/activity about their rule', path: (w) => `/v1/activity?object=${w.theirRule}`, expect: same(200) },
  // Anyone makes, lists and revokes their own keys (the service caps what they make): `read` is enough.
  { method: 'GET', title: '/keys', path: () => '/v1/keys', expect: same(200) },
  { method: 'POST', title: '/keys', path: () => '/v1/keys', body: () => ({ name: 'cell', scope: 'read' }), expect: same(201), needs: 'read' },
  { method: 'POST', title: '/keys bound to default', path: () => '/v1/keys', body: () => ({ name: 'cell', scope: 'read', environment: 'default' }), expect: same(201), needs: 'read' },
  { method: 'POST', title: '/keys bound to their environment', path: () => '/v1/keys', body: (w) => ({ name: 'cell', scope: 'read', environment: w.theirEnvironment }), expect: ['KEY_PAYLOAD_INVALID', 201], needs: 'read' },
  { method: 'POST', title: '/keys with an invalid body', path: () => '/v1/keys', body: () => ({ name: 'cell', scope: 'root' }), expect: same('KEY_PAYLOAD_INVALID'), needs: 'read' },
  { method: 'DELETE', title: '/keys/:ours', path: (w) => `/v1/keys/${w.ourKey}`, expect: [200, KNF], needs: 'read', except: notAdmins('teammate', 'reader', 'viewer', 'demotedAdmin') },
  { method: 'DELETE', title: '/keys/:theirs', path: (w) => `/v1/keys/${w.theirKey}`, expect: [KNF, 200], needs: 'read', except: notAdmins('outsideReader') },
  { method: 'DELETE', title: '/keys/:missing', path: () => '/v1/keys/key_zzzzzzzzzzzz', expect: same(KNF), needs: 'read' },
  { method: 'DELETE', title: '/keys/:malformed', path: () => '/v1/keys/not-a-key', expect: same(KNF), needs: 'read' },
  // Hits: any member reports (runtimes hold read keys); ids not of the caller's workspace are ignored alike.
  { method: 'POST', title: '/hits of our rule', path: () => '/v1/hits', body: (w) => ({ source: 'proxy', counts: [{ ruleId: w.ourRule, count: 1, firstAt: 0, lastAt: 0 }] }), expect: same(200), needs: 'read' },
  { method: 'POST', title: '/hits of their rule', path: () => '/v1/hits', body: (w) => ({ source: 'proxy', counts: [{ ruleId: w.theirRule, count: 1, firstAt: 0, lastAt: 0 }] }), expect: same(200), needs: 'read' },
  { method: 'POST', title: '/hits with an invalid body', path: () => '/v1/hits', body: () => ({ source: 'curl', counts: [] }), expect: same('HITS_PAYLOAD_INVALID'), needs: 'read' },
  { method: 'GET', title: '/hits', path: () => '/v1/hits', expect: same(200) },
  { method: 'GET', title: '/rules/:ours/hits', path: (w) => `/v1/rules/${w.ourRule}/hits`, expect: [200, F] },
  { method: 'GET', title: '/rules/:theirs/hits', path: (w) => `/v1/rules/${w.theirRule}/hits`, expect: [F, 200] },
  { method: 'GET', title: '/rules/:missing/hits', path: () => `/v1/rules/${MISSING_RULE}/hits`, expect: same(RNF) },
  { method: 'GET', title: '/settings', path: () => '/v1/settings', expect: same(200) },
  { method: 'PATCH', title: '/settings', path: () => '/v1/settings', body: () => ({ review: 'off' }), expect: same(200), needs: 'admin' },
  { method: 'PATCH', title: '/settings with an invalid body', path: () => '/v1/settings', body: () => ({ review: 'never' }), expect: same('SETTINGS_PAYLOAD_INVALID'), needs: 'admin' },
  { method: 'GET', title: '/change-requests', path: () => '/v1/change-requests', expect: same(200) },
  { method: 'GET', title: '/change-requests/:ours', path: (w) => `/v1/change-requests/${w.ourChangeRequest}`, expect: [200, CRNF] },
  { method: 'GET', title: '/change-requests/:theirs', path: (w) => `/v1/change-requests/${w.theirChangeRequest}`, expect: [CRNF, 200] },
  { method: 'GET', title: '/change-requests/:missing', path: () => '/v1/change-requests/cr_zzzzz', expect: same(CRNF) },
  { method: 'POST', title: '/change-requests', path: () => '/v1/change-requests', body: () => proposal([{ op: 'create', kind: 'group', body: { name: 'proposed' } }]), expect: same(201) },
  { method: 'POST', title: '/change-requests with our rule', path: () => '/v1/change-requests', body: (w) => proposal([{ op: 'update', kind: 'rule', id: w.ourRule, body: { name: 'x' } }]), expect: [201, F] },
  { method: 'POST', title: '/change-requests with their rule', path: () => '/v1/change-requests', body: (w) => proposal([{ op: 'delete', kind: 'rule', id: w.theirRule }]), expect: [F, 201] },
  { method: 'POST', title: '/change-requests with our groupId', path: () => '/v1/change-requests', body: (w) => proposal([{ op: 'create', kind: 'rule', body: { name: 'g', groupId: w.ourGroup, ...cancel } }]), expect: [201, F] },
  { method: 'POST', title: '/change-requests with an invalid body', path: () => '/v1/change-requests', body: () => ({ title: 'x', operations: [] }), expect: same('CHANGE_REQUEST_PAYLOAD_INVALID') },
  // The author (alice, the owner; carol, theirs) updates; reviewers are admins, never the author.
  { method: 'PATCH', title: '/change-requests/:ours', path: (w) => `/v1/change-requests/${w.ourChangeRequest}`, body: () => ({ title: 'retitled' }), expect: [200, CRNF], except: notAdmins('teammate', 'admin', 'demotedAdmin') },
  { method: 'PATCH', title: '/change-requests/:theirs', path: (w) => `/v1/change-requests/${w.theirChangeRequest}`, body: () => ({ title: 'retitled' }), expect: [CRNF, 200], except: notAdmins('outsideAdmin') },
  { method: 'POST', title: '/change-requests/:ours/reviews', path: (w) => `/v1/change-requests/${w.ourChangeRequest}/reviews`, body: () => ({ verdict: 'approve' }), expect: [200, CRNF], except: notAdmins('owner', 'teammate', 'demotedAdmin') },
  { method: 'POST', title: '/change-requests/:theirs/reviews', path: (w) => `/v1/change-requests/${w.theirChangeRequest}/reviews`, body: () => ({ verdict: 'approve' }), expect: [CRNF, F], except: { outsideAdmin: 200 } },
  { method: 'POST', title: '/change-requests/:ours/merge (not approved)', path: (w) => `/v1/change-requests/${w.ourChangeRequest}/merge`, expect: ['CHANGE_REQUEST_STATE', CRNF] },
  { method: 'POST', title: '/change-requests/:ours/close', path: (w) => `/v1/change-requests/${w.ourChangeRequest}/close`, expect: [200, CRNF], except: notAdmins('teammate', 'demotedAdmin') },
  { method: 'POST', title: '/change-requests/:theirs/close', path: (w) => `/v1/change-requests/${w.theirChangeRequest}/close`, expect: [CRNF, 200] },
  { method: 'GET', title: '/webhooks', path: () => '/v1/webhooks', expect: same(200), needs: 'admin' },
  { method: 'POST', title: '/webhooks', path: () => '/v1/webhooks', body: () => ({ url: hookUrl }), expect: same(201), needs: 'admin' },
  { method: 'POST', title: '/webhooks with an invalid body', path: () => '/v1/webhooks', body: () => ({ url: 'ftp://a.example/' }), expect: same('WEBHOOK_PAYLOAD_INVALID'), needs: 'admin' },
  { method: 'GET', title: '/webhooks/:ours', path: (w) => `/v1/webhooks/${w.ourWebhook}`, expect: [200, WNF], needs: 'admin' },
  { method: 'GET', title: '/webhooks/:theirs', path: (w) => `/v1/webhooks/${w.theirWebhook}`, expect: [WNF, 200], needs: 'admin' },
  { method: 'GET', title: '/webhooks/:missing', path: () => '/v1/webhooks/whk_zzzzzzzzzzzz', expect: same(WNF), needs: 'admin' },
  { method: 'PATCH', title: '/webhooks/:ours', path: (w) => `/v1/webhooks/${w.ourWebhook}`, body: () => ({ active: false }), expect: [200, WNF], needs: 'admin' },
  { method: 'PATCH', title: '/webhooks/:theirs', path: (w) => `/v1/webhooks/${w.theirWebhook}`, body: () => ({ active: false }), expect: [WNF, 200], needs: 'admin' },
  { method: 'PATCH', title: '/webhooks/:ours with an invalid body', path: (w) => `/v1/webhooks/${w.ourWebhook}`, body: () => ({ active: 'no' }), expect: ['WEBHOOK_PAYLOAD_INVALID', WNF], needs: 'admin' },
  { method: 'DELETE', title: '/webhooks/:ours', path: (w) => `/v1/webhooks/${w.ourWebhook}`, expect: [200, WNF], needs: 'admin' },
  { method: 'DELETE', title: '/webhooks/:theirs', path: (w) => `/v1/webhooks/${w.theirWebhook}`, expect: [WNF, 200], needs: 'admin' },
  { method: 'GET', title: '/webhooks/:ours/deliveries', path: (w) => `/v1/webhooks/${w.ourWebhook}/deliveries`, expect: [200, WNF], needs: 'admin' },
  { method: 'GET', title: '/webhooks/:theirs/deliveries', path: (w) => `/v1/webhooks/${w.theirWebhook}/deliveries`, expect: [WNF, 200], needs: 'admin' },
  { method: 'POST', title: '/webhooks/:ours/deliveries/:ours/replay', path: (w) => `/v1/webhooks/${w.ourWebhook}/deliveries/${w.ourDelivery}/replay`, expect: [200, WNF], needs: 'admin' },
  { method: 'POST', title: '/webhooks/:theirs/deliveries/:theirs/replay', path: (w) => `/v1/webhooks/${w.theirWebhook}/deliveries/${w.theirDelivery}/replay`, expect: [WNF, 200], needs: 'admin' },
  { method: 'POST', title: '/webhooks/:ours/deliveries/:theirs/replay', path: (w) => `/v1/webhooks/${w.ourWebhook}/deliveries/${w.theirDelivery}/replay`, expect: [DNF, WNF], needs: 'admin' },
  { method: 'GET', title: '/environments', path: () => '/v1/environments', expect: same(200) },
  { method: 'POST', title: '/environments', path: () => '/v1/environments', body: (w) => ({ name: `new-${w.ourEnvironment}` }), expect: same(201) },
  { method: 'POST', title: '/environments with an invalid body', path: () => '/v1/environments', body: () => ({ name: '-bad' }), expect: same('ENVIRONMENT_PAYLOAD_INVALID') },
  { method: 'DELETE', title: '/environments/:ours', path: (w) => `/v1/environments/${w.ourEnvironment}`, expect: [204, ENF] },
  { method: 'DELETE', title: '/environments/:theirs', path: (w) => `/v1/environments/${w.theirEnvironment}`, expect: [ENF, 204] },
  { method: 'DELETE', title: '/environments/:missing', path: () => '/v1/environments/missing', expect: same(ENF) },
  { method: 'DELETE', title: '/environments/default', path: () => '/v1/environments/default', expect: same('ENVIRONMENT_IN_USE') },
  { method: 'GET', title: '/environments/:ours/values', path: (w) => `/v1/environments/${w.ourEnvironment}/values`, expect: [200, ENF] },
  { method: 'GET', title: '/environments/:theirs/values', path: (w) => `/v1/environments/${w.theirEnvironment}/values`, expect: [ENF, 200] },
  { method: 'GET', title: '/variables', path: () => '/v1/variables', expect: same(200) },
  { method: 'POST', title: '/variables', path: () => '/v1/variables', body: (w) => ({ name: `NEW_${w.ourVariable}`, values: { default: 'v' } }), expect: same(201) },
  { method: 'POST', title: '/variables with an invalid body', path: () => '/v1/variables', body: () => ({ name: '1bad' }), expect: same('VARIABLE_PAYLOAD_INVALID') },
  { method: 'POST', title: '/variables with a value in their environment', path: () => '/v1/variables', body: (w) => ({ name: `NEW_${w.ourVariable}`, values: { [w.theirEnvironment]: 'v' } }), expect: ['VARIABLE_PAYLOAD_INVALID', 201] },
  { method: 'GET', title: '/variables/:ours', path: (w) => `/v1/variables/${w.ourVariable}`, expect: [200, VNF] },
  { method: 'GET', title: '/variables/:theirs', path: (w) => `/v1/variables/${w.theirVariable}`, expect: [VNF, 200] },
  { method: 'GET', title: '/variables/:missing', path: () => '/v1/variables/MISSING', expect: same(VNF) },
  { method: 'PUT', title: '/variables/:ours', path: (w) => `/v1/variables/${w.ourVariable}`, body: () => ({ description: 'changed' }), expect: [200, VNF] },
  { method: 'PUT', title: '/variables/:theirs', path: (w) => `/v1/variables/${w.theirVariable}`, body: () => ({ description: 'changed' }), expect: [VNF, 200] },
  { method: 'PUT', title: '/variables/:ours with an invalid body', path: (w) => `/v1/variables/${w.ourVariable}`, body: () => ({ values: { default: 'a\nb' } }), expect: ['VARIABLE_PAYLOAD_INVALID', VNF] },
  { method: 'DELETE', title: '/variables/:ours', path: (w) => `/v1/variables/${w.ourVariable}`, expect: [200, VNF] },
  { method: 'DELETE', title: '/variables/:theirs', path: (w) => `/v1/variables/${w.theirVariable}`, expect: [VNF, 200] },
  { method: 'GET', title: '/variables/:ours/versions', path: (w) => `/v1/variables/${w.ourVariable}/versions`, expect: [200, VNF] },
  { method: 'GET', title: '/variables/:theirs/versions', path: (w) => `/v1/variables/${w.theirVariable}/versions`, expect: [VNF, 200] },
  { method: 'GET', title: '/nowhere (no such route)', path: () => '/v1/nowhere', expect: same('ROUTE_NOT_FOUND') },
  { method: 'PATCH', title: '/rules (no such method)', path: () => '/v1/rules', expect: same('METHOD_NOT_ALLOWED') },
];
