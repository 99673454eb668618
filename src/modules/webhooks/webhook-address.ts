// Where a webhook may send: an http(s) URL whose host resolves to public addresses only, unless the
// operator allows inner ones (WEBHOOK_ALLOW_PRIVATE). Checked when a webhook is made or changed, and
// again at every send, on the address the send then connects to (webhook-sender.ts): a name that
// resolved to a public address when checked and to 127.0.0.1 a second later (DNS rebinding) reaches
// nothing inside, because the connection goes to the address that was checked, not to a new lookup.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses no webhook reaches without WEBHOOK_ALLOW_PRIVATE: loopback, private, link-local and the like. */
const INNER = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", the unspecified address among them
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  INNER.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: an IPv4 address behind a translator
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some)
  ['ff00::', 8], // multicast
] as const)
  INNER.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` or `::ffff:7f00:1`) carries. */
function mappedIpv4(address: string): string | undefined {
  const m = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!m) return undefined;
  const rest = m[1] as string;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return undefined;
  const hi = Number.parseInt(hex[1] as string, 16);
  const lo = Number.parseInt(hex[2] as string, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked as the IPv4 address they carry (below): a
// ::ffff:0:0/96 rule here would match every IPv4 address, since BlockList checks IPv4 as mapped too.

/** Whether `address` (an IP literal) is one no webhook reaches without the operator's leave. */
export function isInnerAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INNER.check(address, 'ipv4');
  if (family !== 6) return true; // not an address: never connected to
  const v4 = mappedIpv4(address);
  if (v4 !== undefined && INNER.check(v4, 'ipv4')) return true;
  return INNER.check(address, 'ipv6');
}

/** Why a URL is refused as a webhook's, in words for a detail; undefined when its form is fine. */
export function urlFormProblem(raw: string): string | undefined {
  if (!URL.canParse(raw)) return 'must be an absolute http or https URL';
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '')
    return 'must not hold a user or password (the signature says the delivery is ours)';
  if (url.hash !== '') return 'must not hold a fragment';
  return undefined;
}

/** The address a send connects to, checked. */
export interface Target {
  url: URL;
  /** The host's name as the URL gives it, for Host and TLS's server name. */
  hostname: string;
  address: string;
  family: 4 | 6;
}

export class AddressRefused extends Error {}

/** The hostname without IPv6 brackets. */
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The URL's host resolved, and the address to connect to: the first one, when every address the name
 * has is allowed (a name with one inner address among public ones is refused: which one a client
 * would pick is up to it). Throws AddressRefused saying why.
 */
export async function resolveTarget(
  raw: string,
  allowPrivate: boolean,
  resolve: (host: string) => Promise<{ address: string; family: number }[]> = (host) =>
    lookup(host, { all: true, verbatim: true }),
): Promise<Target> {
  const problem = urlFormProblem(raw);
  if (problem) throw new AddressRefused(problem);
  const url = new URL(raw);
  const host = bare(url.hostname);
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new AddressRefused(
        `its host ${host} could not be resolved (${(error as { code?: string }).code ?? 'no address'})`,
      );
    }
  }
  if (addresses.length === 0) throw new AddressRefused(`its host ${host} has no address`);
  if (!allowPrivate) {
    const inner = addresses.find((a) => isInnerAddress(a.address));
    if (inner)
      throw new AddressRefused(
        `its host ${host} resolves to ${inner.address}, a loopback, private, link-local or other inner ` +
          'address: refused unless the operator sets WEBHOOK_ALLOW_PRIVATE=true',
      );
  }
  const first = addresses[0] as { address: string; family: number };
  return { url, hostname: host, address: first.address, family: first.family === 6 ? 6 : 4 };
}
