// The session's cookie: `rk_session` (`__Host-rk_session` over HTTPS). Writes made with it also need
// the session's CSRF token.
import { ownCookie } from '../../http/cookies.js';

const cookie = ownCookie('rk_session');

/** The session cookie's value in a Cookie header. */
export const sessionToken = (cookieHeader: string | undefined) => cookie.read(cookieHeader);

/** The Set-Cookie header that gives the browser `token` until `expiresAt` (epoch ms). */
export const sessionCookie = (token: string, expiresAt: number, secure: boolean) =>
  cookie.set(token, { expires: new Date(expiresAt) }, secure);

/** The Set-Cookie header that makes the browser forget the session cookie. */
export const clearedCookie = (secure: boolean) => cookie.set('', { expires: new Date(0) }, secure);
