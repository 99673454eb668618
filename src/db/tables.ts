// Row types of every table, as Kysely sees them. Booleans are 0/1 integers and timestamps epoch
// milliseconds, so that SQLite and PostgreSQL read and write the same values through the same code.
import type { Generated, Kysely, Selectable } from 'kysely';

export interface WorkspacesTable {
  id: string;
  name: string;
  owner_user_id: string;
  created_at: number;
  /** One more with every transaction that changes the workspace's rules or groups. */
  revision: Generated<number>;
  /** The highest revision whose change records were swept away by retention. */
  swept_revision: Generated<number>;
}

export interface UsersTable {
  id: string;
  name: string;
  created_at: number;
  /** Lower-cased; null for a user made by `keys create --user` and not yet given one. */
  email: Generated<string | null>;
  /** `scrypt$…` (modules/users/passwords.ts); null: no password sign-in. */
  password_hash: Generated<string | null>;
  disabled_at: Generated<number | null>;
  /** 1 for a machine's user (a workspace key's), which never signs in. */
  service: Generated<number>;
  /** The single-sign-on identity: the provider's issuer and its `sub`; null until first used. */
  oidc_issuer: Generated<string | null>;
  oidc_subject: Generated<string | null>;
}

/** A single sign-on under way (migration 0014): taken once by the callback, or swept after expiry. */
export interface OidcLoginsTable {
  /** SHA-256 of the cookie's value, hex. */
  id: string;
  state: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  expires_at: number;
}

export interface SessionsTable {
  id: string;
  /** SHA-256 of the cookie's value, hex; the value itself is never stored. */
  token_hash: string;
  user_id: string;
  csrf_secret: string;
  created_at: number;
  last_seen_at: number;
  /** The absolute expiry (epoch ms). */
  expires_at: number;
  ended_at: number | null;
  address: string | null;
}

export interface SignInFailuresTable {
  /** The attempt's id (two subjects, one attempt). */
  id: string;
  /** `email:<lower-cased email>` or `ip:<address>`. */
  subject: string;
  at: number;
}

export interface InvitesTable {
  id: string;
  workspace_id: string;
  /** Lower-cased; null for the setup link. */
  email: string | null;
  /** `viewer`, `editor`, `admin` or `owner` (model/role.ts). */
  role: string;
  /** `invite`, or `setup` (the first owner's link). */
  kind: string;
  /** SHA-256 of the link's token, hex; the token itself is never stored. */
  token_hash: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  revoked_at: number | null;
}

export interface PasswordResetsTable {
  id: string;
  user_id: string;
  /** SHA-256 of the link's token, hex. */
  token_hash: string;
  /** The admin who made it; null when asked for by mail. */
  created_by: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface ApiKeysTable {
  id: string;
  /** SHA-256 of the key, hex; the key itself is never stored. */
  key_hash: string;
  user_id: string;
  workspace_id: string;
  created_at: number;
  revoked_at: number | null;
  /** What the key may do: `read`, `write` or `admin` (keys/key-scopes.ts). */
  scope: Generated<string>;
  /** When the key stops working (epoch ms); null: never. */
  expires_at: number | null;
  /** A name the operator gave the key ("CI reader"); null when none. */
  name: string | null;
  /** The environment its evaluations use when they name none (migration 0019); null: `default`. */
  environment: Generated<string | null>;
}

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  /** `viewer`, `editor`, `admin` or `owner` (model/role.ts). */
  role: string;
  created_at: number;
}

export interface GroupsTable {
  id: string;
  workspace_id: string;
  name: string;
  status: string;
  is_favourite: number;
  created_by: string;
  last_modified_by: string;
  creation_date: number;
  modification_date: number;
}

