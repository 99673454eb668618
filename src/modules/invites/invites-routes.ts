// HTTP routes of /v1/invites: thin handlers over the invites service. Accepting is public (the link's
// token is the credential) and answers as signing in does: the session cookie and the session.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { ownOrigin } from '../../http/origin.js';
import { ALWAYS, BODY, errorResponses, header, success } from '../../http/responses.js';
import { deleted, single } from '../../http/schemas.js';
import { signedInAnswer, signIn } from '../sessions/signed-in.js';
import { Invite, InviteAccept, InviteCreate, InviteParams, NewInvite } from './invites-schemas.js';
import type { InvitesService } from './invites-service.js';

type WithInvite = { Params: { inviteId: string } };

export function registerInvitesRoutes(
  app: FastifyInstance,
  invites: InvitesService,
  config: Pick<Config, 'publicUrl'>,
): void {
  const common = { tags: ['invites'] };

  app.post(
    '/invites',
    {
      config: { scope: 'admin', bodyError: 'INVITE_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'createInvite',
        summary: 'Invite someone by email, with a role',
        description:
          'Role needed: admin; only an owner invites an owner. Answers the single-use link (7 days) this ' +
          'once, to hand over; with SMTP_URL set it is also mailed to the address. A pending invite of ' +
          'the same email is replaced. An email whose account is a member already is 409.',
        body: InviteCreate,
        response: {
          201: success('The invite made, with its link shown this once.', single(NewInvite), {
            headers: {
              'Cache-Control': header(
                'The link is in the body: kept by no cache.',
                { enum: ['no-store'] },
                true,
              ),
            },
          }),
          ...errorResponses(
            'INVITE_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'MEMBER_EXISTS',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await invites.create(
        request.principal,
        request.body,
        ownOrigin(request, config.publicUrl),
        request.ip,
      );
      reply.code(201).header('cache-control', 'no-store');
      return { success: true, data };
    },
  );

  app.get(
    '/invites',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'listInvites',
        summary: "List the workspace's pending invites",
        description:
          'Role needed: admin. Invites neither accepted, revoked nor expired, newest first; never a link.',
        response: {
          200: success(
            'The pending invites.',
            Type.Object(
              { success: Type.Literal(true), data: Type.Array(Invite) },
              { additionalProperties: false },
            ),
          ),
          ...errorResponses(...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await invites.list(request.principal) }),
  );

  app.delete<WithInvite>(
    '/invites/:inviteId',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'revokeInvite',
        summary: 'Revoke a pending invite',
        description:
          'Role needed: admin. Its link stops working at once. An invite of another workspace, or one ' +
          'accepted, revoked or expired, is not found.',
        params: InviteParams,
        response: {
          200: success('The invite is revoked.', deleted(Type.String({ examples: ['Invite revoked'] }))),
          ...errorResponses('INVITE_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => {
      await invites.revoke(request.principal, request.params.inviteId, request.ip);
      return { success: true, message: 'Invite revoked' };
    },
  );

  app.post(
    '/invites/accept',
    {
      config: { public: true, bodyError: 'INVITE_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'acceptInvite',
        summary: 'Accept an invite (or the setup link) and sign in',
        description:
          "No key: the link's token is the credential, and works once. Makes the account of the " +
          "invite's email with `password` (and `name`), or, when that email has an account, takes " +
          '`password` as its current password (a link never opens an account its holder cannot sign in ' +
          "to); adds the membership with the invite's role; then signs in as `POST /v1/session` does " +
          '(the session cookie, the session and its CSRF token). The setup link also needs `email`. ' +
          'A link unknown, used, revoked or expired is 410, whichever it is.',
        security: [],
        body: InviteAccept,
        response: {
          200: signedInAnswer('Accepted and signed in: the session cookie is set.'),
          ...errorResponses(
            'INVITE_PAYLOAD_INVALID',
            'USER_PAYLOAD_INVALID',
            'INVALID_CREDENTIALS',
            'CSRF_REFUSED',
            'USER_EXISTS',
            'LINK_INVALID',
            'SIGN_IN_LIMITED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) =>
      signIn(request, reply, config.publicUrl, (address, previous) =>
        invites.accept(request.body, address, previous),
      ),
  );
}
