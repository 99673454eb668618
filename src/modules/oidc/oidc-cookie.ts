// The cookie that ties a browser to the sign-in it started: a random id (the state, nonce and PKCE
// verifier stay in the database, under its hash), HttpOnly, SameSite=Lax (the provider's redirect back
// is a top-level GET from another site, which Lax lets it travel with), for 10 minutes.
import { ownCookie } from '../../http/cookies.js';

const cookie = ownCookie('rk_oidc');

/** The sign-in's id in a Cookie header. */
export const loginToken = (cookieHeader: string | undefined) => cookie.read(cookieHeader);

/** The Set-Cookie header of a sign-in started now, `maxAgeMs` long; an empty `token` clears it. */
export const loginCookie = (token: string, maxAgeMs: number, secure: boolean) =>
  cookie.set(token, { maxAge: Math.floor(maxAgeMs / 1000) }, secure);
