// Shapes of /v1/invites: an invite made, listed and accepted.
import { type Static, Type } from '@sinclair/typebox';
import { DocumentedName, Timestamp } from '../../model/common.js';
import { RoleSchema } from '../../model/role.js';
import { compile } from '../../validation.js';
import { LINK_TOKEN_PATTERN } from '../shared/single-use-links.js';
import { MAX_PASSWORD_LENGTH } from '../users/passwords.js';
import { Email } from '../users/users-schemas.js';

export const InviteCreate = Type.Object(
  {
    email: Email,
    role: RoleSchema,
  },
  {
    $id: 'InviteCreate',
    additionalProperties: false,
    examples: [{ email: 'bob@example.com', role: 'editor' }],
  },
);
export const checkInviteCreate = compile(InviteCreate);

const inviteFields = {
  id: Type.String({ examples: ['inv_4k2m9q7x1c0v3b8n'] }),
  email: Type.Union([Email, Type.Null()], {
    description:
      'Who may accept it; null for the setup link printed on first start (its email is chosen as it is accepted).',
  }),
  role: RoleSchema,
  createdBy: Type.Union([Type.String(), Type.Null()], {
    description: 'The user id of who made it; null when made from the command line or by the server.',
    examples: ['usr_p2f8w0c4n6aa'],
  }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
};

const inviteExample = {
  id: 'inv_4k2m9q7x1c0v3b8n',
  email: 'bob@example.com',
  role: 'editor',
  createdBy: 'usr_p2f8w0c4n6aa',
  createdAt: 1763769600000,
  expiresAt: 1764374400000,
};

export const Invite = Type.Object(inviteFields, {
  $id: 'Invite',
  additionalProperties: false,
  description: 'An invite still to be accepted. Its link is shown once, when it is made, and never again.',
  examples: [inviteExample],
});
export type Invite = Static<typeof Invite>;

export const NewInvite = Type.Object(
  {
    ...inviteFields,
    link: Type.String({
      description:
        'The single-use link to hand to the person (shown this once): the console at PUBLIC_URL (or the ' +
        'address the request came to), `/#/accept?token=…`.',
      examples: ['https://rules.example.com/#/accept?token=pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4'],
    }),
    mailed: Type.Boolean({
      description: 'Whether the link was also mailed to the address (only when SMTP_URL is set).',
    }),
  },
  {
    $id: 'NewInvite',
    additionalProperties: false,
    description: 'The invite made, with its link, shown this once.',
    examples: [
      {
        ...inviteExample,
        link: 'https://rules.example.com/#/accept?token=pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4',
        mailed: false,
      },
    ],
  },
);
export type NewInvite = Static<typeof NewInvite>;

export const InviteAccept = Type.Object(
  {
    token: Type.String({
      pattern: LINK_TOKEN_PATTERN,
      description: 'The `token` of the link.',
      examples: ['pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4'],
    }),
    email: Type.Optional(
      Type.String({
        ...Email,
        description:
          "The setup link's owner's email (required there). An invite's email is its own: leave it out.",
      }),
    ),
    name: Type.Optional(DocumentedName("A new account's display name (the email by default).", ['Bob'])),
    password: Type.String({
      minLength: 1,
      maxLength: MAX_PASSWORD_LENGTH,
      description:
        "A new account's password (12 to 256 characters); when an account with the email exists, its " +
        'current password, which proves the account is yours.',
      examples: ['correct horse battery staple'],
    }),
  },
  {
    $id: 'InviteAccept',
    additionalProperties: false,
    examples: [
      {
        token: 'pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4',
        name: 'Bob',
        password: 'correct horse battery staple',
      },
    ],
  },
);
export const checkInviteAccept = compile(InviteAccept);

export const InviteParams = Type.Object({
  inviteId: Type.String({
    pattern: '^inv_[a-z0-9]{1,64}$',
    description: 'The invite id, as GET /v1/invites lists it; any other is not found.',
    examples: ['inv_4k2m9q7x1c0v3b8n'],
  }),
});
