// Writes docs/reference/errors.md from the error table in src/errors.ts, so that the page cannot drift
// from the codes, statuses and messages the API answers. `--check` writes nothing and fails when the page
// is not what this script would write.
// Usage: node scripts/docs-errors.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourcePath = join(root, 'src/errors.ts');
const pagePath = join(root, 'docs/reference/errors.md');

// When each error is answered: what src/errors.ts does not say. A code added to the table needs a line here.
const when = {
  RULE_PAYLOAD_INVALID:
    'Body not a JSON object, unknown top-level field, bad or missing `name`/`ruleType`/`status`/`description`/`groupId`, `pairs` missing or not an array.',
  RULE_PAIRS_INVALID: "`pairs` empty or over 100, or a pair that does not match its type's schema.",
  RULE_TYPE_UPDATE_NOT_ALLOWED: 'A `PUT` whose `ruleType` differs from the stored one.',
  GROUP_PAYLOAD_INVALID: 'Group body not a JSON object, unknown field, wrong type.',
  GROUP_NAME_REQUIRED: '`POST /groups` without a non-blank `name`, or a blank `name` in a `PUT`.',
  INVALID_GROUP_ID: 'A group path id not of the form `Group_` + 1 to 32 letters or digits.',
  INVALID_QUERY: 'A list parameter unknown, repeated or out of range.',
  IMPORT_INVALID:
    '`POST /v1/import` of a file that is not a JSON array of records, or (with `onError=abort`) with a record that failed.',
  MEMBER_PAYLOAD_INVALID:
    'The body of `PATCH /v1/members/:userId`: `role` missing or not one of the four, or another field.',
  USER_PAYLOAD_INVALID:
    'A new user (`rulekeeper users create`, an invite or the setup link) whose email is not an address, whose name is blank or too long, or whose password is under 12 or over 256 characters.',
  SIGN_IN_PAYLOAD_INVALID:
    'A `POST /v1/session` body without `email` and `password` as strings, or with another field.',
  KEY_PAYLOAD_INVALID:
    'The body of `POST /v1/keys`: `name` missing, blank, over 100 characters or with a control character; `scope` not `read`, `write` or `admin`; `expiresAt` not a future epoch-ms time; `service` not a boolean; another field.',
  INVITE_PAYLOAD_INVALID:
    'The body of `POST /v1/invites` (`email` not an address, `role` not one of the four, another field) or of `POST /v1/invites/accept` (`token` missing or not a string, `email` on an invite that names one, another field).',
  PASSWORD_RESET_PAYLOAD_INVALID:
    'The body of `POST /v1/password/forgot` (`email` missing or not an address) or of `POST /v1/password/reset` (`token` or `password` missing, the password under 12 or over 256 characters, another field).',
  HITS_PAYLOAD_INVALID:
    'The body of `POST /v1/hits`: `source` not one of `proxy`, `extension`, `playwright`, `runtime`; `counts` missing or over 1,000 entries; an entry without `ruleId`, a `count` under 1, or timestamps that are not integers; another field.',
  INVALID_TRACE_REQUEST:
    'A `POST /v1/trace` body that is not a trace request (a relative URL, an unknown field, both `ruleIds` and `rules`).',
  TEST_SUITE_PAYLOAD_INVALID:
    'The body of `POST` or `PUT /v1/test-suites`: `name` missing (on `POST`), blank or over 256 characters; `cases` missing (on `POST`), not a list, over `MAX_TEST_SUITE_CASES` (default 1000), or a case without a `name`, a `request` object and an `expect` object (the message counts cases from 1, the pointer from 0); another field.',
  ENVIRONMENT_PAYLOAD_INVALID:
    'The body of `POST /v1/environments`: `name` missing, not a string, or not a letter or digit followed by up to 63 letters, digits, `_`, `.` or `-`; another field.',
  VARIABLE_PAYLOAD_INVALID:
    "The body of `POST` or `PUT /v1/variables`: `name` missing (on `POST`), not a letter or `_` followed by up to 63 letters, digits or `_`, or another name than the path's (on `PUT`); `description` over 1,024 characters; `values` naming more than `MAX_ENVIRONMENTS` environments, an environment the workspace does not have, or a value over `MAX_VARIABLE_VALUE_CHARS` (default 8192) or holding CR, LF or another control character (a tab is fine); `null` where no value is set, or for a secret made plain; a secret made plain without its `values`; another field. No message quotes a value.",
  INVALID_IDEMPOTENCY_KEY: 'An `Idempotency-Key` that is empty, too long or not visible ASCII.',
  WEBHOOK_PAYLOAD_INVALID:
    'The body of `POST /v1/webhooks` or `PATCH /v1/webhooks/:webhookId`: `url` not an http(s) URL, over 2,048 characters, with credentials, not resolving, or resolving to a loopback, private, link-local or other inner address (unless `WEBHOOK_ALLOW_PRIVATE=true`); an unknown event; another field.',
  MALFORMED_REQUEST:
    'Not HTTP the parser reads: a control character in a header, a header line without a colon (answered on any path, then the connection is closed).',
  API_KEY_REQUIRED: 'Neither an `x-api-key` nor a session cookie.',
  API_KEY_INVALID:
    'Unknown, revoked or expired key (for an expired key, `details` says when it expired; nothing is said about any other key).',
  INVALID_CREDENTIALS:
    'A sign-in with an unknown email, a wrong password, or as a disabled user: the same answer, in about the same time, for each.',
  SESSION_INVALID:
    'A session cookie that was signed out, ended by a password change or a disabled user, or expired (7 days idle, 30 in all).',
  SESSION_REQUIRED: '`GET` or `DELETE /v1/session` without a session cookie (an API key has no session).',
  CSRF_REFUSED:
    "A change made with a session cookie without the session's `x-rk-csrf` token, with a wrong one, or from another origin (`Origin`).",
  UNAUTHORIZED_ACTION:
    "The key's scope or its user's role does not reach the operation (a `read` key on a write; `details` names the scope or the role), or what a key route asks for (a key broader or longer-lived than the caller's, a workspace key, another member's key), or the id exists but belongs to another workspace (in the path or as `groupId`), or `GET /v1/environments/:name/values` with a signed-in session (values are read by runtimes with a key).",
  RULE_NOT_FOUND: 'No rule with that id.',
  GROUP_NOT_FOUND: "No group with that id, in the path or as a rule's `groupId`.",
  VERSION_NOT_FOUND: 'Restore of a version that is not kept.',
  MEMBER_NOT_FOUND: 'A user id that is not a member of the workspace (`/v1/members/:userId`).',
  KEY_NOT_FOUND:
    "A key id (`DELETE /v1/keys/:id`) of no key of the workspace: unknown, or another workspace's (never said which).",
  INVITE_NOT_FOUND:
    "`DELETE /v1/invites/:id` of no pending invite of the workspace: unknown, accepted, revoked, expired or another workspace's (never said which).",
  TEST_SUITE_NOT_FOUND:
    "A suite id (`/v1/test-suites/:suiteId`) of no suite of the workspace: unknown, or another workspace's (never said which).",
  WEBHOOK_NOT_FOUND: "A webhook id the workspace does not have (unknown or another workspace's).",
  DELIVERY_NOT_FOUND:
    "A delivery id the webhook does not have (unknown, another webhook's or another workspace's).",
  ENVIRONMENT_NOT_FOUND:
    "An environment name (`/v1/environments/:name`, `keys create --environment`, `?environment=` of browser rules, the lint and exports) the workspace does not have (unknown, or another workspace's).",
  VARIABLE_NOT_FOUND:
    "A variable name (`/v1/variables/:name`) the workspace does not have (unknown, or another workspace's); for its versions, one it never had.",
  ROUTE_NOT_FOUND: 'Unknown path.',
  METHOD_NOT_ALLOWED: 'Known path, other method (see the `Allow` header).',
  REQUEST_TIMEOUT: "The request's headers did not all arrive within `REQUEST_TIMEOUT_MS`.",
  IDEMPOTENCY_KEY_REUSED: 'Same `Idempotency-Key`, different request.',
  RESTORE_CONFLICT: 'Restore of a deleted object whose id another object now holds.',
  MEMBER_EXISTS:
    '`rulekeeper members add` of a user who is a member already, or an invite (`POST /v1/invites`) of an email whose user is one.',
  USER_EXISTS:
    'A new user whose email, or name, another user has (accepting an invite with a `name` another user has).',
  REVIEW_REQUIRED:
    "A direct write to rules or groups by an editor (or a key that does not reach `admin`) while the workspace's `review` setting is `required`: propose it as a change request (`POST /v1/change-requests`).",
  CHANGE_REQUEST_STATE:
    'A change request update, review, merge or close its state does not allow: merged or closed; a merge without an approval or with a request for changes outstanding.',
  CHANGE_REQUEST_CONFLICT:
    'A merge of a change request whose rules or groups changed since its base revision (`details` names them); nothing was applied.',
  SETTINGS_PAYLOAD_INVALID:
    'A `PATCH /v1/settings` body that is not `{review?, reviewers?}` with known values.',
  CHANGE_REQUEST_PAYLOAD_INVALID:
    "A change request body whose title, description or operations are wrong (an operation's body is checked as the direct route checks it, with that route's error).",
  CHANGE_REQUEST_NOT_FOUND:
    "A change request id of no change request of the workspace (unknown, or another workspace's).",
  LAST_OWNER: 'A change of role or a removal that would leave the workspace without an owner.',
  USER_CANNOT_SIGN_IN:
    "A password reset link (`POST /v1/members/:userId/reset`) for a member who cannot sign in with a password: a machine's user, or one made by `keys create --user` and not given an email yet (`rulekeeper users create --email E --name NAME` gives one).",
  TEST_SUITE_EXISTS: 'A test suite created, or renamed, with the name of another suite of the workspace.',
  TEST_SUITES_FULL:
    'A test suite created in a workspace that keeps `MAX_TEST_SUITES` (default 100) already; delete one first.',
  WEBHOOK_LIMIT: '`POST /v1/webhooks` in a workspace that has 20 webhooks already.',
  ENVIRONMENT_EXISTS: 'An environment created with the name of another environment of the workspace.',
  ENVIRONMENTS_FULL:
    'An environment created in a workspace that has `MAX_ENVIRONMENTS` (default 20, `default` included) already.',
  ENVIRONMENT_IN_USE:
    '`DELETE /v1/environments/default` (every workspace keeps it), or of an environment a working (unrevoked, unexpired) key is bound to: revoke the key first.',
  VARIABLE_EXISTS: 'A variable created with the name of another variable of the workspace.',
  VARIABLES_FULL: 'A variable created in a workspace that has `MAX_VARIABLES` (default 500) already.',
  CHANGES_EXPIRED:
    '`GET /v1/changes?after=REV` where changes after `REV` were swept, or `REV` is beyond the latest.',
  LINK_INVALID:
    'An invite, setup or password reset link that expired, was used or revoked, or never existed: the same answer for each, saying nothing more.',
  PRECONDITION_FAILED: '`If-Match` no longer matches.',
  PAYLOAD_TOO_LARGE: 'Body over `MAX_BODY_BYTES`.',
  UNSUPPORTED_MEDIA_TYPE: 'A body that is not `application/json`.',
  RATE_LIMITED: 'Over the rate limit.',
  SIGN_IN_LIMITED:
    'More than 10 failed sign-ins for the account, or from the address, in 15 minutes; `Retry-After` says when the oldest of them no longer counts.',
  HEADERS_TOO_LARGE: "The request's headers are larger than Node's limit (16 KiB by default).",
  INTERNAL: 'A bug; never with a stack trace or a driver message.',
  UNAVAILABLE: 'The database cannot be reached, or the instance is shutting down; `Retry-After: 5`.',
  TIME_LIMIT_EXCEEDED:
    'An import ran past `IMPORT_TIME_LIMIT_MS`: rolled back, nothing written; split the file or raise the limit. A trace ran past `TRACE_TIME_LIMIT_MS`: trace fewer rules, or a shorter URL or body. A lint ran past `LINT_TIME_LIMIT_MS`, or a browser rules compile past `BROWSER_RULES_TIME_LIMIT_MS`: raise the limit.',
  TOO_MANY_STREAMS:
    'The key already holds `MAX_STREAMS_PER_KEY` open change streams on this instance; with `Retry-After`.',
  STREAMS_FULL:
    'The instance already holds `MAX_STREAMS` open change streams, all keys together; with `Retry-After`.',
};

