// Schemas of GET /v1/whoami (the key that asks, its user and its workspace) and of /v1/keys.
import { type Static, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { EPOCH_MS_BIGINT, NOT_TRIMMED, Timestamp } from '../../model/common.js';
import { ENVIRONMENT_NAME_PATTERN } from '../../model/environment-names.js';
import { RoleSchema } from '../../model/role.js';
import { compile } from '../../validation.js';
import { KEY_SCOPES } from './key-scopes.js';

const Named = (what: string, idExample: string, nameExample: string) =>
  Type.Object(
    {
      id: Type.String({ examples: [idExample] }),
      name: Type.String({ description: `The ${what}'s name.`, examples: [nameExample] }),
    },
    { additionalProperties: false },
  );

export const Scope = Type.Union(
  KEY_SCOPES.map((scope) => Type.Literal(scope)),
  {
    description:
      '`read`: read rules, groups, history and changes, trace, export. `write`: also create, change, ' +
      'delete, import and restore. `admin`: also change workspace settings (no such route exists yet).',
  },
);

const KeyEnvironment = Type.Union([Type.String({ pattern: ENVIRONMENT_NAME_PATTERN.source }), Type.Null()], {
  description:
    'The environment its evaluations use when they name none (`rulekeeper keys create --environment`); ' +
    'null: `default`.',
  examples: ['staging'],
});

export const Whoami = Type.Object(
  {
    key: Type.Union(
      [
        Type.Object(
          {
            id: Type.String({
              description: 'The id `rulekeeper keys list` shows.',
              examples: ['key_3k9x0b2m7q1z'],
            }),
            name: Type.Union([Type.String(), Type.Null()], {
              description: 'The name the operator gave the key (`--name`); null when none.',
              examples: ['CI reader'],
            }),
            scope: Scope,
            expiresAt: Type.Union([Timestamp, Type.Null()], {
              description: 'When the key stops working (epoch milliseconds); null: never.',
            }),
            createdAt: Timestamp,
            environment: KeyEnvironment,
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The key that asks; null for a person signed in with a session (no key).' },
    ),
    user: Type.Object(
      {
        ...Named('user', 'usr_p2f8w0c4n6aa', 'alice').properties,
        role: RoleSchema,
      },
      { additionalProperties: false },
    ),
    workspace: Named('workspace', 'ws_7hq2m5t1v9bb', 'default'),
  },
  {
    $id: 'Whoami',
    additionalProperties: false,
    description: 'The key that asks: who it speaks for, in which workspace, what it may do and until when.',
    examples: [
      {
        key: {
          id: 'key_3k9x0b2m7q1z',
          name: 'CI reader',
          scope: 'read',
          expiresAt: 1766448000000,
          createdAt: 1763856000000,
          environment: null,
        },
        user: { id: 'usr_p2f8w0c4n6aa', name: 'alice', role: 'editor' },
        workspace: { id: 'ws_7hq2m5t1v9bb', name: 'default' },
      },
    ],
  },
);
export type Whoami = Static<typeof Whoami>;

/** A key's name: 1 to 100 characters after trimming, none of them a control character. */
export const MAX_KEY_NAME = 100;
/** The latest time a JavaScript date (and so an expiry shown as ISO text) can hold. */
export const MAX_EXPIRY = 8_640_000_000_000_000;

/** Control characters (C0, DEL, C1): names are printed by `keys list` and shown in consoles. */
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
/**
 * A key's name as the document states it: no control character, and at least one that trimming keeps
 * and that is no control character (NOT_TRIMMED, `[^…]`, with the control characters added).
 */
export const KEY_NAME_PATTERN = `^[^${CONTROL}]*[^${CONTROL}${NOT_TRIMMED.slice(2)}[^${CONTROL}]*$`;

const KeyId = Type.String({
  description: "The key's id (never the key itself).",
  examples: ['key_3k9x0b2m7q1z'],
});

/** A key as its owner and the workspace's admins see it: never the key itself, never its hash. */
export const Key = Type.Object(
  {
    id: KeyId,
    name: Type.Union([Type.String(), Type.Null()], {
      description: 'The name given the key; null for keys made by `rulekeeper keys create` without `--name`.',
      examples: ['CI reader'],
    }),
    scope: Scope,
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the key stops working (epoch milliseconds); null: never.',
    }),
    createdAt: Timestamp,
    revokedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the key was revoked (epoch milliseconds); null: it was not.',
    }),
    user: Type.Object(
      {
        id: Type.String({ examples: ['usr_p2f8w0c4n6aa'] }),
        name: Type.String({ description: "The user's name.", examples: ['alice'] }),
      },
      { additionalProperties: false, description: 'Whose key it is.' },
    ),
    service: Type.Boolean({
      description:
        'true: a workspace key for a machine, whose user is a service user (it cannot sign in); ' +
        "false: a member's personal key.",
    }),
    environment: KeyEnvironment,
  },
  {
    $id: 'Key',
    additionalProperties: false,
    description: 'An API key of the workspace, as listed: what it may do, until when, and whose it is.',
    examples: [
      {
        id: 'key_3k9x0b2m7q1z',
        name: 'CI reader',
        scope: 'read',
        expiresAt: 1766448000000,
        createdAt: 1763856000000,
        revokedAt: null,
        user: { id: 'svc_q8d2k4m9x1ab', name: 'CI reader (service q8d2k4m9)' },
        service: true,
        environment: 'staging',
      },
    ],
  },
);
export type Key = Static<typeof Key>;

