// HTTP routes of /v1/webhooks: thin handlers over the webhooks service. Every route needs an admin's
// power (an `admin` key of an admin or owner, or an admin's session): a webhook sends the workspace's
// changes elsewhere.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { paged } from '../../http/replies.js';
import { ALWAYS, BODY, errorResponses, header, success } from '../../http/responses.js';
import { deleted, page, single } from '../../http/schemas.js';
import {
  ChangedWebhook,
  Delivery,
  DeliveryListQuery,
  DeliveryParams,
  NewWebhook,
  Webhook,
  WebhookCreate,
  WebhookListQuery,
  WebhookParams,
  WebhookUpdate,
} from './webhooks-schemas.js';
import type { WebhooksService } from './webhooks-service.js';

type WithWebhook = { Params: { webhookId: string } };
type WithDelivery = { Params: { webhookId: string; deliveryId: string } };

const ROLE = 'Role needed: admin (an `admin` key of an admin or owner).';

export function registerWebhooksRoutes(app: FastifyInstance, webhooks: WebhooksService): void {
  const common = { tags: ['webhooks'], security: [{ apiKey: [] }] };

  app.get(
    '/webhooks',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'listWebhooks',
        summary: "List the workspace's webhooks",
        description: `${ROLE} Never their secrets.`,
        querystring: WebhookListQuery,
        response: {
          200: success('A page of webhooks, oldest first.', page(Webhook)),
          ...errorResponses('INVALID_QUERY', 'UNAUTHORIZED_ACTION', ...ALWAYS),
        },
      },
    },
    async (request) => paged(await webhooks.list(request.principal, request.query)),
  );

  app.post(
    '/webhooks',
    {
      config: { scope: 'admin', bodyError: 'WEBHOOK_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'createWebhook',
        summary: 'Make a webhook: signed deliveries of rule, group and change-request events',
        description:
          `${ROLE} The answer holds the signing secret, this once: it is never shown again. A workspace ` +
          'has at most 20 webhooks. The URL must be http(s), and its host must resolve to public addresses ' +
          'only, unless the operator set `WEBHOOK_ALLOW_PRIVATE=true`.',
        body: WebhookCreate,
        response: {
          201: success('The webhook made, its secret shown this once.', single(NewWebhook), {
            headers: {
              Location: header('The new webhook.', { examples: ['/v1/webhooks/whk_3k9x0b2m7q1z'] }, true),
              'Cache-Control': header(
                'The secret is in the body: kept by no cache.',
                { enum: ['no-store'] },
                true,
              ),
            },
          }),
          ...errorResponses(
            'WEBHOOK_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'WEBHOOK_LIMIT',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await webhooks.create(request.principal, request.body, request.ip);
      reply.code(201).header('location', `/v1/webhooks/${data.id}`).header('cache-control', 'no-store');
      return { success: true, data };
    },
  );

  app.get<WithWebhook>(
    '/webhooks/:webhookId',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'getWebhook',
        summary: 'Get a webhook',
        description: `${ROLE} Never its secret. Another workspace's webhook is not found.`,
        params: WebhookParams,
        response: {
          200: success('The webhook.', single(Webhook)),
          ...errorResponses('UNAUTHORIZED_ACTION', 'WEBHOOK_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await webhooks.get(request.principal, request.params.webhookId),
    }),
  );

  app.patch<WithWebhook>(
    '/webhooks/:webhookId',
    {
      config: { scope: 'admin', bodyError: 'WEBHOOK_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'updateWebhook',
        summary: "Change a webhook's URL, events, description or state, or rotate its secret",
        description:
          `${ROLE} With \`rotateSecret: true\` the answer holds a new secret, this once, and the old one ` +
          'signs nothing more. Deliveries of an inactive webhook wait (until their day runs out).',
        params: WebhookParams,
        body: WebhookUpdate,
        response: {
          200: success('The webhook changed.', single(ChangedWebhook), {
            headers: {
              'Cache-Control': header(
                'A new secret may be in the body: kept by no cache.',
                { enum: ['no-store'] },
                true,
              ),
            },
          }),
          ...errorResponses(
            'WEBHOOK_PAYLOAD_INVALID',
            'UNAUTHORIZED_ACTION',
            'WEBHOOK_NOT_FOUND',
            ...BODY,
            ...ALWAYS,
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await webhooks.update(
        request.principal,
        request.params.webhookId,
        request.body,
        request.ip,
      );
      reply.header('cache-control', 'no-store');
      return { success: true, data };
    },
  );

  app.delete<WithWebhook>(
    '/webhooks/:webhookId',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook and its deliveries',
        description: `${ROLE} Its pending deliveries are not sent.`,
        params: WebhookParams,
        response: {
          200: success('The webhook is removed.', deleted(Type.String({ examples: ['Webhook removed'] }))),
          ...errorResponses('UNAUTHORIZED_ACTION', 'WEBHOOK_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => {
      await webhooks.remove(request.principal, request.params.webhookId, request.ip);
      return { success: true, message: 'Webhook removed' };
    },
  );

  app.get<WithWebhook>(
    '/webhooks/:webhookId/deliveries',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'listWebhookDeliveries',
        summary: "A webhook's deliveries, newest first, with every attempt",
        description: `${ROLE} At most 100 per page, whatever \`pageSize\` asks.`,
        params: WebhookParams,
        querystring: DeliveryListQuery,
        response: {
          200: success('A page of deliveries, newest first.', page(Delivery)),
          ...errorResponses('INVALID_QUERY', 'UNAUTHORIZED_ACTION', 'WEBHOOK_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) =>
      paged(await webhooks.deliveries(request.principal, request.params.webhookId, request.query)),
  );

  app.post<WithDelivery>(
    '/webhooks/:webhookId/deliveries/:deliveryId/replay',
    {
      config: { scope: 'admin' },
      schema: {
        ...common,
        operationId: 'replayWebhookDelivery',
        summary: 'Send a delivery again',
        description:
          `${ROLE} Queues a new attempt now, with the same event id and body; it is retried with ` +
          'backoff for a day from now if it fails.',
        params: DeliveryParams,
        response: {
          200: success('The delivery, queued.', single(Delivery)),
          ...errorResponses('UNAUTHORIZED_ACTION', 'WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND', ...ALWAYS),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await webhooks.replay(request.principal, request.params.webhookId, request.params.deliveryId),
    }),
  );
}
