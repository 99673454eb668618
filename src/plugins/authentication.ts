// Who is calling, in front of every /v1 route: an API key (`x-api-key`: machines, scripts, the proxy
// and the extension) or a person's session cookie (the console). 401 without either, then 403 when
// the caller's scope and role do not reach what the route declares it needs (`config.scope`), or when
// a change made with a session cookie lacks its CSRF token or comes from another origin.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { crossOrigin } from '../http/origin.js';
import { routeConfig } from '../http/route-config.js';
import { accessRefusal, isKeyScope, type KeyScope } from '../modules/keys/key-scopes.js';
import { expiryDetail, type KeyCheck, type KeysService } from '../modules/keys/keys-service.js';
import type { KeyPrincipal } from '../modules/keys/keys-store.js';
import { sessionToken } from '../modules/sessions/session-cookie.js';
import type { SessionPrincipal, SessionsService } from '../modules/sessions/sessions-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key or session speaks for, and what it may do; set on every authenticated route. */
    principal: KeyPrincipal;
    /** Why the caller was refused, when it was. */
    authError: AppError | null;
  }
  interface FastifyContextConfig {
    /**
     * The least scope a caller needs for this route: `read` for what only reads (GET, a trace, the
     * change stream, export), `write` for what changes rules or groups, `admin` for workspace settings.
     * Every /v1 route declares it, or declares itself `public` (signing in); one that does neither is
     * refused at start.
     */
    scope?: KeyScope;
    /** A route anyone may call, with neither key nor session: signing in. */
    public?: boolean;
  }
}

/** What an issued key looks like; anything else is refused without a database look-up. */
const KEY_FORM = /^rk_[A-Za-z0-9_-]{20,128}$/;
/** What a session cookie's value looks like (32 random bytes, base64url). */
const SESSION_FORM = /^[A-Za-z0-9_-]{43}$/;
/** What `x-rk-workspace` may name: a workspace id. */
const WORKSPACE_FORM = /^ws_[a-z0-9]{1,64}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type Resolved = { principal: KeyPrincipal } | { error: AppError };

export interface Authenticators {
  keys: KeysService;
  sessions: Pick<SessionsService, 'check' | 'verifyCsrf'>;
}

/**
 * Who the request speaks for, or why it is refused: its key when it sends one, else its session
 * cookie; synchronous when nothing needs the database (no key, a malformed one, a remembered one), so
 * the common request awaits nothing.
 */
export function resolveCaller(
  request: FastifyRequest,
  { keys, sessions }: Authenticators,
): Resolved | Promise<Resolved> {
  const header = request.headers['x-api-key'];
  if (header === undefined || header === '') return resolveSession(request, sessions);
  if (typeof header !== 'string' || !KEY_FORM.test(header)) return { error: new AppError('API_KEY_INVALID') };
  const checked = keys.check(header);
  return checked instanceof Promise ? checked.then(resolvedKey) : resolvedKey(checked);
}

function resolvedKey(checked: KeyCheck): Resolved {
  if ('principal' in checked) return checked;
  if (checked.refused === 'unknown') return { error: new AppError('API_KEY_INVALID') };
  return { error: new AppError('API_KEY_INVALID', [expiryDetail(checked.expiredAt)]) };
}

function resolveSession(
  request: FastifyRequest,
  sessions: Authenticators['sessions'],
): Resolved | Promise<Resolved> {
  const token = sessionToken(request.headers.cookie);
  if (token === undefined) return { error: new AppError('API_KEY_REQUIRED') };
  if (!SESSION_FORM.test(token)) return { error: new AppError('SESSION_INVALID') };
  const asked = request.headers['x-rk-workspace'];
  if (asked !== undefined && (typeof asked !== 'string' || !WORKSPACE_FORM.test(asked)))
    return {
      error: new AppError('UNAUTHORIZED_ACTION', [
        { path: '', message: 'x-rk-workspace must be the id of a workspace you are a member of' },
      ]),
    };
  return sessions.check(token, asked);
}

/**
 * 403 for a change made with a session cookie that a page of another site could have sent: without
 * the session's CSRF token, or with Origin naming another site. API keys are never sent by a browser
 * on its own, so they need neither.
 */
function csrfRefusal(
  request: FastifyRequest,
  principal: SessionPrincipal,
  sessions: Authenticators['sessions'],
  publicUrl: string | undefined,
): AppError | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  if (crossOrigin(request, publicUrl))
    return new AppError('CSRF_REFUSED', [{ path: '', message: 'the request comes from another origin' }]);
  const token = request.headers['x-rk-csrf'];
  if (typeof token !== 'string' || !sessions.verifyCsrf(principal, token))
    return new AppError('CSRF_REFUSED', [
      { path: '', message: "a change made with a session needs the session's CSRF token in x-rk-csrf" },
    ]);
  return undefined;
}

export function authenticationPlugin(
  app: FastifyInstance,
  authenticators: Authenticators,
  config: Pick<Config, 'publicUrl'>,
): void {
  app.decorateRequest('principal', null as unknown as KeyPrincipal);
  app.decorateRequest('authError', null);

  // A route that forgot to say what it needs would be open to every caller, or closed to all:
  // neither may happen quietly.
  app.addHook('onRoute', (route) => {
    if (!route.config?.public && !isKeyScope(route.config?.scope)) {
      throw new Error(
        `${route.method} ${route.url} declares no key scope (config.scope: read, write or admin; or config.public)`,
      );
    }
  });

  function remember(request: FastifyRequest, result: Resolved): void {
    if ('principal' in result) request.principal = result.principal;
    else request.authError = result.error;
  }

  // The caller is resolved first and refused later, so that the rate limiter (which runs in between)
  // can count requests by key or session, and requests without either by client address.
  app.addHook('onRequest', (request, _reply, done) => {
    if (routeConfig(request).public) return done();
    const result = resolveCaller(request, authenticators);
    if (!(result instanceof Promise)) {
      remember(request, result);
      return done();
    }
    result.then((found) => {
      remember(request, found);
      done();
    }, done);
  });

  // Step 1 of the order of checks (http/checks.ts): the caller, then its scope and its user's role,
  // the smaller of which says what it may do, then, for a session, that the change is the person's own.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const route = routeConfig(request);
    if (route.public) return done(null, payload);
    const { principal, authError } = request;
    const refused =
      authError ??
      accessRefusal(principal.scope, principal.role, route.scope as KeyScope) ??
      (principal.via === 'session'
        ? csrfRefusal(request, principal as SessionPrincipal, authenticators.sessions, config.publicUrl)
        : undefined);
    if (refused) return done(refused);
    done(null, payload);
  });
}
