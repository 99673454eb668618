// The page-world script (a MAIN-world content script, run before the page's own scripts) injects the
// Script rules' scripts the bridge hands it, and patches `fetch` and
// XMLHttpRequest answer with a Response rule's static body, which Chrome's rules cannot write. Each
// request asks the bridge (and so the worker) whether a Response rule acts on it; when none does, the
// request goes out untouched. A rule that serves without a request answers at once; otherwise the
// request is made and its body replaced.
import type { ScriptEffect } from '../../../src/engine/types.js';
import { inject } from './inject.js';
import { ANSWER_EVENT, ASK_EVENT, INJECT_EVENT, type PageAnswer, type PageAsk } from './messages.js';

type Effect = NonNullable<PageAnswer['response']>;

// The page's own functions, taken before any page script can replace them.
const originalFetch = window.fetch;
const { open, send, setRequestHeader } = XMLHttpRequest.prototype;
const dispatch = EventTarget.prototype.dispatchEvent;

const waiting = new Map<number, (effect: Effect | null) => void>();
let lastId = 0;
/** A bridge that never answers (the extension reloaded under the page) must not hold requests forever. */
const ANSWER_WAIT_MS = 5_000;

window.addEventListener(ANSWER_EVENT, (event) => {
  const detail = (event as CustomEvent<unknown>).detail;
  if (typeof detail !== 'string') return;
  let answer: PageAnswer;
  try {
    answer = JSON.parse(detail) as PageAnswer;
  } catch {
    return; // not the bridge's
  }
  const resolve = waiting.get(answer.id);
  waiting.delete(answer.id);
  resolve?.(answer.response);
});

window.addEventListener(INJECT_EVENT, (event) => {
  const detail = (event as CustomEvent<unknown>).detail;
  if (typeof detail !== 'string') return;
  try {
    inject(JSON.parse(detail) as ScriptEffect[]);
  } catch {
    // Not the bridge's: nothing to inject.
  }
});

function effectFor(url: string, method: string): Promise<Effect | null> {
  const id = ++lastId;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    const ask: PageAsk = { id, url, method };
    dispatch.call(window, new CustomEvent(ASK_EVENT, { detail: JSON.stringify(ask) }));
    setTimeout(() => {
      if (waiting.delete(id)) resolve(null);
    }, ANSWER_WAIT_MS);
  });
}

const absolute = (url: string | URL) => new URL(String(url), document.baseURI).href;
/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The rule's status, in the range a Response can carry (a 1xx other than those becomes 200). */
function statusOf(effect: Effect, real?: { status: number }): number {
  const status = effect.statusCode ?? real?.status ?? 200;
  return status >= 200 && status <= 599 ? status : 200;
}

/** The content type of a body the rule wrote: JSON when it parses as JSON, else text. */
function contentTypeOf(body: string): string {
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'text/plain;charset=UTF-8';
  }
}

function ruleResponse(effect: Effect, url: string, real?: Response): Response {
  const status = statusOf(effect, real);
  const headers = new Headers(real?.headers);
  // The body is the rule's: the real one's length and encoding no longer describe it.
  headers.delete('content-length');
  headers.delete('content-encoding');
  if (!real) headers.set('content-type', contentTypeOf(effect.value));
  const response = new Response(NULL_BODY.has(status) ? null : effect.value, {
    status,
    statusText: effect.statusText ?? '',
    headers,
  });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

window.fetch = function fetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
  const isRequest = input instanceof Request;
  const url = isRequest ? input.url : absolute(input);
  const method = (init?.method ?? (isRequest ? input.method : 'GET')).toUpperCase();
  return effectFor(url, method).then(async (effect) => {
    if (!effect) return originalFetch.call(this, input, init);
    if (effect.serveWithoutRequest) return ruleResponse(effect, url);
    return ruleResponse(effect, url, await originalFetch.call(this, input, init));
  });
};

interface XhrRequest {
  method: string;
  url: string;
  async: boolean;
  headers: [string, string][];
}
const xhrRequests = new WeakMap<XMLHttpRequest, XhrRequest>();

XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, method: string, url: string | URL) {
  // biome-ignore lint/complexity/noArguments: open's optional arguments (async, user, password) pass as given.
  const args = arguments as unknown as Parameters<XMLHttpRequest['open']>;
  xhrRequests.set(this, {
    method: method.toUpperCase(),
    url: absolute(url),
    async: args[2] !== false,
    headers: [],
  });
  return open.apply(this, args);
} as XMLHttpRequest['open'];

XMLHttpRequest.prototype.setRequestHeader = function (this: XMLHttpRequest, name: string, value: string) {
  xhrRequests.get(this)?.headers.push([name, value]);
  return setRequestHeader.call(this, name, value);
};

/** The XHR completes with the rule's response: its state, status and body read as the page asked. */
function complete(xhr: XMLHttpRequest, effect: Effect, url: string, real?: { status: number }): void {
  const status = statusOf(effect, real);
  const body = effect.value;
  const contentType = contentTypeOf(body);
  let response: unknown = body;
  if (xhr.responseType === 'json') {
    try {
      response = JSON.parse(body);
    } catch {
      response = null;
    }
  } else if (xhr.responseType === 'arraybuffer') response = new TextEncoder().encode(body).buffer;
  else if (xhr.responseType === 'blob') response = new Blob([body], { type: contentType });
  else if (xhr.responseType === 'document') response = null;
  const fixed = (value: unknown) => ({ value, configurable: true });
  Object.defineProperties(xhr, {
    readyState: fixed(4),
    status: fixed(status),
    statusText: fixed(effect.statusText ?? ''),
    responseURL: fixed(url),
    response: fixed(response),
    responseText: fixed(xhr.responseType === '' || xhr.responseType === 'text' ? body : ''),
    getResponseHeader: fixed((name: string) => (name.toLowerCase() === 'content-type' ? contentType : null)),
    getAllResponseHeaders: fixed(() => `content-type: ${contentType}\r\n`),
  });
  const size = body.length;
  dispatch.call(xhr, new Event('readystatechange'));
  for (const type of ['load', 'loadend'])
    dispatch.call(xhr, new ProgressEvent(type, { lengthComputable: true, loaded: size, total: size }));
}

XMLHttpRequest.prototype.send = function (
  this: XMLHttpRequest,
  body?: Document | XMLHttpRequestBodyInit | null,
) {
  const request = xhrRequests.get(this);
  // A synchronous request cannot wait for the answer: it goes out as it is.
  if (!request?.async) return send.call(this, body);
  void effectFor(request.url, request.method).then(async (effect) => {
    if (!effect) return send.call(this, body);
    if (effect.serveWithoutRequest) return complete(this, effect, request.url);
    // The request is made (the server sees it) and its answer replaced by the rule's.
    const real = await originalFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: body as BodyInit | null | undefined,
      credentials: this.withCredentials ? 'include' : 'same-origin',
    }).catch(() => undefined);
    complete(this, effect, request.url, real);
  });
};
