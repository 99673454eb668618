// Shapes of people: a user as the API shows them, the workspaces they belong to, and the sign-in body.
import { type Static, Type } from '@sinclair/typebox';
import { RoleSchema } from '../../model/role.js';
import { compile, describePattern } from '../../validation.js';
import { MAX_PASSWORD_LENGTH } from './passwords.js';

/**
 * Enough to refuse what cannot be an address (no spaces or controls, one @, a dot in the domain);
 * whether one receives mail, only mail tells. Spelled without `\s`, which regex dialects read apart.
 */
export const EMAIL_PATTERN =
  '^[^@\\u0000-\\u0020]{1,64}@[^@\\u0000-\\u0020]{1,255}\\.[^@\\u0000-\\u0020]{1,63}$';
describePattern(EMAIL_PATTERN, 'must be an email address');
export const MAX_EMAIL_LENGTH = 320;

/** Emails are compared lower-cased and without surrounding spaces. */
export const normalEmail = (email: string) => email.trim().toLowerCase();

export const Email = Type.String({
  pattern: EMAIL_PATTERN,
  maxLength: MAX_EMAIL_LENGTH,
  description: 'Compared lower-cased.',
  examples: ['alice@example.com'],
});

export const User = Type.Object(
  {
    id: Type.String({ examples: ['usr_p2f8w0c4n6aa'] }),
    name: Type.String({ examples: ['Alice'] }),
    email: Type.Union([Email, Type.Null()], {
      description: 'Null for a user made by `keys create --user` and not yet given one.',
    }),
  },
  { $id: 'User', additionalProperties: false },
);
export type User = Static<typeof User>;

export const UserWorkspace = Type.Object(
  {
    id: Type.String({ examples: ['ws_7hq2m5t1v9bb'] }),
    name: Type.String({ examples: ['default'] }),
    role: RoleSchema,
  },
  {
    $id: 'UserWorkspace',
    additionalProperties: false,
    description: 'A workspace the user belongs to, and their role there.',
  },
);
export type UserWorkspace = Static<typeof UserWorkspace>;

export const Credentials = Type.Object(
  {
    email: Type.String({ maxLength: MAX_EMAIL_LENGTH, examples: ['alice@example.com'] }),
    password: Type.String({
      minLength: 1,
      maxLength: MAX_PASSWORD_LENGTH,
      examples: ['correct horse battery'],
    }),
  },
  { $id: 'Credentials', additionalProperties: false },
);
export const checkCredentials = compile(Credentials);

/** What a user with a password is made from (the CLI, an invite, the setup link). */
export interface NewUser {
  email: string;
  name?: string;
  password: string;
}
