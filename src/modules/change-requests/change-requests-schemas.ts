// Shapes of /v1/change-requests (decisions §19): a proposed set of operations on rules and groups, its
// reviews, its evidence, and the bodies that make, change and review one.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { Timestamp } from '../../model/common.js';
import { GROUP_ID_PATTERN, GroupBody, GroupCreateBody } from '../../model/group.js';
import { RuleCreate, RuleUpdate } from '../../model/rule.js';
import { compile } from '../../validation.js';

/** Operations one change request holds at most. */
export const MAX_OPERATIONS = 1000;
export const MAX_TITLE = 256;
export const MAX_DESCRIPTION = 20_000;
export const MAX_COMMENT = 20_000;
/** What a group created by the change request is called by the operations that refer to it. */
export const LOCAL_REF_PATTERN = '^\\$[A-Za-z0-9_-]{1,64}$';

export const STATES = ['open', 'approved', 'rejected', 'merged', 'closed'] as const;
export type State = (typeof STATES)[number];
const StateSchema = Type.Union(
  STATES.map((state) => Type.Literal(state)),
  {
    description:
      '`open`: waiting for reviews. `approved`: approved (by someone other than its author) and no request ' +
      'for changes outstanding on its current version: it may be merged. `rejected`: a reviewer asked for ' +
      'changes on its current version; its author updates it (back to `open`) or it is closed. `merged` ' +
      'and `closed` are final.',
  },
);

const RuleId = Type.String({ minLength: 1, maxLength: 128, description: 'The rule acted on.' });
// Another form is 400 Invalid Group Id, as on the groups' routes.
const GroupId = Type.String({ pattern: GROUP_ID_PATTERN.source, description: 'The group acted on.' });
const variant = (title: string, properties: Record<string, TSchema>) =>
  Type.Object(properties, { title, additionalProperties: false });

/**
 * An operation, as the document describes it: one variant per what it does. The service reads the
 * loose shape below (`Operation`) and checks each body as the direct route does, with its errors.
 */
export const DocumentedOperation = Type.Union(
  [
    variant('CreateRule', { op: Type.Literal('create'), kind: Type.Literal('rule'), body: RuleCreate }),
    variant('CreateGroup', {
      op: Type.Literal('create'),
      kind: Type.Literal('group'),
      id: Type.Optional(
        Type.String({
          pattern: LOCAL_REF_PATTERN,
          description:
            'A local name (`$name`) by which rules of the same change request put themselves in the new group (`groupId`).',
        }),
      ),
      body: GroupCreateBody,
    }),
    variant('UpdateRule', {
      op: Type.Literal('update'),
      kind: Type.Literal('rule'),
      id: RuleId,
      body: RuleUpdate,
    }),
    variant('UpdateGroup', {
      op: Type.Literal('update'),
      kind: Type.Literal('group'),
      id: GroupId,
      body: GroupBody,
    }),
    variant('DeleteRule', { op: Type.Literal('delete'), kind: Type.Literal('rule'), id: RuleId }),
    variant('DeleteGroup', { op: Type.Literal('delete'), kind: Type.Literal('group'), id: GroupId }),
  ],
  {
    $id: 'ChangeOperation',
    description:
      "A create, update or delete of a rule or group. Bodies are the direct routes' (`POST`/`PUT /v1/rules`, " +
      "`/v1/groups`), checked as they check them, with their errors pointed at `/operations/N/body/...`. A rule's " +
      '`groupId` may name a group the same change request creates by its local name. An object is touched by ' +
      'one operation at most.',
  },
);

/** The shape the service reads: any operation, its body checked afterwards by the direct routes' readers. */
export const Operation = Type.Object(
  {
    op: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
    kind: Type.Union([Type.Literal('rule'), Type.Literal('group')]),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    body: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);
export type Operation = Static<typeof Operation>;

const operations = <T extends TSchema>(item: T) =>
  Type.Array(item, { minItems: 1, maxItems: MAX_OPERATIONS });

const createOf = <T extends TSchema>(item: T, $id?: string) =>
  Type.Object(
    {
      title: Type.String({ minLength: 1, maxLength: MAX_TITLE }),
      description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION })),
      operations: operations(item),
    },
    {
      ...($id ? { $id } : {}),
      additionalProperties: false,
      examples: [
        {
          title: 'Send the API to staging',
          operations: [{ op: 'update', kind: 'rule', id: 'Redirect_k3v9x', body: { status: 'Active' } }],
        },
      ],
    },
  );
export const ChangeRequestCreate = createOf(DocumentedOperation, 'ChangeRequestCreate');
export const checkChangeRequestCreate = compile(createOf(Operation));

const updateOf = <T extends TSchema>(item: T, $id?: string) =>
  Type.Object(
    {
      title: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TITLE })),
      description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION })),
      operations: Type.Optional(operations(item)),
    },
    {
      ...($id ? { $id } : {}),
      additionalProperties: false,
      examples: [{ title: 'Staging, not production' }],
    },
  );
export const ChangeRequestUpdate = updateOf(DocumentedOperation, 'ChangeRequestUpdate');
export const checkChangeRequestUpdate = compile(updateOf(Operation));

