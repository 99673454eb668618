// What the engine's outcome means for a real request and its answer: the request as the engine sees
// it, scripts injected into HTML, response headers changed (a rule's `code` runs in code-runner.ts).
import type { Outcome, RequestInput } from '../engine/index.js';
import { tryUrl } from '../engine/request.js';
import type { ResourceType } from '../model/rule-types/source.js';

type Headers = Record<string, string | string[] | undefined>;

/** The header of an answer whose Content-Security-Policy a Script rule removed, saying so. */
export const CSP_NOTE_HEADER = 'x-rulekeeper-csp';

/** The request's type, from what browsers say of it (Sec-Fetch-Dest), else unknown. */
const DESTINATIONS: Record<string, ResourceType> = {
  document: 'main_frame',
  iframe: 'sub_frame',
  frame: 'sub_frame',
  script: 'script',
  worker: 'script',
  style: 'stylesheet',
  image: 'image',
  font: 'font',
  audio: 'media',
  video: 'media',
  track: 'media',
  websocket: 'websocket',
};

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The request as the engine sees it; the page is the Referer (or Origin) the browser sent. */
export function engineInput(url: string, method: string, headers: Headers, body?: string): RequestInput {
  const destination = one(headers['sec-fetch-dest']);
  let resourceType = destination ? DESTINATIONS[destination] : undefined;
  if (destination === 'empty' && one(headers['sec-fetch-mode']) === 'cors') resourceType = 'xmlhttprequest';
  if (one(headers.upgrade)?.toLowerCase() === 'websocket') resourceType = 'websocket';
  const page = one(headers.referer) ?? one(headers.origin);
  const sent: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return {
    url,
    method,
    headers: sent,
    ...(resourceType ? { resourceType } : {}),
    ...(page && tryUrl(page) ? { pageUrl: page } : {}),
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * The answer's note that a Script rule removed the upstream's Content-Security-Policy (its
 * `removeCSPHeader`, the engine's change of the response headers), or undefined: the policy a page
 * declared is not dropped silently.
 */
export function cspNote(upstream: Headers, changed: Headers, outcome: Outcome): string | undefined {
  if (upstream['content-security-policy'] === undefined || changed['content-security-policy'] !== undefined)
    return undefined;
  const scripted = new Set(outcome.scripts.map((script) => script.ruleId));
  const removed = outcome.responseHeaders.some(
    (change) =>
      change.type === 'Remove' &&
      change.header.toLowerCase() === 'content-security-policy' &&
      scripted.has(change.ruleId),
  );
  return removed ? 'removed by the Script rule (removeCSPHeader), so that its scripts run' : undefined;
}

/** The response's headers after the rules' Add, Modify and Remove, in order (names lower-case). */
export function changeResponseHeaders(headers: Headers, changes: Outcome['responseHeaders']): Headers {
  const out: Headers = { ...headers };
  for (const change of changes) {
    const name = change.header.toLowerCase();
    const present = out[name];
    if (change.type === 'Remove') delete out[name];
    else if (change.type === 'Modify') {
      if (present !== undefined) out[name] = change.value ?? '';
    } else {
      const values = present === undefined ? [] : Array.isArray(present) ? present : [present];
      out[name] = values.length === 0 ? (change.value ?? '') : [...values, change.value ?? ''];
    }
  }
  return out;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** One script effect as HTML: inline code or a URL, JavaScript or CSS. */
function scriptTag(script: Outcome['scripts'][number]): string {
  const attributes = (script.attributes ?? [])
    .map((a) => ` ${a.name.replace(/[^A-Za-z0-9_:-]/g, '')}="${escapeAttribute(a.value)}"`)
    .join('');
  const mark = ` data-rulekeeper-rule="${escapeAttribute(script.ruleId)}"`;
  if (script.codeType === 'css') {
    return script.type === 'url'
      ? `<link rel="stylesheet" href="${escapeAttribute(script.value)}"${mark}${attributes}>`
      : `<style${mark}${attributes}>${script.value}</style>`;
  }
  return script.type === 'url'
    ? `<script src="${escapeAttribute(script.value)}"${mark}${attributes}></script>`
    : `<script${mark}${attributes}>${script.value}</script>`;
}

/**
 * The HTML with the scripts in: `beforePageLoad` ones first thing in <head> (before the page's own
 * scripts run), `afterPageLoad` ones last thing in <body>. A document without those tags gets them at
 * its start and end.
 */
export function injectScripts(html: string, scripts: Outcome['scripts']): string {
  const before = scripts
    .filter((s) => s.loadTime !== 'afterPageLoad')
    .map(scriptTag)
    .join('');
  const after = scripts
    .filter((s) => s.loadTime === 'afterPageLoad')
    .map(scriptTag)
    .join('');
  let out = html;
  if (before) {
    const head = /<head\b[^>]*>/i.exec(out);
    const at = head ? head.index + head[0].length : (/<html\b[^>]*>/i.exec(out)?.[0].length ?? 0);
    out = out.slice(0, at) + before + out.slice(at);
  }
  if (after) {
    const close = out.search(/<\/body\s*>/i);
    out = close >= 0 ? out.slice(0, close) + after + out.slice(close) : out + after;
  }
  return out;
}
