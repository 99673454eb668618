// Shapes of password resets: a link made by an admin, "forgot password", and setting the new password.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp } from '../../model/common.js';
import { compile } from '../../validation.js';
import { LINK_TOKEN_PATTERN } from '../shared/single-use-links.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../users/passwords.js';
import { Email } from '../users/users-schemas.js';

export const ResetLink = Type.Object(
  {
    userId: Type.String({ examples: ['usr_p2f8w0c4n6aa'] }),
    link: Type.String({
      description:
        'The single-use link (1 hour) to hand to the member (shown this once): the console at ' +
        'PUBLIC_URL (or the address the request came to), `/#/reset?token=…`.',
      examples: ['https://rules.example.com/#/reset?token=pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4'],
    }),
    expiresAt: Timestamp,
    mailed: Type.Boolean({
      description: "Whether the link was also mailed to the member's address (only when SMTP_URL is set).",
    }),
  },
  {
    $id: 'ResetLink',
    additionalProperties: false,
    description: 'A password reset link for a member, shown this once.',
    examples: [
      {
        userId: 'usr_p2f8w0c4n6aa',
        link: 'https://rules.example.com/#/reset?token=pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4',
        expiresAt: 1763773200000,
        mailed: false,
      },
    ],
  },
);
export type ResetLink = Static<typeof ResetLink>;

export const ForgotPassword = Type.Object(
  { email: Email },
  { $id: 'ForgotPassword', additionalProperties: false, examples: [{ email: 'alice@example.com' }] },
);
export const checkForgotPassword = compile(ForgotPassword);

export const NewPassword = Type.Object(
  {
    token: Type.String({
      pattern: LINK_TOKEN_PATTERN,
      description: 'The `token` of the reset link.',
      examples: ['pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4'],
    }),
    password: Type.String({
      minLength: MIN_PASSWORD_LENGTH,
      maxLength: MAX_PASSWORD_LENGTH,
      description: 'The new password, 12 to 256 characters.',
      examples: ['another horse battery staple'],
    }),
  },
  {
    $id: 'NewPassword',
    additionalProperties: false,
    examples: [
      { token: 'pX1u0v9Q7tQ5mY2vKk8bX3wW4gJ6hN0cR1sT2uV3wX4', password: 'another horse battery staple' },
    ],
  },
);
export const checkNewPassword = compile(NewPassword);
