// The proxy's fast path: a request no rule acts on, forwarded by the proxy itself with a keep-alive
// agent per scheme (Node's agents pool connections per origin), before mockttp sees it. Measured under
// the bench, mockttp's way for such a request cost most of the proxy's time: an OngoingRequest with
// its body buffered in parallel, its rule matching, a passthrough that looked up DNS, built its own
// agent options and scanned every open upstream socket for a loop, and its answer tracked for events
// this proxy has no listener for. None of that changes what the client gets for a request no rule
// touches: the upstream's answer, hop-by-hop headers dropped both ways.
//
// Taken here only when the destination is as plain as can be: an absolute-form `http://` request
// (HTTP through the proxy), a request in a CONNECT tunnel to a host name, or plain HTTP in a tunnel to
// an IPv4 address (TLS to an address needs ip-tunnels.ts and mockttp's naming of the upstream), with
// no `Expect`. Everything else, and any
// request some rule acts on or whose body some rule reads, goes on to mockttp as before (proxy-server.ts).
//
// No loop to guard against: what this path sends upstream is in origin form, so a request that comes
// back to the proxy arrives as a direct request, which this path never takes (mockttp's own loop check
// stops it there).
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { LastHopEncrypted, LastTunnelAddress } from 'mockttp/dist/util/socket-extensions';
import { bodyNeedsChunks, stripFlat } from './hop-by-hop.js';

/** Where a request goes: the URL the rules see (as mockttp would write it) and the upstream to ask. */
export interface Target {
  url: string;
  secure: boolean;
  hostname: string;
  port: number;
  /** The request's path and query, as sent upstream. */
  path: string;
}

type TunnelSocket = Socket & { [LastTunnelAddress]?: string; [LastHopEncrypted]?: boolean };

const defaultPort = (secure: boolean) => (secure ? 443 : 80);

/** `host:port` (no brackets: an address is left to mockttp) as hostname and port, if it is one. */
function hostAndPort(host: string, secure: boolean): { hostname: string; port: number } | undefined {
  const colon = host.lastIndexOf(':');
  const hostname = colon === -1 ? host : host.slice(0, colon);
  const port = colon === -1 ? defaultPort(secure) : Number(host.slice(colon + 1));
  if (!hostname || hostname.includes('[') || !Number.isInteger(port) || port < 1 || port > 65_535)
    return undefined;
  return { hostname, port };
}

/** The request's target when the fast path may take it (see the top of this file), else undefined. */
export function plainTarget(request: IncomingMessage): Target | undefined {
  if (request.headers.expect !== undefined || request.httpVersionMajor !== 1) return undefined;
  const url = request.url ?? '';
  if (/^http:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (parsed.username || parsed.password || parsed.hostname.startsWith('[')) return undefined;
    const port = parsed.port ? Number(parsed.port) : 80;
    return {
      url,
      secure: false,
      hostname: parsed.hostname,
      port,
      path: `${parsed.pathname}${parsed.search}`,
    };
  }
  const socket = request.socket as TunnelSocket;
  const tunnel = socket[LastTunnelAddress];
  if (!url.startsWith('/') || typeof tunnel !== 'string') return undefined;
  const secure = socket[LastHopEncrypted] === true;
  const destination = hostAndPort(tunnel, secure);
  if (!destination) return undefined;
  const { hostname, port } = destination;
  let named = hostname;
  if (isIP(hostname)) {
    if (secure) return undefined;
    // As mockttp names a tunnel to an address: by the Host header (the address without one).
    const host = request.headers.host;
    const fromHost = host === undefined ? destination : hostAndPort(host, false);
    if (!fromHost) return undefined;
    named = fromHost.hostname;
  }
  // As mockttp writes it: the default port left out, then normalised by URL.
  const host = port === defaultPort(secure) ? named : `${named}:${port}`;
  let absolute: string;
  try {
    absolute = new URL(`${secure ? 'https' : 'http'}://${host}${url}`).toString();
  } catch {
    return undefined;
  }
  return { url: absolute, secure, hostname, port, path: url };
}

