// The OpenID provider as the service speaks to it, through openid-client (panva's, certified): discovery,
// the authorization URL with PKCE, state and nonce, and the code exchange whose checks (state, the
// issuer, PKCE, the ID token's signature, audience, expiry and nonce) are all the library's. Nothing
// here reads a token by hand.
import * as client from 'openid-client';
import type { OidcConfig } from '../../config.js';

/** How long a request to the provider may take before the sign-in is answered `unavailable`. */
const PROVIDER_TIMEOUT_S = 10;

/** What a sign-in under way must keep until its callback. */
export interface LoginChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** What the provider vouched for about the person. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

/** The provider could not be reached (discovery or a request failed on the network): try again later. */
export class ProviderUnavailable extends Error {
  constructor(readonly reason: string) {
    super('the OpenID provider could not be reached');
  }
}

export function createOidcClient(config: OidcConfig) {
  const issuer = new URL(config.issuer);
  let discovered: Promise<client.Configuration> | undefined;

  /**
   * The provider's configuration, read once on first use (not at start: a provider that is down then
   * must not keep the service from starting); a failed discovery is tried again by the next sign-in.
   */
  function configuration(): Promise<client.Configuration> {
    discovered ??= client
      .discovery(issuer, config.clientId, undefined, client.ClientSecretBasic(config.clientSecret), {
        timeout: PROVIDER_TIMEOUT_S,
        // config.ts allows http:// only for a provider on loopback.
        ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw new ProviderUnavailable(describe(error));
      });
    return discovered;
  }

  return {
    /** Where to send the browser, and the checks its callback must pass. */
    async authorizationUrl(redirectUri: string): Promise<{ url: string; checks: LoginChecks }> {
      const found = await configuration();
      const checks: LoginChecks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(found, {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, checks };
    },

    /**
     * Exchanges the code of `callbackUrl` (the redirect URI with the provider's query) for tokens and
     * answers who the validated ID token names, with the email from its claims or else from userinfo
     * (providers put it in one or the other). Throws the library's error when any check fails.
     */
    async identity(callbackUrl: URL, checks: LoginChecks): Promise<ProviderIdentity> {
      const found = await configuration();
      const tokens = await client.authorizationCodeGrant(found, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('no ID token');
      let { email, email_verified: emailVerified } = claims as { email?: unknown; email_verified?: unknown };
      if (email === undefined) {
        // The subject is checked by the library: userinfo of another person is refused.
        const info = await client.fetchUserInfo(found, tokens.access_token, claims.sub);
        email = info.email;
        emailVerified = info.email_verified;
      }
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof email === 'string' ? email : undefined,
        emailVerified: emailVerified === true,
      };
    },
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;

/**
 * A failure for the log: the library's error name, code and words (static texts naming at most a
 * claim), and the provider's OAuth error; never a token, a code or a body the provider sent.
 */
export function describe(error: unknown): string {
  if (error instanceof ProviderUnavailable) return error.reason;
  if (!(error instanceof Error)) return 'unknown';
  const { code, error: oauthError } = error as { code?: unknown; error?: unknown };
  const parts = [error.name, code, oauthError].filter((part) => typeof part === 'string');
  // openid-client wraps oauth4webapi's error, whose words say which check failed.
  const inner = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${[...new Set(parts)].join(' ')}: ${error.message}${inner}`;
}
