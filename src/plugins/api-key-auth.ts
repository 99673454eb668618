// The x-api-key check in front of every /v1 resource route: 401 without a valid key.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import type { KeysService } from '../modules/keys/keys-service.js';
import type { Principal } from '../modules/keys/keys-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key speaks for; set on every authenticated route. */
    principal: Principal;
  }
}

/** What an issued key looks like; anything else is refused without a database look-up. */
const KEY_FORM = /^rk_[A-Za-z0-9_-]{20,128}$/;

export function apiKeyAuthPlugin(app: FastifyInstance, keys: KeysService): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const key = request.headers['x-api-key'];
    if (key === undefined || key === '') throw new AppError('API_KEY_REQUIRED');
    if (typeof key !== 'string' || !KEY_FORM.test(key)) throw new AppError('API_KEY_INVALID');
    const principal = await keys.authenticate(key);
    if (!principal) throw new AppError('API_KEY_INVALID');
    request.principal = principal;
  });
}