/** The entries of `errorTable` in src/errors.ts, in their order, read as text (no TypeScript loader needed). */
function readErrorTable(text) {
  const start = text.indexOf('export const errorTable = {');
  const end = text.indexOf('} as const', start);
  if (start < 0 || end < 0)
    throw new Error('src/errors.ts: cannot find `export const errorTable = { … } as const`');
  const body = text.slice(text.indexOf('{', start) + 1, end);
  const entries = [];
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    const found = line.match(
      /^([A-Z][A-Z0-9_]*):\s*\{\s*status:\s*(\d{3}),\s*message:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*,?\s*\},?$/,
    );
    if (!found) throw new Error(`src/errors.ts: cannot read this line of errorTable: ${raw.trim()}`);
    const message = (found[3] ?? found[4]).replace(/\\(.)/g, '$1');
    entries.push({ code: found[1], status: Number(found[2]), message });
  }
  if (entries.length === 0) throw new Error('src/errors.ts: errorTable has no entries');
  return entries;
}

const cell = (text) => text.replace(/\|/g, '\\|');

function render(entries) {
  const codes = new Set(entries.map((entry) => entry.code));
  const missing = entries.filter((entry) => !(entry.code in when)).map((entry) => entry.code);
  const stale = Object.keys(when).filter((code) => !codes.has(code));
  if (missing.length > 0)
    throw new Error(`scripts/docs-errors.mjs: say when these are answered: ${missing.join(', ')}`);
  if (stale.length > 0)
    throw new Error(`scripts/docs-errors.mjs: not in src/errors.ts any more: ${stale.join(', ')}`);
  const rows = entries.map(
    ({ code, status, message }) => `| ${status} | ${cell(message)} | \`${code}\` | ${cell(when[code])} |`,
  );
  return `<!-- Written by scripts/docs-errors.mjs from src/errors.ts: edit those, then run npm run docs:errors. -->

# Errors

Every failure is \`{"success": false, "message", "code", "details"?, "requestId"}\` (see
[the API's conventions](api.md#the-envelope)). \`code\` is stable: program against it, not against
\`message\`. \`details\` lists each problem as \`{"path", "message"}\`, \`path\` a JSON Pointer into the
body or the query. Quote \`requestId\` (also the \`X-Request-Id\` header) to the operator.

| Status | message | code | When |
|---|---|---|---|
${rows.join('\n')}

Checks run in this order: the key (401), then its scope (403); for an id in the path, its form, existence (404) and access
(403); \`If-Match\` (412); for a rule \`PUT\`, a changed \`ruleType\`; the body (400); and references in the
body (\`groupId\`) last. So a bad body on someone else's rule is 403, not 400.
`;
}

try {
  const page = render(readErrorTable(readFileSync(sourcePath, 'utf8')));
  const shown = relative(process.cwd(), pagePath) || pagePath;
  if (process.argv.includes('--check')) {
    let current = null;
    try {
      current = readFileSync(pagePath, 'utf8');
    } catch {}
    if (current !== page) {
      console.error(
        `${shown} is not what src/errors.ts gives: run npm run docs:errors and commit the result.`,
      );
      process.exit(1);
    }
    console.log(`${shown} matches src/errors.ts`);
  } else {
    writeFileSync(pagePath, page);
    console.log(`wrote ${shown}`);
  }
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