/** A key just made: as listed, and the key itself, shown this once. */
export const NewKey = Type.Object(
  {
    ...Key.properties,
    key: Type.String({
      description: 'The key, for `x-api-key`: shown this once, never again (only its hash is kept).',
      pattern: '^rk_[A-Za-z0-9_-]{43}$',
      examples: ['rk_Zk3q9v0m2b7x1c4n6aa8dd5ee0ff3gg9hh2jj4kk7l'],
    }),
  },
  {
    $id: 'NewKey',
    additionalProperties: false,
    description: 'The key made: shown once.',
    examples: [
      {
        id: 'key_7m2x9q4b1z0c',
        name: "Alice's laptop",
        scope: 'write',
        expiresAt: null,
        createdAt: 1763856000000,
        revokedAt: null,
        user: { id: 'usr_p2f8w0c4n6aa', name: 'alice' },
        service: false,
        environment: null,
        key: 'rk_Zk3q9v0m2b7x1c4n6aa8dd5ee0ff3gg9hh2jj4kk7l',
      },
    ],
  },
);
export type NewKey = Static<typeof NewKey>;

/** The body of POST /v1/keys, its name as documented (`documented`) or as checked (keys-input.ts). */
const keyCreateBody = (documented: boolean) =>
  Type.Object(
    {
      name: documented
        ? Type.String({
            pattern: KEY_NAME_PATTERN,
            maxLength: MAX_KEY_NAME,
            description: '1 to 100 characters after trimming; no control characters.',
            examples: ['CI reader'],
          })
        : Type.String(),
      scope: Scope,
      expiresAt: Type.Optional(
        Type.Union(
          [Type.Integer({ minimum: 1, maximum: MAX_EXPIRY, description: EPOCH_MS_BIGINT }), Type.Null()],
          {
            description:
              'When the key stops working (epoch milliseconds), in the future; absent or null: never. ' +
              'A key made with a key that expires expires no later than it.',
            examples: [1766448000000],
          },
        ),
      ),
      service: Type.Optional(
        Type.Boolean({
          description:
            'true: a workspace key for a machine (admins and owners only), for a new service user that ' +
            'becomes a member with the role the scope stands for; false (the default): a personal key.',
        }),
      ),
      environment: Type.Optional(
        Type.Union(
          [
            documented ? Type.String({ pattern: ENVIRONMENT_NAME_PATTERN.source }) : Type.String(),
            Type.Null(),
          ],
          {
            description:
              "An environment of the workspace the key's evaluations use when they name none (a trace's " +
              '`environment`, `?environment=`); absent or null: `default`. While the key works, the ' +
              'environment cannot be deleted.',
            examples: ['staging'],
          },
        ),
      ),
    },
    documented
      ? {
          $id: 'KeyCreate',
          additionalProperties: false,
          examples: [
            { name: "Alice's laptop", scope: 'write' },
            { name: 'CI reader', scope: 'read', expiresAt: 1766448000000, service: true },
          ],
        }
      : { additionalProperties: false },
  );
export const KeyCreate = keyCreateBody(true);
export const checkKeyCreate = compile(keyCreateBody(false));
export type KeyCreate = Static<typeof KeyCreate>;

export const KeyParams = Type.Object({
  id: Type.String({
    pattern: '^key_[a-z0-9]{1,64}$',
    description: "The key's id, as GET /v1/keys lists it; any other is not found.",
    examples: ['key_3k9x0b2m7q1z'],
  }),
});

/** The query of GET /v1/keys, as documented or as checked (`checked`: see pageQuery). */
const keyListQuery = (checked: boolean) =>
  Type.Object(
    {
      ...pageQuery(checked),
      state: Type.Optional(
        Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')], {
          description: 'Only keys that work (`active`), were revoked, or expired (and were not revoked).',
        }),
      ),
    },
    { additionalProperties: false },
  );
export const KeyListQuery = keyListQuery(false);
export const checkKeyListQuery = compile(keyListQuery(true));
