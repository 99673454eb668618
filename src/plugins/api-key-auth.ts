// The x-api-key check in front of every /v1 resource route: 401 without a valid key, then 403 when
// the key's scope does not reach what the route declares it needs (`config.scope`).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { accessRefusal, isKeyScope, type KeyScope } from '../modules/keys/key-scopes.js';
import { expiryDetail, type KeyCheck, type KeysService } from '../modules/keys/keys-service.js';
import type { KeyPrincipal } from '../modules/keys/keys-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key speaks for, and what it may do; set on every authenticated route. */
    principal: KeyPrincipal;
    /** Why the key was refused, when it was. */
    authError: AppError | null;
  }
  interface FastifyContextConfig {
    /**
     * The least scope a key needs for this route: `read` for what only reads (GET, a trace, the
     * change stream, export), `write` for what changes rules or groups, `admin` for workspace settings.
     * Every /v1 route declares it; one that does not is refused at start.
     */
    scope?: KeyScope;
  }
}

/** What an issued key looks like; anything else is refused without a database look-up. */
const KEY_FORM = /^rk_[A-Za-z0-9_-]{20,128}$/;

type Resolved = { principal: KeyPrincipal } | { error: AppError };

/**
 * Who the x-api-key header speaks for, or why it is refused; synchronous when nothing needs the
 * database (no key, a malformed key, a cached key), so the common request awaits nothing.
 */
export function resolveApiKey(
  header: string | string[] | undefined,
  keys: KeysService,
): Resolved | Promise<Resolved> {
  if (header === undefined || header === '') return { error: new AppError('API_KEY_REQUIRED') };
  if (typeof header !== 'string' || !KEY_FORM.test(header)) return { error: new AppError('API_KEY_INVALID') };
  const checked = keys.check(header);
  return checked instanceof Promise ? checked.then(resolved) : resolved(checked);
}

function resolved(checked: KeyCheck): Resolved {
  if ('principal' in checked) return checked;
  if (checked.refused === 'unknown') return { error: new AppError('API_KEY_INVALID') };
  return { error: new AppError('API_KEY_INVALID', [expiryDetail(checked.expiredAt)]) };
}

export function apiKeyAuthPlugin(app: FastifyInstance, keys: KeysService): void {
  app.decorateRequest('principal', null as unknown as KeyPrincipal);
  app.decorateRequest('authError', null);

  // A route that forgot to say what it needs would be open to every key, or closed to all: neither
  // may happen quietly.
  app.addHook('onRoute', (route) => {
    if (!isKeyScope(route.config?.scope)) {
      throw new Error(
        `${route.method} ${route.url} declares no key scope (config.scope: read, write or admin)`,
      );
    }
  });

  function remember(request: FastifyRequest, result: Resolved): void {
    if ('principal' in result) request.principal = result.principal;
    else request.authError = result.error;
  }

  // The key is resolved first and refused later, so that the rate limiter (which runs in between)
  // can count requests by key, and requests without a valid key by client address.
  app.addHook('onRequest', (request, _reply, done) => {
    const result = resolveApiKey(request.headers['x-api-key'], keys);
    if (!(result instanceof Promise)) {
      remember(request, result);
      return done();
    }
    result.then((found) => {
      remember(request, found);
      done();
    }, done);
  });

  // Step 1 of the order of checks (http/checks.ts): the key, then its scope and its user's role,
  // the smaller of which says what it may do.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const { principal, authError } = request;
    const refused =
      authError ??
      accessRefusal(principal.scope, principal.role, request.routeOptions.config.scope as KeyScope);
    if (refused) return done(refused);
    done(null, payload);
  });
}
