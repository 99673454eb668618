// What the rules do to an answer, applied to the client's response as the upstream's answer is written
// to it, so that an answer streams through (with the client's backpressure) unless a rule needs it
// whole: hop-by-hop headers are dropped from every answer; header changes apply to the head; a static
// Response replaces the body without reading the upstream's; Response code and Script injection read
// the body whole, up to `maxBodyBytes`, past which the answer streams unchanged and the log names the
// rules that were skipped.
import { type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Outcome } from '../engine/index.js';
import { CodeError } from './code-runner.js';
import { CSP_NOTE_HEADER, changeResponseHeaders, cspNote, injectScripts } from './effects.js';
import { stripFlat } from './hop-by-hop.js';

type Headers = Record<string, string | string[] | undefined>;

/** What the rules decided for a request's answer, once it is forwarded upstream. */
export interface AnswerPlan {
  rules: string;
  method: string;
  url: string;
  outcome: Outcome;
}

export interface AnswerOptions {
  maxBodyBytes: number;
  /** A Response rule's code (undefined when the proxy does not run code: the answer is then kept). */
  runCode(source: string, args: Record<string, unknown>): string | undefined;
  log(message: string): void;
}

export const RULES_HEADER = 'x-rulekeeper-rules';

type WriteHead = (status: number, headers?: OutgoingHttpHeaders | string[]) => ServerResponse;
type Callback = (error?: Error | null) => void;

function flatten(args: unknown[]): { status: number; flat: string[] } {
  const status = args[0] as number;
  const last = args[args.length - 1];
  const raw = typeof last === 'object' && last !== null ? last : {};
  const flat: string[] = [];
  if (Array.isArray(raw)) {
    if (Array.isArray(raw[0]))
      for (const [name, value] of raw as string[][]) flat.push(String(name), String(value));
    else for (const item of raw) flat.push(String(item));
  } else {
    for (const [name, value] of Object.entries(raw as Headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) flat.push(name, String(one));
    }
  }
  return { status, flat };
}

function toObject(flat: string[]): Headers {
  const out: Headers = {};
  for (let i = 0; i < flat.length; i += 2) {
    const name = (flat[i] ?? '').toLowerCase();
    const value = flat[i + 1] ?? '';
    const present = out[name];
    out[name] =
      present === undefined ? value : Array.isArray(present) ? [...present, value] : [present, value];
  }
  return out;
}

function decode(body: Buffer, encoding: string): Buffer | undefined {
  switch (encoding.trim().toLowerCase()) {
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    default:
      return undefined;
  }
}

/** The headers of a body the proxy wrote itself: its own length, no encoding the body no longer has. */
function ownBody(headers: Headers, body: string | Buffer): Headers {
  const out = { ...headers };
  delete out['content-encoding'];
  delete out['transfer-encoding'];
  out['content-length'] = String(Buffer.byteLength(body));
  return out;
}

/**
 * Wraps `response.writeHead` (before mockttp wraps it in turn) so that every answer written to the
 * client goes through the plan the rules made for it, if any.
 */
export function rewriteAnswers(
  response: ServerResponse,
  planOf: () => AnswerPlan | undefined,
  options: AnswerOptions,
  onHead: () => void,
): void {
  const realWriteHead = response.writeHead.bind(response) as WriteHead;
  response.writeHead = function writeHead(...args: unknown[]) {
    onHead();
    // mockttp removes Node's own Connection and Transfer-Encoding so that the upstream's pass as they
    // are; those are dropped below, so Node frames this hop itself again (chunked when it has no
    // length, keep-alive as the client asked), as any server does.
    const own = response as unknown as { _removedConnection: boolean; _removedTE: boolean };
    own._removedConnection = false;
    own._removedTE = false;
    const { status, flat } = flatten(args);
    const stripped = stripFlat(flat);
    const plan = planOf();
    if (!plan) return realWriteHead(status, stripped);
    const { outcome } = plan;
    const upstream = toObject(stripped);
    const headers = changeResponseHeaders(upstream, outcome.responseHeaders);
    const note = cspNote(upstream, headers, outcome);
    if (note) headers[CSP_NOTE_HEADER] = note;
    headers[RULES_HEADER] = plan.rules;
    const mock = outcome.response && !outcome.response.serveWithoutRequest ? outcome.response : undefined;
    const noBody = plan.method === 'HEAD' || status === 204 || status === 304;
    if (mock?.type === 'static') {
      // The reason phrase of the rule's status, not the upstream's ("404 OK" otherwise).
      response.statusMessage = mock.statusText ?? STATUS_CODES[mock.statusCode] ?? '';
      replaceBody(response, realWriteHead, mock.statusCode, headers, mock.value);
      return response;
    }
    const wantsCode = mock?.type === 'code';
    const html = /text\/html/i.test(String(headers['content-type'] ?? ''));
    const wantsScripts = outcome.scripts.length > 0 && html && !noBody;
    if ((!wantsCode && !wantsScripts) || noBody) return realWriteHead(status, headers as OutgoingHttpHeaders);
    readWhole(response, realWriteHead, status, headers, plan, options);
    return response;
  } as typeof response.writeHead;
}

