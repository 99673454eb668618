// Schemas of /v1/webhooks: a webhook as listed (never its secret), the one just made or rotated (its
// secret, this once), the bodies that make and change one, and a delivery with its attempts.
import { type Static, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { Timestamp } from '../../model/common.js';
import { compile } from '../../validation.js';
import { EVENT_TYPES } from './webhook-events.js';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION = 500;

const EventType = Type.Union(
  EVENT_TYPES.map((type) => Type.Literal(type)),
  {
    description:
      '`rules.changed`: one per revision that changed rules or groups (an import too), listing its first ' +
      '100 changes and their count. `change_request.*`: a change request opened, updated, reviewed, ' +
      'merged or closed.',
  },
);

const Events = Type.Union(
  [Type.Array(EventType, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }), Type.Null()],
  {
    description: 'The events sent; null: every event, those added later too.',
    examples: [['rules.changed']],
  },
);

const WebhookId = Type.String({ description: "The webhook's id.", examples: ['whk_3k9x0b2m7q1z'] });

export const Webhook = Type.Object(
  {
    id: WebhookId,
    url: Type.String({
      description: 'Where deliveries are POSTed.',
      examples: ['https://hooks.example.com/rulekeeper'],
    }),
    description: Type.Union([Type.String(), Type.Null()], { examples: ['Team chat'] }),
    events: Events,
    active: Type.Boolean({ description: 'false: nothing is sent; its pending deliveries wait.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'Webhook',
    additionalProperties: false,
    description: "A workspace's webhook, as listed: never its signing secret.",
    examples: [
      {
        id: 'whk_3k9x0b2m7q1z',
        url: 'https://hooks.example.com/rulekeeper',
        description: 'Team chat',
        events: ['rules.changed'],
        active: true,
        createdAt: 1763856000000,
        updatedAt: 1763856000000,
      },
    ],
  },
);
export type Webhook = Static<typeof Webhook>;

const Secret = Type.String({
  description:
    'The signing secret (HMAC-SHA256 of `t.body`, in `Rulekeeper-Signature`): shown this once, never again.',
  pattern: '^whsec_[A-Za-z0-9_-]{43}$',
  examples: ['whsec_Zk3q9v0m2b7x1c4n6aa8dd5ee0ff3gg9hh2jj4kk7lm'],
});

export const NewWebhook = Type.Object(
  { ...Webhook.properties, secret: Secret },
  { $id: 'NewWebhook', additionalProperties: false, description: 'The webhook made, its secret shown once.' },
);
export type NewWebhook = Static<typeof NewWebhook>;

export const ChangedWebhook = Type.Object(
  { ...Webhook.properties, secret: Type.Optional(Secret) },
  {
    $id: 'ChangedWebhook',
    additionalProperties: false,
    description: 'The webhook changed; with `rotateSecret`, its new secret, shown once.',
  },
);
export type ChangedWebhook = Static<typeof ChangedWebhook>;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'An http or https URL without user or password, whose host resolves to public addresses only (unless ' +
    'the operator sets `WEBHOOK_ALLOW_PRIVATE=true`); checked again at every send.',
  examples: ['https://hooks.example.com/rulekeeper'],
});
const Description = Type.Union([Type.String({ maxLength: MAX_DESCRIPTION }), Type.Null()], {
  description: 'Up to 500 characters.',
});

export const WebhookCreate = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    active: Type.Optional(Type.Boolean()),
  },
  {
    $id: 'WebhookCreate',
    additionalProperties: false,
    examples: [{ url: 'https://hooks.example.com/rulekeeper', events: ['rules.changed'] }],
  },
);
export const checkWebhookCreate = compile(WebhookCreate);
export type WebhookCreate = Static<typeof WebhookCreate>;

export const WebhookUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    active: Type.Optional(Type.Boolean()),
    rotateSecret: Type.Optional(
      Type.Boolean({
        description: 'true: a new secret, in the answer this once; the old one stops at once.',
      }),
    ),
  },
  {
    $id: 'WebhookUpdate',
    additionalProperties: false,
    examples: [{ active: false }, { rotateSecret: true }],
  },
);
export const checkWebhookUpdate = compile(WebhookUpdate);
export type WebhookUpdate = Static<typeof WebhookUpdate>;

export const WebhookParams = Type.Object({
  webhookId: Type.String({
    // Documented with its form, so that no client (nor the fuzz) takes an empty id for one.
    pattern: '^whk_[0-9a-z]{1,64}$',
    description: "The webhook's id, as GET /v1/webhooks lists it; any other is not found.",
    examples: ['whk_3k9x0b2m7q1z'],
  }),
});

export const DeliveryParams = Type.Object({
  webhookId: WebhookParams.properties.webhookId,
  deliveryId: Type.String({
    pattern: '^dlv_[0-9a-z_]{1,160}$',
    description: "The delivery's id, as the webhook's deliveries list it; any other is not found.",
    examples: ['dlv_r42_3k9x0b2m7q1z'],
  }),
});

const webhookListQuery = (checked: boolean) =>
  Type.Object({ ...pageQuery(checked) }, { additionalProperties: false });
export const WebhookListQuery = webhookListQuery(false);
export const checkWebhookListQuery = compile(webhookListQuery(true));

const DeliveryState = Type.Union(
  [Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')],
  {
    description:
      '`pending`: not yet answered 2xx, retried with backoff; `delivered`; `failed`: retried for a day.',
  },
);

const deliveryListQuery = (checked: boolean) =>
  Type.Object(
    { ...pageQuery(checked), state: Type.Optional(DeliveryState) },
    { additionalProperties: false },
  );
export const DeliveryListQuery = deliveryListQuery(false);
export const checkDeliveryListQuery = compile(deliveryListQuery(true));

export const Attempt = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    at: Timestamp,
    durationMs: Type.Integer({ minimum: 0 }),
    statusCode: Type.Union([Type.Integer(), Type.Null()], {
      description: "The receiver's status; null: no answer.",
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed; null: delivered.' }),
    response: Type.Union([Type.String(), Type.Null()], {
      description: "The first 1,000 characters of the receiver's answer.",
    }),
  },
  { $id: 'WebhookAttempt', additionalProperties: false },
);

export const Delivery = Type.Object(
  {
    id: Type.String({ examples: ['dlv_r42_3k9x0b2m7q1z'] }),
    eventId: Type.String({ description: 'The `id` of the body, the same for every webhook told of it.' }),
    type: EventType,
    state: DeliveryState,
    createdAt: Timestamp,
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When it is tried next; null: not again.',
    }),
    giveUpAt: Timestamp,
    deliveredAt: Type.Union([Timestamp, Type.Null()]),
    attempts: Type.Array(Attempt, { description: 'Every attempt, oldest first.' }),
  },
  {
    $id: 'WebhookDelivery',
    additionalProperties: false,
    description: 'One event sent (or to be sent) to a webhook.',
  },
);
export type Delivery = Static<typeof Delivery>;