export interface RulesTable {
  id: string;
  workspace_id: string;
  name: string;
  /** The name lower-cased by the service, for case-insensitive search that behaves alike on both databases. */
  name_search: string;
  /**
   * What `search` looks in: name, description and source values, lower-cased (model/rule-search.ts).
   * Every writer sets it; its default is for rows written before it existed, until migration 0007.
   */
  search_text: Generated<string>;
  description: string;
  status: string;
  rule_type: string;
  /** null when ungrouped; a foreign key, so a rule can never point at a missing group. */
  group_id: string | null;
  /** The canonical pairs as JSON text. */
  pairs: string;
  /** 1 when pinned (Requestly's `isFavourite`), else 0 (the default of rows written before it, migration 0012). */
  is_favourite: Generated<number>;
  /**
   * A Script rule's `removeCSPHeader`: 1 (the default) or 0; null for the other types, which have no
   * such field. Read as true when null on a Script rule (a row written by an older writer).
   */
  remove_csp_header: number | null;
  created_by: string;
  last_modified_by: string;
  creation_date: number;
  modification_date: number;
}

export interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  /** SHA-256 of the request (route and body): the same key with another request is refused. */
  request_hash: string;
  /** The first response's data, as JSON text; null until the creating transaction writes it. */
  response: string | null;
  created_at: number;
}

/** The change log: the outbox of the change feed and the history of every rule and group. */
export interface ChangesTable {
  workspace_id: string;
  revision: number;
  /** Place of the change within its revision (a transaction may change many objects). */
  seq: number;
  /** A variable's or environment's `object_id` is its name (unique within its workspace only). */
  object_type: 'rule' | 'group' | 'variable' | 'environment';
  object_id: string;
  /** The object's version: 1 for its first change, one more with each. */
  version: number;
  change: 'created' | 'updated' | 'deleted';
  at: number;
  by_user: string;
  /** The object as the API returns it, as JSON text: after the change, or as it was when deleted. */
  object: string;
  /** The change request whose merge made this change; null for a direct write. */
  change_request_id?: string | null;
  /** 1: a direct write by an admin or owner while the workspace's review was required. */
  review_bypassed?: number;
}

/** Who owns each id, for all time (rows are never deleted): ids are never reused across workspaces. */
export interface IdOwnersTable {
  id: string;
  object_type: 'rule' | 'group';
  workspace_id: string;
}

/** Security events of GET /v1/activity (sign-ins, keys, invites, members, settings). */
export interface SecurityEventsTable {
  id: string;
  workspace_id: string;
  at: number;
  /** One of the kinds of modules/activity/activity-kinds.ts. */
  kind: string;
  actor_user_id: string | null;
  /** `session`, `cli`, or the id of the key the request came with; null when unknown. */
  via: string | null;
  /** The client's address; null when there was none (the CLI). */
  address: string | null;
  object_type: string | null;
  object_id: string | null;
  /** A small JSON object, as text. */
  detail: string | null;
}

/** A suite of `rulekeeper test` cases kept in a workspace (migration 0015). */
export interface TestSuitesTable {
  id: string;
  workspace_id: string;
  name: string;
  /** The cases, a JSON array as text. */
  cases: string;
  case_count: number;
  created_by: string;
  last_modified_by: string;
  creation_date: number;
  modification_date: number;
}

/** A rule's hits in one hour from one kind of runtime (migration 0018), swept after 90 days. */
export interface RuleHitsTable {
  workspace_id: string;
  rule_id: string;
  /** `proxy`, `extension`, `playwright` or `runtime`. */
  source: string;
  /** The hour's start (epoch ms). */
  hour: number;
  hits: number;
  first_at: number;
  last_at: number;
}

/** A rule's last hit, kept with its hours (migration 0018). */
export interface RuleLastHitsTable {
  workspace_id: string;
  rule_id: string;
  last_at: number;
}

/** Reports received from one kind of runtime in one hour, whatever they counted (migration 0018). */
export interface HitReportsTable {
  workspace_id: string;
  source: string;
  hour: number;
  reports: number;
}