/** A static Response: its value instead of the upstream's body, which is read and dropped. */
function replaceBody(
  response: ServerResponse,
  realWriteHead: WriteHead,
  status: number,
  headers: Headers,
  value: string,
): void {
  realWriteHead(status, ownBody(headers, value) as OutgoingHttpHeaders);
  const realEnd = response.end.bind(response);
  response.write = ((_chunk: unknown, encoding?: unknown, done?: unknown) => {
    const callback = (typeof encoding === 'function' ? encoding : done) as Callback | undefined;
    if (callback) process.nextTick(callback);
    return true;
  }) as typeof response.write;
  response.end = ((..._args: unknown[]) => realEnd(value)) as typeof response.end;
}

/** Code and scripts: the body read whole within the limit, then changed; past it, streamed unchanged. */
function readWhole(
  response: ServerResponse,
  realWriteHead: WriteHead,
  status: number,
  headers: Headers,
  plan: AnswerPlan,
  options: AnswerOptions,
): void {
  const realWrite = response.write.bind(response) as (chunk: Buffer, callback?: Callback) => boolean;
  const realEnd = response.end.bind(response) as (chunk?: Buffer | string, callback?: () => void) => void;
  const chunks: Buffer[] = [];
  let size = 0;
  const { outcome } = plan;
  const needing = () =>
    [
      outcome.response?.type === 'code' ? outcome.response.ruleId : undefined,
      ...outcome.scripts.map((s) => s.ruleId),
    ]
      .filter((id): id is string => !!id)
      .filter((id, i, all) => all.indexOf(id) === i)
      .join(', ');
  const unchanged = (why: string) => {
    options.log(`rules ${needing()} skipped for ${plan.method} ${plan.url}: ${why}`);
    restore(response);
    realWriteHead(status, headers as OutgoingHttpHeaders);
  };
  const asBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');

  response.write = ((chunk: unknown, encoding?: unknown, done?: unknown) => {
    const callback = (typeof encoding === 'function' ? encoding : done) as Callback | undefined;
    const buffer = asBuffer(chunk, encoding);
    if (size + buffer.length > options.maxBodyBytes) {
      unchanged(`the answer is larger than --max-body-bytes (${options.maxBodyBytes})`);
      for (const held of chunks.splice(0)) realWrite(held);
      return realWrite(buffer, callback);
    }
    chunks.push(buffer);
    size += buffer.length;
    if (callback) process.nextTick(callback);
    return true;
  }) as typeof response.write;

  response.end = ((chunk?: unknown, encoding?: unknown, done?: unknown) => {
    const callback = [chunk, encoding, done].find((a) => typeof a === 'function') as (() => void) | undefined;
    if (chunk !== undefined && typeof chunk !== 'function') {
      const buffer = asBuffer(chunk, encoding);
      if (size + buffer.length > options.maxBodyBytes) {
        unchanged(`the answer is larger than --max-body-bytes (${options.maxBodyBytes})`);
        for (const held of chunks.splice(0)) realWrite(held);
        realEnd(buffer, callback);
        return response;
      }
      chunks.push(buffer);
    }
    const whole = Buffer.concat(chunks);
    const decoded = decodeOrUndefined(whole, String(headers['content-encoding'] ?? ''));
    if (!decoded) {
      unchanged(`its content-encoding (${headers['content-encoding']}) cannot be read`);
      realEnd(whole, callback);
      return response;
    }
    let answer = status;
    let body: string | undefined;
    const mock = outcome.response;
    try {
      if (mock?.type === 'code') {
        const value = options.runCode(mock.value, {
          method: plan.method,
          url: plan.url,
          response: decoded.toString('utf8'),
          responseType: headers['content-type'],
          statusCode: status,
        });
        if (value !== undefined) [answer, body] = [mock.statusCode, value];
      }
    } catch (error) {
      if (!(error instanceof CodeError)) throw error;
      const message = `${error.message}\n`;
      restore(response);
      realWriteHead(500, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(Buffer.byteLength(message)),
        [RULES_HEADER]: plan.rules,
      });
      realEnd(message, callback);
      return response;
    }
    const out = { ...headers };
    // The policy that would block them, if the rules say so, went with the head (cspNote).
    if (outcome.scripts.length > 0 && /text\/html/i.test(String(out['content-type'] ?? '')))
      body = injectScripts(body ?? decoded.toString('utf8'), outcome.scripts);
    restore(response);
    if (body === undefined) {
      realWriteHead(answer, ownBody(out, decoded) as OutgoingHttpHeaders);
      realEnd(decoded, callback);
    } else {
      realWriteHead(answer, ownBody(out, body) as OutgoingHttpHeaders);
      realEnd(body, callback);
    }
    return response;
  }) as typeof response.end;
}

function decodeOrUndefined(body: Buffer, encoding: string): Buffer | undefined {
  try {
    return decode(body, encoding);
  } catch {
    return undefined;
  }
}

/** The response's own write and end again (the wrappers above are own properties over them). */
function restore(response: ServerResponse): void {
  Reflect.deleteProperty(response, 'write');
  Reflect.deleteProperty(response, 'end');
}
