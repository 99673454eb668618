// HTTP routes of single sign-on. /auth/oidc/start and /auth/oidc/callback are browser navigations, not
// API calls: outside /v1 and its key check, hidden from the OpenAPI document (docs/guide/single-sign-on.md
// describes them), and they answer only redirects: to the provider, to the console signed in, or to
// the console with `?sso_error=<code>`, never an error body or a 500. GET /v1/session/providers tells
// the console whether to show the button.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { ownOrigin, securelyReached } from '../../http/origin.js';
import { ALWAYS, errorResponses, success } from '../../http/responses.js';
import { single } from '../../http/schemas.js';
import { sessionCookie, sessionToken } from '../sessions/session-cookie.js';
import { loginCookie, loginToken } from './oidc-cookie.js';
import { SignInProviders } from './oidc-schemas.js';
import { LOGIN_TTL_MS, type OidcService, SsoRefusal, type SsoRefusalCode } from './oidc-service.js';

export const START_PATH = '/auth/oidc/start';
export const CALLBACK_PATH = '/auth/oidc/callback';
/** Where people land after single sign-on: the console (plugins/console.ts serves it at `/`). */
const CONSOLE_PATH = '/';

/** GET /v1/session/providers, in the /v1 scope: public, as signing in is. */
export function registerSignInProvidersRoute(app: FastifyInstance, ssoConfigured: boolean): void {
  const data = { password: true, ...(ssoConfigured ? { oidc: { start: START_PATH } } : {}) };
  app.get(
    '/session/providers',
    {
      config: { public: true },
      schema: {
        tags: ['session'],
        operationId: 'getSignInProviders',
        summary: 'The ways to sign in (is single sign-on configured?)',
        description:
          'Needs no key or session. `oidc` is present when the service is configured for OpenID Connect ' +
          'single sign-on; its `start` is a page to navigate to, outside this API.',
        security: [],
        response: {
          200: success('The ways to sign in.', single(SignInProviders), { outsideWorkspace: true }),
          ...errorResponses(...ALWAYS),
        },
      },
    },
    async () => ({ success: true, data }),
  );
}

export function registerOidcRoutes(
  app: FastifyInstance,
  oidc: OidcService,
  config: Pick<Config, 'publicUrl'>,
): void {
  const secure = (request: FastifyRequest) => securelyReached(request, config.publicUrl);
  const redirectUri = (request: FastifyRequest) => `${ownOrigin(request, config.publicUrl)}${CALLBACK_PATH}`;

  /** Back to the console with the refusal's code; its reason goes to the log alone. */
  function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
    let code: SsoRefusalCode = 'failed';
    if (error instanceof SsoRefusal) {
      code = error.code;
      request.log.info({ sso: code, reason: error.reason }, 'single sign-on refused');
    } else {
      if (error instanceof AppError && error.status === 503) code = 'unavailable';
      request.log.error({ err: error, sso: code }, 'single sign-on failed');
    }
    return reply.redirect(`${CONSOLE_PATH}?sso_error=${code}`, 302);
  }

  app.get(START_PATH, { schema: { hide: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const { url, token } = await oidc.start(redirectUri(request));
      reply.header('set-cookie', loginCookie(token, LOGIN_TTL_MS, secure(request)));
      return reply.redirect(url, 302);
    } catch (error) {
      return refuse(request, reply, error);
    }
  });

  app.get(CALLBACK_PATH, { schema: { hide: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // The sign-in is over whatever happens: its cookie goes.
    const cookies = [loginCookie('', 0, secure(request))];
    try {
      const rawUrl = request.raw.url ?? '';
      const query = rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?')) : '';
      const { token, view } = await oidc.finish({
        token: loginToken(request.headers.cookie),
        query,
        address: request.ip,
        previous: sessionToken(request.headers.cookie),
      });
      cookies.push(sessionCookie(token, view.expiresAt, secure(request)));
      reply.header('set-cookie', cookies);
      return reply.redirect(CONSOLE_PATH, 302);
    } catch (error) {
      reply.header('set-cookie', cookies);
      return refuse(request, reply, error);
    }
  });
}
