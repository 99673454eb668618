// The service's own cookies (the session, a single sign-on under way): HttpOnly, SameSite=Lax, for the
// whole origin, and over HTTPS `Secure` with the `__Host-` prefix, which binds a cookie to this origin
// (no subdomain can set or shadow it). Parsing and serialising are the `cookie` package's (jshttp's,
// which Fastify's and Express's cookie plugins use), not ours.
import { parseCookie, stringifySetCookie } from 'cookie';

export interface OwnCookie {
  /** The cookie's value in a Cookie header; the secure one wins when both are sent. */
  read(cookieHeader: string | undefined): string | undefined;
  /**
   * The Set-Cookie header that gives the browser `value` until a moment (`expires`) or for so many
   * seconds (`maxAge`: no clock of the browser's in it); `maxAge: 0` clears it.
   */
  set(value: string, until: { expires: Date } | { maxAge: number }, secure: boolean): string;
}

/** A cookie named `name` (`__Host-name` over HTTPS; browsers refuse that prefix over plain HTTP). */
export function ownCookie(name: string): OwnCookie {
  const secureName = `__Host-${name}`;
  return {
    read(cookieHeader) {
      if (!cookieHeader) return undefined;
      const cookies = parseCookie(cookieHeader);
      return cookies[secureName] ?? cookies[name];
    },
    set(value, until, secure) {
      return stringifySetCookie({
        name: secure ? secureName : name,
        value,
        httpOnly: true,
        // Lax: sent when a person follows a link here (their console opens signed in, a provider
        // redirects back), never with a cross-site POST.
        sameSite: 'lax',
        secure,
        path: '/',
        ...until,
      });
    },
  };
}
