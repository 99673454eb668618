// Shapes of /v1/session: signing in, and what a signed-in person sees of their session.
import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../model/common.js';
import { User, UserWorkspace } from '../users/users-schemas.js';

export const Session = Type.Object(
  {
    user: User,
    workspaces: Type.Array(UserWorkspace, {
      description:
        'Every workspace the person belongs to, oldest membership first; `x-rk-workspace` picks one ' +
        '(the first without it).',
    }),
    csrfToken: Type.String({
      description:
        'Send it in `x-rk-csrf` with every change made with this session (POST, PUT, PATCH, DELETE); ' +
        'a change without it is refused. A new one comes with every answer; all of them stay valid.',
      examples: ['vZ3h8Q2d-5c0f2b9e1d7a4c3b8e6f0a1d2c3b4a5f6e7d8c9'],
    }),
    expiresAt: Timestamp,
  },
  {
    $id: 'Session',
    additionalProperties: false,
    description: 'The signed-in person, the workspaces they belong to, and the CSRF token of their session.',
    examples: [
      {
        user: { id: 'usr_p2f8w0c4n6aa', name: 'Alice', email: 'alice@example.com' },
        workspaces: [{ id: 'ws_7hq2m5t1v9bb', name: 'default', role: 'owner' }],
        csrfToken: 'vZ3h8Q2d-5c0f2b9e1d7a4c3b8e6f0a1d2c3b4a5f6e7d8c9',
        expiresAt: 1766448000000,
      },
    ],
  },
);

export const SignOutQuery = Type.Object({
  everywhere: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: '`true` ends every session of the person, on every device, not only this one.',
    }),
  ),
});
