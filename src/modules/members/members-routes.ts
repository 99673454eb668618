// HTTP routes of /v1/members: thin handlers over the members service.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ALWAYS, BODY, errorResponses, success } from '../../http/responses.js';
import { deleted, single } from '../../http/schemas.js';
import { Member, MemberParams, RoleChange } from './members-schemas.js';
import type { MembersService } from './members-service.js';

type WithUser = { Params: { userId: string } };

export function registerMembersRoutes(app: FastifyInstance, members: MembersService): void {
  const common = { tags: ['members'], security: [{ apiKey: [] }] };

  app.get(
    '/members',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'listMembers',
        summary: "List the workspace's members and their roles",
        description: 'Role needed: viewer.',
        response: {
          200: success(
            'Every member, oldest first.',
            Type.Object(
              { success: Type.Literal(true), data: Type.Array(Member) },
              { additionalProperties: false },
            ),
          ),
          ...errorResponses(...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await members.list(request.principal) }),
  );

  app.patch<WithUser>(
    '/members/:userId',
    {
      config: { scope: 'admin', bodyError: 'MEMBER_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'setMemberRole',
        summary: "Change a member's role",
        description:
          'Role needed: admin; only an owner makes, unmakes or removes an owner. The member loses or ' +
          'gains the power of their keys at once, on every instance. The last owner cannot be demoted.',
        params: MemberParams,
        body: RoleChange,
        response: {
          200: success('The member with their new role.', single(Member)),
          ...errorResponses(
            'MEMBER_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'MEMBER_NOT_FOUND',
            'LAST_OWNER',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await members.setRole(request.principal, request.params.userId, request.body, request.ip),
    }),
  );

  app.delete<WithUser>(
    '/members/:userId',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'removeMember',
        summary: 'Remove a member from the workspace',
        description:
          'Role needed: admin (owner to remove an owner). Their keys in this workspace stop working at ' +
          'once, on every instance. The last owner cannot be removed.',
        params: MemberParams,
        response: {
          200: success('The member is removed.', deleted(Type.String({ examples: ['Member removed'] }))),
          ...errorResponses('UNAUTHORIZED_ACTION', 'MEMBER_NOT_FOUND', 'LAST_OWNER', ...ALWAYS),
        },
      },
    },
    async (request) => {
      await members.remove(request.principal, request.params.userId, request.ip);
      return { success: true, message: 'Member removed' };
    },
  );
}
