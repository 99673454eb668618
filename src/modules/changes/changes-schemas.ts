// Schemas of the change feed and the stream's query.
import { Type } from '@sinclair/typebox';
import { AppError, pointerToken } from '../../errors.js';
import { countParameter } from '../../http/schemas.js';
import { Timestamp } from '../../model/common.js';
import { compile, schemaErrors } from '../../validation.js';

export const MAX_FEED_LIMIT = 1000;
export const DEFAULT_FEED_LIMIT = 100;

const Revision = Type.String({ pattern: '^[0-9]{1,15}$', description: 'A workspace revision.' });
export const Change = Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]);
const ObjectType = Type.Union(
  [Type.Literal('rule'), Type.Literal('group'), Type.Literal('variable'), Type.Literal('environment')],
  {
    description:
      'What changed; a variable or environment is named by its name in `id` (runtimes read ' +
      '`GET /v1/environments/{name}/values` again after either).',
  },
);
export const ByName = Type.Union([Type.String(), Type.Null()], {
  description: 'The name of that user (null if the user no longer exists), for people reading history.',
  examples: ['alice'],
});

/** The feed's query as documented, or as checked (`checked`: see pageQuery). */
const changesQuery = (checked: boolean) =>
  Type.Object(
    {
      after: Type.Optional({ ...Revision, description: 'Changes after this revision (default 0).' }),
      limit: Type.Optional(countParameter('At most this many changes, 1 to 1000 (default 100).', checked)),
    },
    { additionalProperties: false },
  );
export const ChangesQuery = changesQuery(false);
const checkChangesQuery = compile(changesQuery(true));

export const StreamQuery = Type.Object(
  { after: Type.Optional({ ...Revision, description: 'Send the changes after this revision first.' }) },
  { additionalProperties: false },
);
const checkStreamQuery = compile(StreamQuery);

/** The header an EventSource sends when it reconnects: the stream resumes after that revision. */
export const LastEventId = Type.Object({
  'Last-Event-ID': Type.Optional({
    ...Revision,
    description: 'Resume after this revision (wins over `after`).',
  }),
});

export const FeedItem = Type.Object(
  {
    revision: Type.Integer({ description: 'The workspace revision the change made.' }),
    objectType: ObjectType,
    id: Type.String(),
    change: Change,
    at: Timestamp,
    by: Type.String({ description: 'User id of the key that made the change.' }),
    byName: ByName,
    changeRequestId: Type.Optional(
      Type.String({
        description: 'The change request whose merge made this change (absent for a direct write).',
      }),
    ),
  },
  { $id: 'ChangeItem', additionalProperties: false },
);

export const FeedPage = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(FeedItem),
    latest: Type.Integer({ description: "The workspace's current revision." }),
    nextAfter: Type.Integer({
      description: '`after` of the next request: the last revision listed, else `after`.',
    }),
  },
  { additionalProperties: false },
);

function readQuery(query: unknown, check: ReturnType<typeof compile>): Record<string, string | undefined> {
  const details = schemaErrors(check, query ?? {});
  if (details.length > 0) throw new AppError('INVALID_QUERY', details);
  return query as Record<string, string | undefined>;
}

export function readChangesQuery(query: unknown): { after: number; limit: number } {
  const q = readQuery(query, checkChangesQuery);
  const limit = q.limit === undefined ? DEFAULT_FEED_LIMIT : Number(q.limit);
  if (limit < 1 || limit > MAX_FEED_LIMIT) {
    throw new AppError('INVALID_QUERY', [{ path: '/limit', message: `must be from 1 to ${MAX_FEED_LIMIT}` }]);
  }
  return { after: Number(q.after ?? 0), limit };
}

/** Where a stream starts: after Last-Event-ID (an EventSource resuming), else ?after, else now (undefined). */
export function readStreamStart(query: unknown, lastEventId: string | undefined): number | undefined {
  const q = readQuery(query, checkStreamQuery);
  if (lastEventId !== undefined) {
    if (!/^[0-9]{1,15}$/.test(lastEventId)) {
      throw new AppError('INVALID_QUERY', [
        { path: `/${pointerToken('Last-Event-ID')}`, message: 'must be a revision (digits)' },
      ]);
    }
    return Number(lastEventId);
  }
  return q.after === undefined ? undefined : Number(q.after);
}
