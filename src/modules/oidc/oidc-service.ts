// Single sign-on with OpenID Connect: the rules. A sign-in starts with random state, nonce and PKCE
// verifier kept server-side under a cookie's random id (single use, 10 minutes), and ends when the
// provider's callback passes every check of openid-client; then the person the provider vouched for is
// found by the identity linked before (issuer and `sub`), or linked the first time by their verified
// email, and signed in as a password would sign them in (sessions.open). Every refusal is one short
// code the console shows; why is said only in the log, without a code, token or secret.
import { randomBytes } from 'node:crypto';
import type { OidcConfig } from '../../config.js';
import { hashApiKey } from '../../ids.js';
import type { InvitesService } from '../invites/invites-service.js';
import type { SessionsService, SessionView } from '../sessions/sessions-service.js';
import { normalEmail } from '../users/users-schemas.js';
import type { UsersStore } from '../users/users-store.js';
import { describe, type OidcClient, ProviderUnavailable } from './oidc-client.js';
import type { OidcStore } from './oidc-store.js';

/** How long a started sign-in may take at the provider. */
export const LOGIN_TTL_MS = 10 * 60_000;
/** What the login cookie's value looks like (32 random bytes, base64url). */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

/** Why a single sign-on was refused, as the console's address says it (`?sso_error=`). */
export const SSO_REFUSALS = {
  unavailable: 'the provider could not be reached; try again later',
  expired: 'no sign-in was under way in this browser: it was finished, abandoned, or took over 10 minutes',
  failed: "the provider's answer failed a check (state, nonce, code, ID token), or the provider refused",
  email_unverified: 'the provider did not vouch for an email address (email_verified)',
  domain_not_allowed: "the email's domain is not one of OIDC_ALLOWED_DOMAINS",
  no_access: 'no user of this service has that identity or email, or they are disabled or in no workspace',
} as const;
export type SsoRefusalCode = keyof typeof SSO_REFUSALS;

export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoRefusalCode,
    /** For the log alone. */
    readonly reason: string,
  ) {
    super(SSO_REFUSALS[code]);
  }
}

/** Whether openid-client failed to reach the provider, rather than the provider's answer failing. */
function unreachable(error: unknown): boolean {
  if (error instanceof ProviderUnavailable) return true;
  const name = (error as { name?: unknown })?.name;
  return (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    (error instanceof TypeError && error.message === 'fetch failed')
  );
}

export function createOidcService(deps: {
  config: OidcConfig;
  client: Pick<OidcClient, 'authorizationUrl' | 'identity'>;
  store: OidcStore;
  users: Pick<UsersStore, 'findByIdentity' | 'findByEmailForSso' | 'linkIdentity' | 'workspacesOf'>;
  sessions: Pick<SessionsService, 'open'>;
  /** Someone new whose verified email has invites pending joins through them. */
  invites: Pick<InvitesService, 'joinBySso'>;
  now?: () => number;
}) {
  const { config, client, store, users } = deps;
  const now = deps.now ?? Date.now;

  /** The user the provider's identity signs in, linked to it the first time; or the refusal. */
  async function personOf(issuer: string, subject: string, email: string, address: string): Promise<string> {
    const linked = await users.findByIdentity(issuer, subject);
    const user = linked ?? (await users.findByEmailForSso(normalEmail(email)));
    if (!user) {
      const joined = await deps.invites.joinBySso(normalEmail(email), { issuer, subject }, address);
      if (joined) return joined;
      throw new SsoRefusal(
        'no_access',
        'no user has this identity or email, and no invite is pending for it',
      );
    }
    // An email is a way to find someone once; after that the identity is who they are. A user linked
    // to another identity of this provider is not taken over by whoever now shows their email.
    if (!linked && user.oidcSubject !== null && user.oidcIssuer === issuer)
      throw new SsoRefusal('no_access', 'the email belongs to a user linked to another identity');
    if (user.disabledAt !== null) throw new SsoRefusal('no_access', 'the user is disabled');
    if ((await users.workspacesOf(user.id)).length === 0)
      throw new SsoRefusal('no_access', 'the user is a member of no workspace');
    if (!linked && !(await users.linkIdentity(user.id, issuer, subject)))
      throw new SsoRefusal('no_access', 'the user was linked to another identity meanwhile');
    return user.id;
  }

  return {
    /**
     * A new sign-in: the provider's authorization URL to send the browser to, and the value of the
     * login cookie that will let its callback finish it.
     */
    async start(redirectUri: string): Promise<{ url: string; token: string }> {
      const at = now();
      await store.sweep(at);
      let started: Awaited<ReturnType<typeof client.authorizationUrl>>;
      try {
        started = await client.authorizationUrl(redirectUri);
      } catch (error) {
        throw new SsoRefusal(unreachable(error) ? 'unavailable' : 'failed', describe(error));
      }
      const token = randomBytes(32).toString('base64url');
      await store.insert(hashApiKey(token), { ...started.checks, redirectUri, expiresAt: at + LOGIN_TTL_MS });
      return { url: started.url, token };
    },

    /**
     * The provider's callback: `query` is its query string as received, `token` the login cookie's
     * value, `previous` a session cookie the browser already had (it ends). A new session, or a refusal.
     */
    async finish(input: {
      token: string | undefined;
      query: string;
      address: string;
      previous: string | undefined;
    }): Promise<{ token: string; view: SessionView }> {
      if (input.token === undefined || !TOKEN_FORM.test(input.token))
        throw new SsoRefusal('expired', 'no login cookie');
      // Taken whatever follows: a sign-in is tried once.
      const login = await store.take(hashApiKey(input.token));
      if (!login || login.expiresAt <= now()) throw new SsoRefusal('expired', 'no such sign-in under way');
      const callbackUrl = new URL(login.redirectUri);
      callbackUrl.search = input.query;
      let identity: Awaited<ReturnType<typeof client.identity>>;
      try {
        identity = await client.identity(callbackUrl, login);
      } catch (error) {
        throw new SsoRefusal(unreachable(error) ? 'unavailable' : 'failed', describe(error));
      }
      const { email } = identity;
      if (email === undefined || !identity.emailVerified)
        throw new SsoRefusal('email_unverified', 'no verified email in the claims');
      const domain = normalEmail(email).split('@').pop() ?? '';
      if (config.allowedDomains !== undefined && !config.allowedDomains.includes(domain))
        throw new SsoRefusal('domain_not_allowed', `the domain ${domain} is not allowed`);
      const userId = await personOf(identity.issuer, identity.subject, email, input.address);
      return deps.sessions.open(userId, input.address, input.previous, 'sso');
    },
  };
}

export type OidcService = ReturnType<typeof createOidcService>;
