// The x-api-key check in front of every /v1 resource route: 401 without a valid key.
import type { FastifyInstance } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import type { KeysService } from '../modules/keys/keys-service.js';
import type { Principal } from '../modules/keys/keys-store.js';

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

/** Who the x-api-key header speaks for, or why it is refused. */
export async function resolveApiKey(
  header: string | string[] | undefined,
  keys: KeysService,
): Promise<{ principal: Principal } | { error: ErrorCode }> {
  if (header === undefined || header === '') return { error: 'API_KEY_REQUIRED' };
  const principal =
    typeof header === 'string' && KEY_FORM.test(header) ? await keys.authenticate(header) : undefined;
  return principal ? { principal } : { error: 'API_KEY_INVALID' };
}

export function apiKeyAuthPlugin(app: FastifyInstance, keys: KeysService): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('authError', null);

  // The key is resolved first and refused later, so that the rate limiter (which runs in between)
  // can count requests by key, and requests without a valid key by client address.
  app.addHook('onRequest', async (request) => {
    const key = request.headers['x-api-key'];
    if (key === undefined || key === '') {
      request.authError = 'API_KEY_REQUIRED';
      return;
    }
    const principal =
      typeof key === 'string' && KEY_FORM.test(key) ? await keys.authenticate(key) : undefined;
    if (principal) request.principal = principal;
    else request.authError = 'API_KEY_INVALID';
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.authError) throw new AppError(request.authError);
    return payload;
  });
}
