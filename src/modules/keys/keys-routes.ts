// HTTP routes of /v1/whoami (the key that asks describes itself, so a console, an extension or a CLI
// can say who it is and what it may do) and /v1/keys (keys made, listed and revoked by members).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, header, success } from '../../http/responses.js';
import { deleted, page, single } from '../../http/schemas.js';
import type { KeyManagementService } from './key-management-service.js';
import { Key, KeyCreate, KeyListQuery, KeyParams, NewKey, Whoami } from './keys-schemas.js';
import type { KeysService } from './keys-service.js';

type WithId = { Params: { id: string } };

export function registerKeysRoutes(
  app: FastifyInstance,
  keys: KeysService,
  management: KeyManagementService,
): void {
  const common = { tags: ['keys'], security: [{ apiKey: [] }] };

  app.get(
    '/whoami',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
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

  // Every member may list, make and revoke their own keys, a viewer with a `read` key too: so each
  // route needs `read` only, and the service caps what is made or revoked by the caller's power.
  app.get(
    '/keys',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'listKeys',
        summary: 'List keys: your own, or (admins) every key of the workspace',
        description:
          'Role needed: viewer, for your own keys. An admin or owner with an `admin` key sees every key ' +
          "of the workspace, members' personal keys and workspace keys for machines. Never a key " +
          'itself nor its hash; revoked and expired keys are listed too, unless `state` says otherwise.',
        querystring: KeyListQuery,
        response: {
          200: success('A page of keys, oldest first.', page(Key)),
          ...errorResponses('INVALID_QUERY', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await management.list(request.principal, request.query)),
  );

  app.post(
    '/keys',
    {
      config: { scope: 'read', bodyError: 'KEY_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'createKey',
        summary: 'Make a key: a personal key, or (admins) a workspace key for a machine',
        description:
          'Role needed: viewer, for a personal key of a scope your role reaches (viewer: `read`, ' +
          'editor: `write`, admin and owner: `admin`) and your key reaches too: a key makes no key of a ' +
          'broader scope than its own, nor one that outlives it. With `service: true`, admin (an ' +
          '`admin` key of an admin or owner): a workspace key for a new service user, which cannot ' +
          'sign in, made a member with the role its scope stands for. The key is in the answer, this ' +
          'once: it is never shown again.',
        body: KeyCreate,
        response: {
          201: success('The key made, shown this once.', single(NewKey), {
            headers: {
              Location: header(
                'Where the new key is revoked.',
                { examples: ['/v1/keys/key_7m2x9q4b1z0c'] },
                true,
              ),
              'Cache-Control': header(
                'The key is in the body: kept by no cache.',
                { enum: ['no-store'] },
                true,
              ),
            },
          }),
          ...errorResponses('KEY_PAYLOAD_INVALID', 'UNAUTHORIZED_ACTION', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      const data = await management.create(request.principal, request.body, request.ip);
      reply.code(201).header('location', `/v1/keys/${data.id}`).header('cache-control', 'no-store');
      return { success: true, data };
    },
  );

  app.delete<WithId>(
    '/keys/:id',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'revokeKey',
        summary: 'Revoke a key',
        description:
          "Role needed: viewer, for your own key; admin (an `admin` key of an admin or owner) for anyone's " +
          'key in the workspace. The key is refused at once, on every instance. Revoking a key revoked ' +
          "already changes nothing. Another workspace's key is not found. A workspace key's service " +
          'user stops being a member with it.',
        params: KeyParams,
        response: {
          200: success('The key is revoked.', deleted(Type.String({ examples: ['Key revoked'] }))),
          ...errorResponses('UNAUTHORIZED_ACTION', 'KEY_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => {
      await management.revoke(request.principal, request.params.id, request.ip);
      return { success: true, message: 'Key revoked' };
    },
  );
}
