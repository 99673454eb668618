// One delivery attempt over HTTP: a POST to the address that was checked (webhook-address.ts), with
// its Host and TLS server name kept, cut off at the deadline whatever the receiver does (never
// answers, never reads, answers forever), redirects not followed, and at most a few KB of the answer
// read.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Target } from './webhook-address.js';

/** Bytes of the receiver's answer read at most; the rest is not waited for. */
export const MAX_RESPONSE_BYTES = 4096;
/** Characters of the answer kept with the attempt. */
export const RESPONSE_EXCERPT_CHARS = 1000;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SendOutcome {
  /** The answer's status; null when there was none. */
  status: number | null;
  /** Why the attempt failed, in words; null when it succeeded (a 2xx). */
  error: string | null;
  /** The first characters of the answer; null when there was none. */
  response: string | null;
  durationMs: number;
}

/** Text safe to keep in either database: no NUL, no lone surrogate. */
const storable = (text: string) => text.replaceAll(String.fromCharCode(0), '\ufffd').toWellFormed();

/** A lookup that answers the checked address, whatever the name resolves to now. */
const pinnedLookup =
  (target: Target): LookupFunction =>
  (_hostname, options, callback) => {
    const done = callback as (...args: unknown[]) => void;
    if ((options as { all?: boolean }).all) done(null, [{ address: target.address, family: target.family }]);
    else done(null, target.address, target.family);
  };

export function send(
  target: Target,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; timers: Timers; signal?: AbortSignal },
): Promise<SendOutcome> {
  const started = performance.now();
  const { url } = target;
  const secure = url.protocol === 'https:';
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      options.timers.clearTimeout(deadline);
      options.signal?.removeEventListener('abort', aborted);
      const text =
        size > 0 ? storable(Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS)) : null;
      resolve({ status, error, response: text, durationMs: Math.round(performance.now() - started) });
      request.destroy();
    };
    const request = (secure ? https : http).request({
      protocol: url.protocol,
      // The checked address, reached through the lookup below; the name stays the Host and TLS's SNI.
      host: target.hostname,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        ...headers,
        host: url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Rulekeeper-Webhooks/1',
      },
      lookup: pinnedLookup(target),
      // A connection of its own: a pooled one may lead to an address checked for another name.
      agent: false,
      ...(secure ? { servername: target.hostname } : {}),
    });
    const deadline = options.timers.setTimeout(
      () => finish(`timed out after ${options.timeoutMs} ms`),
      options.timeoutMs,
    );
    const aborted = () => finish('the service stopped before the answer came');
    options.signal?.addEventListener('abort', aborted);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish(`could not be sent: ${error.code ?? error.message}`.slice(0, 200)),
    );
    request.on('response', (response) => {
      status = response.statusCode ?? null;
      const outcome = () => {
        if (status !== null && status >= 200 && status < 300) return null;
        if (status !== null && status >= 300 && status < 400)
          return `answered ${status}, a redirect: not followed (a webhook's URL must answer itself)`;
        return `answered ${status}`;
      };
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) {
          chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
          size += Math.min(chunk.length, MAX_RESPONSE_BYTES - size);
        }
        // Enough read: the rest is not waited for.
        if (size >= MAX_RESPONSE_BYTES) finish(outcome());
      });
      response.on('end', () => finish(outcome()));
      response.on('error', () => finish(outcome() ?? 'the answer was cut off'));
    });
    request.end(body);
  });
}
