// HTTPS to an IP address through the proxy (https://127.0.0.1:8443/, https://[::1]/). A client sends no
// server name for an address (RFC 6066 allows none), so mockttp would answer with its default
// certificate, made for "localhost", which every client refuses for an address. A tunnel (CONNECT) to
// an address is handed instead to a TLS server of its own, whose certificate names that address as an
// iPAddress (leaf-certificate.ts). Once the handshake is done the connection goes back to mockttp's TLS
// server as if that server had made it, and all that follows (HTTP, the rules, the upstream) is
// mockttp's as for any host. A client that does send a name in such a tunnel gets a certificate for it.
//
// This file is the one place that relies on mockttp's insides (4.4.2, pinned in package.json): its TLS
// server, reached as httpolyglot's `_tlsServer`, with the function it chooses a protocol with, and the
// symbol under which mockttp keeps a tunnel's CONNECT target. They are checked at start-up, which fails
// loudly if an upgrade moved them (test/unit/ip-tunnels.test.ts runs that check on the installed one).
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { createSecureContext, createServer, type SecureContext, Server as TlsServer } from 'node:tls';
import type { Mockttp } from 'mockttp';
import { LastTunnelAddress } from 'mockttp/dist/util/socket-extensions';
import { createIssuer, subjectAltName } from './leaf-certificate.js';

/** Certificates kept, per address and per name asked for in such a tunnel; the least used goes first. */
const KEPT = 500;
/** A certificate is replaced this long before it expires. */
const RENEW_MS = 60 * 60 * 1000;

/** The address a CONNECT target (`127.0.0.1:443`, `[::1]:443`) names, if it names one. */
export function tunnelAddress(target: unknown): string | undefined {
  if (typeof target !== 'string' || target.length > 100) return undefined;
  // IPv6 in brackets, IPv4 bare (RFC 3986's authority), each with a port or without.
  const v6 = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(target)?.[1];
  const v4 = /^([^:[\]]*)(?::\d{1,5})?$/.exec(target)?.[1];
  // A zone (fe80::1%eth0) is no address a certificate can name: such a tunnel is left to mockttp.
  if (v6 !== undefined) return isIP(v6) === 6 && !v6.includes('%') ? v6 : undefined;
  return v4 !== undefined && isIP(v4) === 4 ? v4 : undefined;
}

type AlpnCallback = (hello: { servername: string; protocols: string[] }) => string | undefined;

/** mockttp's TLS server (and its choice of protocol), or an error saying this file needs a look. */
export function mockttpTlsServer(server: Mockttp): TlsServer & { ALPNCallback: AlpnCallback } {
  const tls = (server as unknown as { server?: { _tlsServer?: unknown } }).server?._tlsServer;
  if (
    !(tls instanceof TlsServer) ||
    typeof (tls as { ALPNCallback?: unknown }).ALPNCallback !== 'function' ||
    typeof LastTunnelAddress !== 'symbol'
  )
    throw new Error(
      "mockttp's TLS server or tunnel target is not where src/proxy/ip-tunnels.ts expects it (after an upgrade of mockttp?)",
    );
  return tls as TlsServer & { ALPNCallback: AlpnCallback };
}

/** Routes TLS in tunnels to IP addresses through servers whose certificates name the address. */
export function interceptIpTunnels(
  server: Mockttp,
  ca: { key: string; cert: string },
  log: (message: string) => void,
): void {
  const tls = mockttpTlsServer(server);
  const issuer = createIssuer(ca);
  // The CA goes with each certificate, as mockttp's own do: a client that trusts the CA by its key's
  // hash (Chromium's --ignore-certificate-errors-spki-list) finds it in the chain it is sent.
  const chain = (leaf: string) => `${leaf}${ca.cert}`;

  // A name sent in a tunnel to an address: its certificate. An unusable name gets none (undefined):
  // the address's own certificate answers, and the client refuses it by name as it should.
  const contexts = new Kept(async (name: string) => {
    const issued = await issuer.issue(name);
    return {
      value: createSecureContext({ key: issued.key, cert: issued.cert }),
      expiresAt: issued.expiresAt,
    };
  });
  const servers = new Kept(async (address: string) => {
    const issued = await issuer.issue(address);
    const own = createServer({
      key: issued.key,
      cert: chain(issued.cert),
      // The protocols mockttp's own server offers (HTTP/1.1 here), chosen the same way.
      ALPNCallback: tls.ALPNCallback,
      SNICallback: (name: string, done: (error: Error | null, context?: SecureContext) => void) => {
        if (!subjectAltName(name)) return done(null);
        contexts.get(name).then(
          (context) => done(null, context),
          () => done(null),
        );
      },
    });
    // Back to mockttp, as its own server would have told it: the connection is ready, or it failed.
    own.on('secureConnection', (socket) => tls.emit('secureConnection', socket));
    own.on('tlsClientError', (error, socket) => tls.emit('tlsClientError', error, socket));
    return { value: own, expiresAt: issued.expiresAt };
  });

  const emit = tls.emit;
  tls.emit = function emitRouted(this: TlsServer, event: string | symbol, ...args: unknown[]): boolean {
    const socket = args[0] as (Socket & { [LastTunnelAddress]?: unknown }) | undefined;
    const address = event === 'connection' ? tunnelAddress(socket?.[LastTunnelAddress]) : undefined;
    if (!socket || !address) return (emit as (...all: unknown[]) => boolean).call(this, event, ...args);
    // A client that leaves while its certificate is made is no error of the proxy's.
    socket.on('error', () => {});
    servers.get(address).then(
      (own) => {
        if (!socket.destroyed) own.emit('connection', socket);
      },
      (error: Error) => {
        log(`HTTPS to ${address} failed in the proxy: ${error.message}`);
        socket.destroy();
      },
    );
    return true;
  } as TlsServer['emit'];
}

/** Values made once per key and kept (a bounded number, least recently used out first) until renewal. */
export class Kept<T> {
  private readonly entries = new Map<string, { ready: Promise<T>; renewAt: number }>();

  constructor(
    private readonly make: (key: string) => Promise<{ value: T; expiresAt: Date }>,
    private readonly limit = KEPT,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Promise<T> {
    let entry = this.entries.get(key);
    this.entries.delete(key);
    if (!entry || entry.renewAt <= Date.now()) {
      const made = this.make(key);
      const fresh = { ready: made.then((result) => result.value), renewAt: Number.POSITIVE_INFINITY };
      made.then(
        (result) => {
          fresh.renewAt = result.expiresAt.getTime() - RENEW_MS;
        },
        () => {
          if (this.entries.get(key) === fresh) this.entries.delete(key); // tried again next time
        },
      );
      entry = fresh;
    }
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
    return entry.ready;
  }
}

/**
 * Whether mockttp would check an HTTPS upstream's certificate against a bracketed address. For an
 * address it takes the upstream's TLS name from the Host header, brackets and all (`[::1]`), which no
 * certificate matches; given the request's URL back (beforeRequest's `url`), it reads the name from the
 * URL, without them. Only when that URL names the very address and port mockttp connects to, so that
 * the upstream stays the one the client's tunnel asked for.
 */
export function needsUrlForUpstreamName(request: {
  url: string;
  destination: { hostname: string; port: number };
}): boolean {
  const { hostname, port } = request.destination;
  if (isIP(hostname) !== 6) return false;
  try {
    const url = new URL(request.url);
    const address = new URL(`http://[${hostname}]/`).hostname; // as a URL writes it: [::1]
    return url.protocol === 'https:' && url.hostname === address && Number(url.port || 443) === port;
  } catch {
    return false;
  }
}
