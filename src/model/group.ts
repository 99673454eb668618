// A group: what a client may write, what it reads back, and the mapper from a stored row to what it reads.
import { type Static, Type } from '@sinclair/typebox';
import { compile } from '../validation.js';
import { acceptingIgnored, DocumentedName, ignoredFields, Status, Timestamp } from './common.js';
import type { Principal } from './principal.js';
import { REQUESTLY_GROUP_IGNORED } from './requestly-fields.js';

export const GROUP_ID_PATTERN = /^Group_[A-Za-z0-9]{1,32}$/;

export const GroupWrite = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        description: 'Required on create; 1 to 256 characters after trimming.',
        examples: ['Checkout mocks'],
      }),
    ),
    status: Type.Optional(Type.Union(Status.anyOf, { description: '`Active` (the default) or `Inactive`.' })),
    isFavourite: Type.Optional(Type.Boolean({ description: 'Defaults to false.' })),
  },
  { additionalProperties: false },
);
export type GroupWrite = Static<typeof GroupWrite>;
export const checkGroupWrite = compile(GroupWrite);

/**
 * Fields of a group response that a client may send back, and the fields of Requestly's group records
 * that Rulekeeper does not store (requestly-fields.ts says which and why); ignored.
 */
export const GROUP_READ_ONLY = new Set([
  'id',
  'objectType',
  'creationDate',
  'modificationDate',
  'createdBy',
  'lastModifiedBy',
  'currentOwnerId',
  'ruleCount',
  'activeRuleCount',
  ...REQUESTLY_GROUP_IGNORED,
]);

const GroupIgnoredFields = ignoredFields('GroupIgnoredFields', GROUP_READ_ONLY);
const documentedGroupName = DocumentedName('1 to 256 characters after trimming; not blank.', [
  'Checkout mocks',
]);

/** The body of PUT as documented: the writable fields (a name, if sent, not blank), and the ignored ones. */
export const GroupBody = acceptingIgnored(
  Type.Object(
    { ...GroupWrite.properties, name: Type.Optional(documentedGroupName) },
    { additionalProperties: false },
  ),
  GroupIgnoredFields,
);

/** The body of POST as documented: as PUT's, with a name required. */
export const GroupCreateBody = acceptingIgnored(
  Type.Object({ ...GroupWrite.properties, name: documentedGroupName }, { additionalProperties: false }),
  GroupIgnoredFields,
);

export const Group = Type.Object(
  {
    id: Type.String({
      pattern: GROUP_ID_PATTERN.source,
      description: '`Group_` and 5 characters (or, imported, 1 to 32 letters or digits).',
      examples: ['Group_k3v9x'],
    }),
    name: Type.String(),
    status: Status,
    isFavourite: Type.Boolean(),
    objectType: Type.Literal('group'),
    creationDate: Timestamp,
    modificationDate: Timestamp,
    createdBy: Type.String({ description: 'User id of the key that created the group.' }),
    lastModifiedBy: Type.String({ description: 'User id of the key that last changed the group.' }),
    currentOwnerId: Type.String({ description: "The workspace owner's user id." }),
  },
  { $id: 'Group', additionalProperties: false },
);
export type Group = Static<typeof Group>;

/** The fields of a group as answered, in their order (for the tests, as RULE_FIELDS is for rules). */
export const GROUP_FIELDS = Object.keys(Group.properties) as (keyof Group)[];

export const GroupListItem = Type.Object(
  {
    ...Group.properties,
    ruleCount: Type.Integer({ description: 'Rules in the group.' }),
    activeRuleCount: Type.Integer({ description: 'Active rules in the group.' }),
  },
  { $id: 'GroupListItem', additionalProperties: false },
);
export type GroupListItem = Static<typeof GroupListItem>;

/** A group as stored: the columns the mapper reads (a database row has them). */
export interface StoredGroup {
  id: string;
  name: string;
  status: string;
  is_favourite: number;
  creation_date: number;
  modification_date: number;
  created_by: string;
  last_modified_by: string;
}

/** A stored group as answered. */
export function toGroup(row: StoredGroup, principal: Principal): Group {
  return {
    id: row.id,
    name: row.name,
    status: row.status as Group['status'],
    isFavourite: row.is_favourite === 1,
    objectType: 'group',
    creationDate: row.creation_date,
    modificationDate: row.modification_date,
    createdBy: row.created_by,
    lastModifiedBy: row.last_modified_by,
    currentOwnerId: principal.ownerUserId,
  };
}
