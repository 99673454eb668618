// Shapes of /v1/members: a workspace's members with their roles, and a change of role.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp } from '../../model/common.js';
import { RoleSchema } from '../../model/role.js';
import { compile } from '../../validation.js';

export const Member = Type.Object(
  {
    userId: Type.String({ examples: ['usr_p2f8w0c4n6aa'] }),
    name: Type.String({ description: "The user's name.", examples: ['alice'] }),
    role: RoleSchema,
    since: Timestamp,
  },
  {
    $id: 'Member',
    additionalProperties: false,
    description: 'A member of the workspace and their role.',
    examples: [{ userId: 'usr_p2f8w0c4n6aa', name: 'alice', role: 'owner', since: 1763856000000 }],
  },
);
export type Member = Static<typeof Member>;

export const MemberParams = Type.Object({
  userId: Type.String({
    pattern: '^(usr|svc)_[a-z0-9]{1,64}$',
    description:
      "The member's user id, as GET /v1/members lists it (`svc_`: a workspace key's service user); any other is not found.",
    examples: ['usr_p2f8w0c4n6aa'],
  }),
});

export const RoleChange = Type.Object(
  { role: RoleSchema },
  { $id: 'RoleChange', additionalProperties: false, examples: [{ role: 'viewer' }] },
);
export const checkRoleChange = compile(RoleChange);