/** A workspace's environment (migration 0019); every workspace has `default`. */
export interface EnvironmentsTable {
  workspace_id: string;
  name: string;
  creation_date: number;
}

/** A workspace's variable (migration 0019); its values per environment are in variable_values. */
export interface VariablesTable {
  workspace_id: string;
  name: string;
  description: string;
  /** 1: written, never read back (the runtimes' values route alone resolves it). */
  secret: number;
  /** Its version in the change log. */
  version: number;
  created_by: string;
  last_modified_by: string;
  creation_date: number;
  modification_date: number;
}

/** A variable's value in one environment (migration 0019). */
export interface VariableValuesTable {
  workspace_id: string;
  variable_name: string;
  environment_name: string;
  value: string;
}

/** A workspace's webhook (migration 0017). */
export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  /** `,type,type,`; null: every event. */
  events: string | null;
  active: number;
  /** Write-only: signs every delivery, never answered after it was made. */
  secret: string;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

/** The outbox: one event to send to one webhook, written in the change's own transaction. */
export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  /** `rules.changed`: the revision told of (its changes read when sent); else null. */
  revision: number | null;
  /** Other events: their data as JSON text; else null. */
  data: string | null;
  created_at: number;
  /** `pending`, `delivered` or `failed`. */
  state: string;
  attempts: Generated<number>;
  next_at: number;
  give_up_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_status: number | null;
  delivered_at: number | null;
}

/** One try at sending a delivery. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  number: number;
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response: string | null;
}

export interface Tables {
  workspaces: WorkspacesTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
  oidc_logins: OidcLoginsTable;
  groups: GroupsTable;
  rules: RulesTable;
  idempotency_keys: IdempotencyKeysTable;
  changes: ChangesTable;
  id_owners: IdOwnersTable;
  security_events: SecurityEventsTable;
  invites: InvitesTable;
  password_resets: PasswordResetsTable;
  test_suites: TestSuitesTable;
  rule_hits: RuleHitsTable;
  hit_reports: HitReportsTable;
  rule_last_hits: RuleLastHitsTable;
  workspace_settings: WorkspaceSettingsTable;
  change_requests: ChangeRequestsTable;
  change_request_reviews: ChangeRequestReviewsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  environments: EnvironmentsTable;
  variables: VariablesTable;
  variable_values: VariableValuesTable;
}

/** A workspace's settings (decisions §19); a workspace without a row has the defaults. */
export interface WorkspaceSettingsTable {
  workspace_id: string;
  review: 'off' | 'required';
  reviewers: 'admins' | 'editors';
  updated_at: number;
  updated_by: string | null;
}

export interface ChangeRequestsTable {
  id: string;
  workspace_id: string;
  title: string;
  description: string;
  author_user_id: string;
  state: 'open' | 'approved' | 'rejected' | 'merged' | 'closed';
  base_revision: number;
  version: number;
  /** JSON text of the checked operations. */
  operations: string;
  /** JSON text of the evidence. */
  evidence: string;
  created_at: number;
  updated_at: number;
  merged_revision: number | null;
  ended_by: string | null;
  ended_at: number | null;
}

export interface ChangeRequestReviewsTable {
  id: string;
  change_request_id: string;
  reviewer_user_id: string;
  verdict: 'approve' | 'request_changes';
  comment: string;
  version: number;
  at: number;
}

export type Db = Kysely<Tables>;
export type GroupRow = Selectable<GroupsTable>;
export type RuleRow = Selectable<RulesTable>;
export type TestSuiteRow = Selectable<TestSuitesTable>;
export type EnvironmentRow = Selectable<EnvironmentsTable>;
export type VariableRow = Selectable<VariablesTable>;
/** A change record; the marks of review are left out by most writers (the database's default). */
export type ChangeRow = Omit<Selectable<ChangesTable>, 'change_request_id' | 'review_bypassed'> & {
  change_request_id?: string | null;
  review_bypassed?: number;
};
