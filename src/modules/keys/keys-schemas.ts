// Schemas of GET /v1/whoami: the key that asks, its user and its workspace.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp } from '../../model/common.js';
import { RoleSchema } from '../../model/role.js';
import { KEY_SCOPES } from './key-scopes.js';

const Named = (what: string, idExample: string, nameExample: string) =>
  Type.Object(
    {
      id: Type.String({ examples: [idExample] }),
      name: Type.String({ description: `The ${what}'s name.`, examples: [nameExample] }),
    },
    { additionalProperties: false },
  );

const Scope = Type.Union(
  KEY_SCOPES.map((scope) => Type.Literal(scope)),
  {
    description:
      '`read`: read rules, groups, history and changes, trace, export. `write`: also create, change, ' +
      'delete, import and restore. `admin`: also change workspace settings (no such route exists yet).',
  },
);

export const Whoami = Type.Object(
  {
    key: Type.Object(
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
      },
      { additionalProperties: false },
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
        },
        user: { id: 'usr_p2f8w0c4n6aa', name: 'alice', role: 'editor' },
        workspace: { id: 'ws_7hq2m5t1v9bb', name: 'default' },
      },
    ],
  },
);
export type Whoami = Static<typeof Whoami>;
