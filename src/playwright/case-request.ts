// How runRuleTests makes a case's request in a real page, and what the page shows of it. A GET of a
// document is a page load (page.goto); a request with another method or a body, or of type
// xmlhttprequest, is a fetch() made by a page at the case's page URL, or at the URL's origin (a blank
// page the helper serves, so that the fetch is same-origin and its answer readable). What a page can
// neither make nor read is said, with the reason, instead of being run.
import type { Page } from '@playwright/test';

/** How a case's request is made, or why it is not. */
export type CasePlan =
  | { as: 'load'; referer?: string }
  | { as: 'fetch'; from: string; method: string; body?: string }
  | { as: 'skip'; why: string };

/** What the page showed of the case's request. */
export interface Shown {
  /** Where the request landed (its last URL), when it was not cancelled. */
  url?: string;
  redirected: boolean;
  cancelled: boolean;
  status?: number;
  body?: string;
}

/** Why a page cannot make, or read, a request of each other type. */
const UNMADE: Record<string, string> = {
  sub_frame: "a frame's load shows the page neither its status nor, across origins, its body",
  stylesheet: "a stylesheet's load shows the page only whether it applied, not its status or body",
  script: "a script's load shows the page only whether it ran, not its status or body",
  image: "an image's load shows the page only whether it decoded, not its status or body",
  font: "a font's load shows the page only whether it applied, not its status or body",
  media: 'a media load shows the page only whether it played, not its status or body',
  websocket: 'a WebSocket is not answered over HTTP: the page sees no status or body',
  ping: "a ping's answer is never shown to the page",
  other: 'a page makes no request of an unknown type',
};

const httpUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:/i.test(value);

/** How the case's request is made in a page. */
export function planOf(request: Record<string, unknown>): CasePlan {
  const url = String(request.url);
  const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
  const body = typeof request.body === 'string' ? request.body : undefined;
  const type = request.resourceType;
  const pageUrl = httpUrl(request.pageUrl) ? request.pageUrl : undefined;
  if (type === undefined || type === 'main_frame') {
    if (method === 'GET' && body === undefined)
      return { as: 'load', ...(pageUrl ? { referer: pageUrl } : {}) };
    if (type === 'main_frame')
      return {
        as: 'skip',
        why: `a page loads a document with a GET, or a form's own encoding of a body, not this ${method}${body === undefined ? '' : ' and its body'}`,
      };
  } else if (type !== 'xmlhttprequest') {
    return { as: 'skip', why: UNMADE[String(type)] ?? `a page makes no ${String(type)} request` };
  }
  if (!httpUrl(url)) return { as: 'skip', why: 'a page fetches only http and https URLs' };
  if (body !== undefined && (method === 'GET' || method === 'HEAD'))
    return { as: 'skip', why: `fetch() sends no body with a ${method}` };
  if (method === 'CONNECT' || method === 'TRACE' || method === 'TRACK')
    return { as: 'skip', why: `fetch() refuses the ${method} method` };
  // From the case's page, or from the URL's own origin (a same-origin fetch: its answer is readable).
  const page = new URL(pageUrl ?? `${new URL(url).origin}/`);
  page.hash = ''; // as the browser requests it, for the helper to know it
  const from = page.href;
  return { as: 'fetch', from, method, ...(body === undefined ? {} : { body }) };
}

/** The fetch, made by the page; its answer, or the error it failed with. */
export async function fetchIn(
  page: Page,
  url: string,
  plan: Extract<CasePlan, { as: 'fetch' }>,
): Promise<{ url: string; redirected: boolean; status: number; body: string } | { error: string }> {
  return page.evaluate(
    async ({ url, method, body }) => {
      try {
        const answer = await fetch(url, { method, ...(body === undefined ? {} : { body }) });
        return {
          url: answer.url,
          redirected: answer.redirected,
          status: answer.status,
          body: await answer.text(),
        };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, method: plan.method, body: plan.body },
  );
}
