// What every way of signing in with a body answers (POST /v1/session, accepting an invite or the setup
// link): refused from another origin, then the session cookie and the session with its CSRF token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { crossOrigin, securelyReached } from '../../http/origin.js';
import { header, success } from '../../http/responses.js';
import { single } from '../../http/schemas.js';
import { sessionCookie, sessionToken } from './session-cookie.js';
import { Session } from './sessions-schemas.js';
import type { SessionView } from './sessions-service.js';

/** The OpenAPI answer of a sign-in: the session, and the cookie set. */
export const signedInAnswer = (description: string) =>
  success(description, single(Session), {
    outsideWorkspace: true,
    headers: {
      'Set-Cookie': header(
        'The session cookie.',
        { examples: ['rk_session=…; Path=/; HttpOnly; SameSite=Lax'] },
        true,
      ),
    },
  });

/**
 * Signs in with `open` (given the address and the session cookie the browser had, which it ends) and
 * answers as every sign-in does.
 */
export async function signIn(
  request: FastifyRequest,
  reply: FastifyReply,
  publicUrl: string | undefined,
  open: (address: string, previous: string | undefined) => Promise<{ token: string; view: SessionView }>,
): Promise<{ success: true; data: SessionView }> {
  // A page of another site must not sign its visitor in to an account of its choosing.
  if (crossOrigin(request, publicUrl))
    throw new AppError('CSRF_REFUSED', [{ path: '', message: 'the request comes from another origin' }]);
  const { token, view } = await open(request.ip, sessionToken(request.headers.cookie));
  reply.header('set-cookie', sessionCookie(token, view.expiresAt, securelyReached(request, publicUrl)));
  return { success: true, data: view };
}
