// The x-api-key check in front of every /v1 resource route: 401 without a valid key.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import type { Principal } from '../model/principal.js';
import type { KeysService } from '../modules/keys/keys-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key speaks for; set on every authenticated route. */
    principal: Principal;
    /** Why the key was refused, when it was. */
    authError: ErrorCode | null;
  }
}

/** What an issued key looks like; anything else is refused without a database look-up. */
const KEY_FORM = /^rk_[A-Za-z0-9_-]{20,128}$/;

type Resolved = { principal: Principal } | { error: ErrorCode };

/**
 * Who the x-api-key header speaks for, or why it is refused; synchronous when nothing needs the
 * database (no key, a malformed key, a cached key), so the common request awaits nothing.
 */
export function resolveApiKey(
  header: string | string[] | undefined,
  keys: KeysService,
): Resolved | Promise<Resolved> {
  if (header === undefined || header === '') return { error: 'API_KEY_REQUIRED' };
  if (typeof header !== 'string' || !KEY_FORM.test(header)) return { error: 'API_KEY_INVALID' };
  const found = keys.authenticate(header);
  return found instanceof Promise ? found.then(resolved) : resolved(found);
}

function resolved(principal: Principal | undefined): Resolved {
  return principal ? { principal } : { error: 'API_KEY_INVALID' };
}

export function apiKeyAuthPlugin(app: FastifyInstance, keys: KeysService): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('authError', null);

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

  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.authError) return done(new AppError(request.authError));
    done(null, payload);
  });
}