export const ReviewBody = Type.Object(
  {
    verdict: Type.Union([Type.Literal('approve'), Type.Literal('request_changes')]),
    comment: Type.Optional(Type.String({ maxLength: MAX_COMMENT })),
  },
  { $id: 'ChangeRequestReviewBody', additionalProperties: false, examples: [{ verdict: 'approve' }] },
);
export const checkReviewBody = compile(ReviewBody);

const Review = Type.Object(
  {
    by: Type.String(),
    byName: Type.Union([Type.String(), Type.Null()]),
    verdict: Type.Union([Type.Literal('approve'), Type.Literal('request_changes')]),
    comment: Type.String(),
    at: Timestamp,
    version: Type.Integer({ description: "The change request's version the review saw." }),
    current: Type.Boolean({
      description: 'Whether it counts: it saw the current version, and is its reviewer’s latest.',
    }),
  },
  { additionalProperties: false },
);

const Outcome = Type.Union([Type.Literal('pass'), Type.Literal('fail')]);
const Tally = Type.Object(
  { passed: Type.Integer(), failed: Type.Integer() },
  { additionalProperties: false },
);

export const Evidence = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('failed'), Type.Literal('pending')], {
      description:
        '`ready`: computed for the current version; `failed`: could not be computed within the ' +
        "workspace's limits (`reason` says why); `pending`: not computed yet.",
    }),
    revision: Type.Optional(Type.Integer({ description: "The workspace's revision it was computed at." })),
    reason: Type.Optional(Type.String()),
    lint: Type.Optional(
      Type.Object(
        {
          added: Type.Array(Type.Unknown(), {
            description: 'Lint findings the change adds (as GET /v1/lint).',
          }),
          removed: Type.Array(Type.Unknown(), { description: 'Lint findings the change removes.' }),
        },
        { additionalProperties: false },
      ),
    ),
    tests: Type.Optional(
      Type.Array(
        Type.Object(
          {
            suite: Type.String(),
            before: Tally,
            after: Tally,
            changed: Type.Array(
              Type.Object(
                { case: Type.String(), before: Outcome, after: Outcome },
                { additionalProperties: false },
              ),
              { description: 'The cases that start failing, or start passing.' },
            ),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    outcomes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            suite: Type.String(),
            case: Type.String(),
            request: Type.Unknown({ description: 'The request of the case, as the suite has it.' }),
            before: Type.Unknown({ description: 'The trace of the request with the rules before.' }),
            after: Type.Unknown({ description: 'The trace with the rules after.' }),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'Every request of the suites whose outcome the change alters: its trace, before and after.',
        },
      ),
    ),
    browser: Type.Optional(
      Type.Array(
        Type.Object(
          {
            ruleId: Type.String(),
            before: Type.Union([Type.String(), Type.Null()], {
              description:
                '`compiled`, `partial`, `not_compiled`, or null (not compiled: absent or inactive).',
            }),
            after: Type.Union([Type.String(), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        { description: 'Rules whose compiled browser status (GET /v1/browser-rules) the change alters.' },
      ),
    ),
  },
  { $id: 'ChangeRequestEvidence', additionalProperties: false },
);
export type Evidence = Static<typeof Evidence>;

const common = {
  id: Type.String({ examples: ['cr_k3v9x0p2f8w0'] }),
  title: Type.String(),
  state: StateSchema,
  author: Type.String({ description: "The author's user id." }),
  authorName: Type.Union([Type.String(), Type.Null()]),
  baseRevision: Type.Integer({
    description: "The workspace's revision the operations were written against.",
  }),
  version: Type.Integer({
    description: 'One more with every update; reviews count for the version they saw.',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  mergedRevision: Type.Union([Type.Integer(), Type.Null()], { description: 'The revision its merge made.' }),
  endedBy: Type.Union([Type.String(), Type.Null()], { description: 'Who merged or closed it.' }),
  endedAt: Type.Union([Timestamp, Type.Null()]),
};

export const ChangeRequest = Type.Object(
  {
    ...common,
    description: Type.String(),
    operations: Type.Array(DocumentedOperation),
    reviews: Type.Array(Review, { description: 'Every review, oldest first.' }),
    evidence: Evidence,
  },
  { $id: 'ChangeRequest', additionalProperties: false },
);
export type ChangeRequest = Static<typeof ChangeRequest>;

export const ChangeRequestListItem = Type.Object(
  { ...common, operationCount: Type.Integer() },
  { $id: 'ChangeRequestListItem', additionalProperties: false },
);
export type ChangeRequestListItem = Static<typeof ChangeRequestListItem>;

const listQuery = (checked: boolean) =>
  Type.Object({ ...pageQuery(checked), state: Type.Optional(StateSchema) }, { additionalProperties: false });
export const ChangeRequestListQuery = listQuery(false);
export const checkChangeRequestListQuery = compile(listQuery(true));

export const ChangeRequestParams = Type.Object({
  id: Type.String({
    pattern: '^cr_[0-9a-z]{1,64}$',
    description: 'Any other id is not found.',
    examples: ['cr_k3v9x0p2f8w0'],
  }),
});

/** What a change request's lifecycle tells (webhooks, wired at landing). */
export type ChangeRequestEvent = 'opened' | 'updated' | 'reviewed' | 'merged' | 'closed';
