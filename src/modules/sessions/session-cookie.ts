// The session's cookie: its name, how it is set and cleared, and how a request's is read. Parsing and
// serialising are the `cookie` package's (jshttp's, which Fastify's and Express's cookie plugins use).
import { parseCookie, stringifySetCookie } from 'cookie';

/** Over HTTPS the `__Host-` prefix binds the cookie to this origin: no subdomain can set or shadow it. */
export const SECURE_COOKIE = '__Host-rk_session';
/** Over plain HTTP (a laptop's localhost) browsers refuse `__Host-` cookies: this name instead. */
export const PLAIN_COOKIE = 'rk_session';

/** The session cookie's value in a Cookie header; the secure one wins when both are sent. */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const cookies = parseCookie(cookieHeader);
  return cookies[SECURE_COOKIE] ?? cookies[PLAIN_COOKIE];
}

/** The Set-Cookie header that gives the browser `token` until `expiresAt` (epoch ms). */
export function sessionCookie(token: string, expiresAt: number, secure: boolean): string {
  return stringifySetCookie({
    name: secure ? SECURE_COOKIE : PLAIN_COOKIE,
    value: token,
    httpOnly: true,
    // Lax: sent when a person follows a link here (their console opens signed in), never with a
    // cross-site POST; writes also need the CSRF token.
    sameSite: 'lax',
    secure,
    path: '/',
    expires: new Date(expiresAt),
  });
}

/** The Set-Cookie header that makes the browser forget the session cookie. */
export function clearedCookie(secure: boolean): string {
  return stringifySetCookie({
    name: secure ? SECURE_COOKIE : PLAIN_COOKIE,
    value: '',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    expires: new Date(0),
  });
}
