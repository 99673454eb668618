// HTTP route of /v1/whoami: the key that asks describes itself, so a console, an extension or a CLI
// can say who it is and what it may do.
import type { FastifyInstance } from 'fastify';
import { ALWAYS, errorResponses, success } from '../../http/responses.js';
import { single } from '../../http/schemas.js';
import { Whoami } from './keys-schemas.js';
import type { KeysService } from './keys-service.js';

export function registerKeysRoutes(app: FastifyInstance, keys: KeysService): void {
  app.get(
    '/whoami',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['keys'],
        security: [{ apiKey: [] }],
        operationId: 'whoami',
        summary: 'The key that asks: its name, scope and expiry, its user and its workspace',
        description: 'Any valid key may ask, whatever its scope.',
        response: {
          200: success('The key, its user and its workspace.', single(Whoami)),
          ...errorResponses(...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await keys.whoami(request.principal) }),
  );
}
