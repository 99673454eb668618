// HTTP routes of password resets: an admin's link for a member, and the two public steps of a person
// who forgot theirs (asking for a link by mail, setting the new password with it).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { ownOrigin } from '../../http/origin.js';
import { ALWAYS, BODY, errorResponses, header, success } from '../../http/responses.js';
import { deleted, single } from '../../http/schemas.js';
import { MemberParams } from '../members/members-schemas.js';
import { ForgotPassword, NewPassword, ResetLink } from './password-resets-schemas.js';
import type { PasswordResetsService } from './password-resets-service.js';

type WithUser = { Params: { userId: string } };

export function registerPasswordResetsRoutes(
  app: FastifyInstance,
  resets: PasswordResetsService,
  config: Pick<Config, 'publicUrl'>,
): void {
  const common = { tags: ['password'] };

  app.post<WithUser>(
    '/members/:userId/reset',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'createPasswordReset',
        summary: 'Make a password reset link for a member',
        description:
          'Role needed: admin, in every workspace the member belongs to (owner where the member is an ' +
          'owner): the link signs its holder in as the member everywhere. Answers the single-use link ' +
          '(1 hour) this once, to hand over; with SMTP_URL set it is also mailed to the member. Using it ' +
          "sets a new password and ends the member's sessions.",
        params: MemberParams,
        response: {
          201: success('The link, shown this once.', single(ResetLink), {
            headers: {
              'Cache-Control': header(
                'The link is in the body: kept by no cache.',
                { enum: ['no-store'] },
                true,
              ),
            },
          }),
          ...errorResponses('UNAUTHORIZED_ACTION', 'MEMBER_NOT_FOUND', 'USER_CANNOT_SIGN_IN', ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      const data = await resets.createForMember(
        request.principal,
        request.params.userId,
        ownOrigin(request, config.publicUrl),
        request.ip,
      );
      reply.code(201).header('cache-control', 'no-store');
      return { success: true, data };
    },
  );

  app.post(
    '/password/forgot',
    {
      config: { public: true, bodyError: 'PASSWORD_RESET_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'forgotPassword',
        summary: 'Ask for a password reset link by mail',
        description:
          'No key. Answers 202 at once, the same whether or not the address has an account. Only when ' +
          'SMTP_URL is set, and the address is of a person who may sign in, a single-use link (1 hour) ' +
          'is then mailed to it, at most one every 5 minutes. Without SMTP_URL nothing is sent: ask an ' +
          'admin for a link.',
        security: [],
        body: ForgotPassword,
        response: {
          202: success(
            'Asked: a link is on its way if the address has an account (and mail is set up).',
            deleted(
              Type.String({ examples: ['If this address has an account, a reset link is on its way'] }),
            ),
            { outsideWorkspace: true },
          ),
          ...errorResponses('PASSWORD_RESET_PAYLOAD_INVALID', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      resets.forgot(request.body);
      reply.code(202);
      return { success: true, message: 'If this address has an account, a reset link is on its way' };
    },
  );

  app.post(
    '/password/reset',
    {
      config: { public: true, bodyError: 'PASSWORD_RESET_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset link',
        description:
          "No key: the link's token is the credential, and works once. Sets the password and ends every " +
          'session of the person, on every instance (their API keys keep working); then sign in with ' +
          '`POST /v1/session`. A link unknown, used or expired is 410, whichever it is.',
        security: [],
        body: NewPassword,
        response: {
          200: success('The password is changed.', deleted(Type.String({ examples: ['Password changed'] })), {
            outsideWorkspace: true,
          }),
          ...errorResponses('PASSWORD_RESET_PAYLOAD_INVALID', 'LINK_INVALID', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request) => {
      await resets.reset(request.body, request.ip);
      return { success: true, message: 'Password changed' };
    },
  );
}
