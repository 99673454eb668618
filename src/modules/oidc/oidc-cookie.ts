// The cookie that ties a browser to the sign-in it started: a random id (the state, nonce and PKCE
// verifier stay in the database, under its hash), HttpOnly, SameSite=Lax (the provider's redirect back
// is a top-level GET from another site, which Lax lets it travel with), for 10 minutes.
import { parseCookie, stringifySetCookie } from 'cookie';

const SECURE_COOKIE = '__Host-rk_oidc';
const PLAIN_COOKIE = 'rk_oidc';

export function loginToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const cookies = parseCookie(cookieHeader);
  return cookies[SECURE_COOKIE] ?? cookies[PLAIN_COOKIE];
}

/** The Set-Cookie header of a sign-in started now, `maxAgeMs` long; an empty `token` clears it. */
export function loginCookie(token: string, maxAgeMs: number, secure: boolean): string {
  return stringifySetCookie({
    name: secure ? SECURE_COOKIE : PLAIN_COOKIE,
    value: token,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}
