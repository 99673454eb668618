// HTTP routes of /v1/session: signing in (sets the session cookie), the session, signing out.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { securelyReached } from '../../http/origin.js';
import { ALWAYS, BODY, errorResponses, success } from '../../http/responses.js';
import { deleted, single } from '../../http/schemas.js';
import { Credentials } from '../users/users-schemas.js';
import { clearedCookie } from './session-cookie.js';
import { Session, SignOutQuery } from './sessions-schemas.js';
import type { SessionPrincipal, SessionsService } from './sessions-service.js';
import { signedInAnswer, signIn } from './signed-in.js';

/** The session of the request, or 401 for a key: a key has no session to show or end. */
function sessionOf(request: FastifyRequest): SessionPrincipal {
  if (request.principal.via !== 'session') throw new AppError('SESSION_REQUIRED');
  return request.principal as SessionPrincipal;
}

export function registerSessionsRoutes(
  app: FastifyInstance,
  sessions: SessionsService,
  config: Pick<Config, 'publicUrl'>,
): void {
  const common = { tags: ['session'] };

  app.post(
    '/session',
    {
      config: { public: true, bodyError: 'SIGN_IN_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'signIn',
        summary: 'Sign in with an email and a password',
        description:
          'Sets the session cookie (`HttpOnly`, `SameSite=Lax`; `__Host-rk_session`, `Secure`, over ' +
          'HTTPS) and answers the session with its CSRF token. A wrong email or password is 401, the ' +
          'same either way; more than 10 failures for an account or from an address in 15 minutes is 429.',
        security: [],
        body: Credentials,
        response: {
          200: signedInAnswer('Signed in: the session cookie is set.'),
          ...errorResponses(
            'SIGN_IN_PAYLOAD_INVALID',
            'INVALID_CREDENTIALS',
            'CSRF_REFUSED',
            'SIGN_IN_LIMITED',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) =>
      signIn(request, reply, config.publicUrl, (address, previous) =>
        sessions.signIn(request.body, address, previous),
      ),
  );

  app.get(
    '/session',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'getSession',
        summary: 'The signed-in person, their workspaces and a CSRF token',
        description: 'Needs a session cookie; an API key is answered `SESSION_REQUIRED`.',
        response: {
          200: success('The session.', single(Session)),
          ...errorResponses('SESSION_REQUIRED', ...ALWAYS),
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      return {
        success: true,
        data: await sessions.describe(session.userId, session.csrfSecret, session.expiresAt as number),
      };
    },
  );

  app.delete<{ Querystring: { everywhere?: string } }>(
    '/session',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'signOut',
        summary: 'Sign out (here, or everywhere)',
        description:
          'Ends the session (every session of the person with `everywhere=true`) on every instance, and ' +
          'clears the cookie. Like every change made with a session, it needs `x-rk-csrf`.',
        querystring: SignOutQuery,
        response: {
          200: success('Signed out.', deleted(Type.String({ examples: ['Signed out'] }))),
          ...errorResponses('SESSION_REQUIRED', 'INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { everywhere } = request.query;
      if (everywhere !== undefined && everywhere !== 'true' && everywhere !== 'false')
        throw new AppError('INVALID_QUERY', [{ path: '/everywhere', message: 'must be true or false' }]);
      await sessions.end(session, everywhere === 'true', request.ip);
      reply.header('set-cookie', clearedCookie(securelyReached(request, config.publicUrl)));
      return { success: true, message: 'Signed out' };
    },
  );
}
