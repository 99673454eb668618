// A browser's part of a redirect flow over plain fetch: cookies kept per host (as browsers do, whatever
// the port), sent back, and redirects followed one at a time so that a test can stop at any hop.
import { parseSetCookie } from 'cookie';

export class CookieJar {
  private readonly hosts = new Map<string, Map<string, string>>();

  /** The value of a cookie the jar holds for `url`'s host. */
  get(url: string, name: string): string | undefined {
    return this.hosts.get(new URL(url).hostname)?.get(name);
  }

  set(url: string, name: string, value: string): void {
    const host = new URL(url).hostname;
    if (!this.hosts.has(host)) this.hosts.set(host, new Map());
    this.hosts.get(host)?.set(name, value);
  }

  /** One request, without following a redirect; the cookies it sets are kept. */
  async fetch(url: string): Promise<Response> {
    const cookies = [...(this.hosts.get(new URL(url).hostname) ?? [])];
    const response = await fetch(url, {
      redirect: 'manual',
      headers: cookies.length > 0 ? { cookie: cookies.map(([n, v]) => `${n}=${v}`).join('; ') } : {},
    });
    for (const header of response.headers.getSetCookie()) {
      const cookie = parseSetCookie(header);
      const gone =
        cookie.value === '' ||
        cookie.maxAge === 0 ||
        (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now());
      if (gone) this.hosts.get(new URL(url).hostname)?.delete(cookie.name);
      else this.set(url, cookie.name, cookie.value ?? '');
    }
    return response;
  }

  /**
   * Follows redirects from `url` until an answer is not one, or until the next URL passes `stop`:
   * that URL, not yet requested, is answered then.
   */
  async follow(
    url: string,
    stop: (next: URL) => boolean = () => false,
  ): Promise<{ url: string; response?: Response }> {
    let current = url;
    for (let hop = 0; hop < 20; hop++) {
      if (stop(new URL(current))) return { url: current };
      const response = await this.fetch(current);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, response };
      await response.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }
}
