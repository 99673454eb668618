// Requestly's functions in header values, evaluated per request: `rq_request_initiator_origin()` (its
// "Bypass CORS" rule answers with it) and `rq_rand(N)`.
import { MAX_RANDOM_DIGITS } from '../../model/rule-types/header-functions.js';
import type { EngineRequest } from '../request.js';
import { tryUrl } from '../request.js';

const FUNCTION = /rq_request_initiator_origin\(\)|rq_rand\((\d+)\)/g;

/** The request's `Origin` header, else the origin of the page that sent it, else `*`. */
function initiatorOrigin(request: EngineRequest): string {
  const origin = request.headers.get('origin')?.[0];
  if (origin) return origin;
  const page = request.pageUrl === undefined ? undefined : tryUrl(request.pageUrl);
  return page && page.origin !== 'null' ? page.origin : '*';
}

/**
 * Web Crypto (global in Node 20 and in browsers), not `node:crypto`: the engine also runs in a browser
 * service worker. Bytes of 250 or more are drawn again so that every digit is equally likely.
 */
function randomDigits(count: number): string {
  let digits = '';
  const bytes = new Uint8Array(count * 2);
  while (digits.length < count) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) if (byte < 250 && digits.length < count) digits += String(byte % 10);
  }
  return digits;
}

/** `value` with each function call replaced by its value for `request`. */
export function evaluateHeaderValue(value: string, request: EngineRequest): string {
  if (!value.includes('rq_')) return value;
  return value.replace(FUNCTION, (call, digits: string | undefined) => {
    if (digits === undefined) return initiatorOrigin(request);
    const count = Number(digits);
    return count >= 1 && count <= MAX_RANDOM_DIGITS ? randomDigits(count) : call;
  });
}