export interface Passthrough {
  forward(request: IncomingMessage, response: ServerResponse, target: Target): void;
  close(): void;
}

/** The fast path's forwarding, with keep-alive connections to the upstreams reused across requests. */
export function createPassthrough(options: {
  upstreamCas?: string[];
  upstreamTimeoutMs: number;
}): Passthrough {
  const plain = new HttpAgent({ keepAlive: true });
  const secure = new HttpsAgent({
    keepAlive: true,
    // The system's roots and --upstream-ca, as mockttp's passthrough trusts, in one context made once:
    // given as `ca`, the roots would be parsed again for each connection and written into the agent's
    // key for its pool on each request.
    ...(options.upstreamCas
      ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...options.upstreamCas] }) }
      : {}),
  });
  return {
    forward(request, response, target) {
      const flat = stripFlat(request.rawHeaders);
      const sent: string[] = [];
      // The proxy's credentials, if any, are the proxy's alone (mockttp drops them too).
      for (let i = 0; i < flat.length; i += 2)
        if (flat[i]?.toLowerCase() !== 'proxy-authorization') sent.push(flat[i] ?? '', flat[i + 1] ?? '');
      if (bodyNeedsChunks(request.headers)) sent.push('Transfer-Encoding', 'chunked');
      // No body: it can be sent again, as below.
      const bodyless =
        request.headers['transfer-encoding'] === undefined &&
        Number(request.headers['content-length'] ?? 0) === 0;
      const retriable =
        bodyless && (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS');
      // The upstream's own Date goes through, not a second one of Node's.
      response.sendDate = false;
      let settled = false;
      let upstream: ClientRequest;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        late(response, options.upstreamTimeoutMs);
        upstream.destroy();
      }, options.upstreamTimeoutMs);
      timer.unref();
      const send = (again: boolean) => {
        upstream = (target.secure ? httpsRequest : httpRequest)({
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: target.path,
          // Node sends raw headers given as a flat list as they are (the client's Host among them).
          headers: sent as unknown as Record<string, string>,
          setHost: false,
          agent: target.secure ? secure : plain,
          ...(target.secure ? { servername: target.hostname } : {}),
        });
        const sentNow = upstream;
        upstream.once('response', (answer: IncomingMessage) => {
          if (settled) {
            answer.destroy();
            return;
          }
          settled = true;
          clearTimeout(timer);
          response.writeHead(answer.statusCode ?? 502, answer.statusMessage, stripFlat(answer.rawHeaders));
          answer.pipe(response);
          // Cut mid-answer: the client's answer is cut too, not ended as if whole.
          answer.once('aborted', () => response.destroy());
        });
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          if (settled) {
            if (!response.writableFinished) response.destroy();
            return;
          }
          // An idle connection the upstream closed as it was reused: a request without a body that
          // changes nothing is sent once more on a fresh one (as Node's documentation advises), rather
          // than answered 502 for a race no client could see coming.
          if (
            !again &&
            retriable &&
            sentNow.reusedSocket &&
            (error.code === 'ECONNRESET' || error.code === 'EPIPE')
          )
            return send(true);
          settled = true;
          clearTimeout(timer);
          // As mockttp answers an upstream that refuses or resets the connection.
          response.writeHead(502, 'Error communicating with upstream server', {
            'content-type': 'text/plain; charset=utf-8',
          });
          response.end(String(error));
        });
        if (bodyless) upstream.end();
        else request.pipe(upstream);
      };
      send(false);
      // Nothing to read from a request without a body but its end.
      if (bodyless) request.resume();
      // A client that leaves takes its request upstream with it.
      response.once('close', () => {
        clearTimeout(timer);
        if (!response.writableFinished) upstream.destroy();
      });
    },
    close() {
      plain.destroy();
      secure.destroy();
    },
  };
}

/** The 504 head-route.ts's answerLate writes, for an upstream that has not begun to answer. */
function late(response: ServerResponse, ms: number): void {
  if (response.headersSent || response.writableEnded) return;
  response.writeHead(504, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  response.end(`the upstream server did not answer within ${ms} ms\n`, 'utf8');
}
