// Shapes of GET /v1/activity: one entry (a rule or group change, or a security event), the page, and
// the query (filters and the cursor).
import { Type } from '@sinclair/typebox';
import { countParameter } from '../../http/schemas.js';
import { Timestamp } from '../../model/common.js';
import { compile } from '../../validation.js';
import { CHANGE_KINDS, OBJECT_TYPES, SECURITY_KINDS, WORK_KINDS } from './activity-kinds.js';

export const MAX_ACTIVITY_PAGE = 1000;
export const DEFAULT_ACTIVITY_PAGE = 100;

/**
 * Where the next page starts: the change log's position (revision-seq) and the security events'
 * position (at-id), each `-` while nothing of it was passed. Opaque to clients: pass `nextCursor` back.
 */
export const CURSOR_PATTERN = '^(-|[0-9]{1,15}-[0-9]{1,9})\\.(-|[0-9]{1,15}-[0-9a-z_]{0,64})$';

const Kind = Type.Union(
  [...SECURITY_KINDS, ...WORK_KINDS, ...CHANGE_KINDS].map((kind) => Type.Literal(kind)),
  {
    description:
      'What happened: a rule or group change (`rule_created` … `group_deleted`), or a security event ' +
      '(`sign_in`, `sign_in_failed`, `sign_out`, `key_created`, `key_revoked`, `invite_created`, ' +
      '`invite_accepted`, `member_added`, `member_removed`, `member_role_changed`, `setting_changed`, ' +
      "`webhook_created`, `webhook_updated`, `webhook_deleted`), or a step of the team's work, seen by " +
      'every member (`change_request_opened`, `change_request_updated`, `change_request_reviewed`, ' +
      '`change_request_merged`, `change_request_closed`, `test_suite_created`, `test_suite_updated`, ' +
      '`test_suite_deleted`).',
  },
);

const Via = Type.Union(
  [
    Type.Object(
      {
        type: Type.Union([Type.Literal('session'), Type.Literal('key'), Type.Literal('cli')], {
          description: 'A signed-in session, an API key, or the command line on the server.',
        }),
        keyId: Type.Union([Type.String(), Type.Null()], { description: 'The key, when `type` is `key`.' }),
        keyName: Type.Union([Type.String(), Type.Null()], {
          description: "The key's name, when it has one.",
        }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      "The way in (security events and the team's work). Null for rule and group changes: the change log " +
      'does not keep it (see the guide).',
  },
);

export const ActivityEntry = Type.Object(
  {
    id: Type.String({
      description:
        'The entry’s id within the workspace: `chg_<revision>_<seq>` for a change, `evt_…` for an event.',
    }),
    at: Timestamp,
    kind: Kind,
    by: Type.Union([Type.String(), Type.Null()], {
      description: 'User id of who acted; null when nobody is known (a failed sign-in of an unknown email).',
    }),
    byName: Type.Union([Type.String(), Type.Null()], {
      description: "That user's name, if they still exist.",
    }),
    via: Via,
    address: Type.Union([Type.String(), Type.Null()], {
      description:
        "The client's address (security events, and the team's work as admins see it; null from the " +
        'command line and for changes).',
    }),
    object: Type.Union(
      [
        Type.Object(
          {
            type: Type.Union(OBJECT_TYPES.map((type) => Type.Literal(type))),
            id: Type.String(),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'What the entry is about, when it is about something.' },
    ),
    detail: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description:
        'A few more facts: `revision` for a change; `from` and `to` for a role change; `role` for a member ' +
        "added or removed; `title` for a change request's step, with `verdict` when reviewed and `revision` " +
        'when merged; `name` for a test suite.',
    }),
  },
  {
    $id: 'ActivityEntry',
    additionalProperties: false,
    description: 'One thing that happened in the workspace.',
    examples: [
      {
        id: 'evt_3k9x0c1m2p4q5r6s',
        at: 1763856000000,
        kind: 'member_role_changed',
        by: 'usr_p2f8w0c4n6aa',
        byName: 'alice',
        via: { type: 'key', keyId: 'key_4g7h2j9k0l1m', keyName: 'laptop' },
        address: '203.0.113.7',
        object: { type: 'user', id: 'usr_b0b0b0b0b0b0' },
        detail: { from: 'editor', to: 'viewer' },
      },
      {
        id: 'chg_42_0',
        at: 1763855000000,
        kind: 'rule_updated',
        by: 'usr_b0b0b0b0b0b0',
        byName: 'bob',
        via: null,
        address: null,
        object: { type: 'rule', id: 'Redirect_4k2m9' },
        detail: { revision: 42 },
      },
    ],
  },
);

export const ActivityPage = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(ActivityEntry),
    nextCursor: Type.Union([Type.String({ pattern: CURSOR_PATTERN }), Type.Null()], {
      description: '`cursor` of the next page; null on the last.',
    }),
  },
  { additionalProperties: false },
);

/** The query as documented, or as checked (`checked`: see pageQuery in http/schemas.ts). */
const activityQuery = (checked: boolean) =>
  Type.Object(
    {
      cursor: Type.Optional(
        Type.String({
          pattern: CURSOR_PATTERN,
          description: 'Where the page starts: the `nextCursor` of the page before (default: the newest).',
          examples: ['42-0.1763856000000-evt_3k9x0c1m2p4q5r6s'],
        }),
      ),
      pageSize: Type.Optional(countParameter('Entries per page, 1 to 1000 (default 100).', checked)),
      actor: Type.Optional(
        Type.String({
          pattern: '^usr_[a-z0-9]{1,64}$',
          description: 'Only what this user did.',
          examples: ['usr_p2f8w0c4n6aa'],
        }),
      ),
      kind: Type.Optional(Kind),
      object: Type.Optional(
        Type.String({
          pattern: '^[A-Za-z0-9_]{1,64}$',
          description:
            'Only entries about this object: a rule, group, user, key, invite, change request or test suite id.',
          examples: ['Redirect_4k2m9'],
        }),
      ),
    },
    { additionalProperties: false },
  );
export const ActivityQuery = activityQuery(false);
export const checkActivityQuery = compile(activityQuery(true));
