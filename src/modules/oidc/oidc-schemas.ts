// Shapes of GET /v1/session/providers: the ways a person may sign in here, so that the console shows
// the single-sign-on button only when it can work.
import { Type } from '@sinclair/typebox';

export const SignInProviders = Type.Object(
  {
    password: Type.Boolean({
      description: 'Email and password (`POST /v1/session`): always offered.',
    }),
    oidc: Type.Optional(
      Type.Object(
        {
          start: Type.String({
            description:
              'Where the browser goes (a navigation, not a fetch) to sign in through the OpenID provider; ' +
              'it comes back to the console signed in, or with `?sso_error=` and a short code.',
            examples: ['/auth/oidc/start'],
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $id: 'SignInProviders',
    additionalProperties: false,
    description: 'The ways to sign in; `oidc` is there only when single sign-on is configured.',
    examples: [{ password: true, oidc: { start: '/auth/oidc/start' } }],
  },
);
