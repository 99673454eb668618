// HTTPS tunnels to IP addresses: which CONNECT targets are addresses, which requests need their URL
// given back for mockttp to name an IPv6 upstream, the bounded store of certificates, and the mockttp
// insides src/proxy/ip-tunnels.ts relies on, checked against the installed mockttp: a TLS client in a
// tunnel to 127.0.0.1 gets a certificate naming 127.0.0.1 from a bare mockttp with the routing on.
import { once } from 'node:events';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { connect } from 'node:tls';
import { generateCACertificate, getLocal } from 'mockttp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  interceptIpTunnels,
  Kept,
  mockttpTlsServer,
  needsUrlForUpstreamName,
  tunnelAddress,
} from '../../src/proxy/ip-tunnels.js';

describe('CONNECT targets that are addresses', () => {
  it.each([
    ['127.0.0.1:443', '127.0.0.1'],
    ['10.0.0.1', '10.0.0.1'],
    ['[::1]:8443', '::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[::ffff:127.0.0.1]:443', '::ffff:127.0.0.1'],
  ])('%s names the address %s', (target, address) => {
    expect(tunnelAddress(target)).toBe(address);
  });

  it.each([
    'example.com:443',
    'localhost:443',
    '[::1',
    '::1:443',
    '::1',
    '[fe80::1%eth0]:443',
    '[fe80::1%25eth0]:443',
    '999.1.1.1:443',
    '1.2.3.4.5:443',
    '[]:443',
    '[127.0.0.1]:443',
    '127.0.0.1:443:1',
    '127.0.0.1:abc',
    `[${'1:'.repeat(200)}1]:443`,
    '',
    undefined,
    443,
    { host: '127.0.0.1' },
  ])('%j names none (mockttp handles the tunnel as before)', (target) => {
    expect(tunnelAddress(target)).toBeUndefined();
  });
});

describe('the upstream name of HTTPS to an IPv6 address', () => {
  const at = (url: string, hostname: string, port: number) => ({ url, destination: { hostname, port } });
  it.each([
    [at('https://[::1]:8443/x', '::1', 8443), true],
    [at('https://[::1]/x', '::1', 443), true],
    [at('https://[2001:db8::1]:8443/', '2001:db8:0::1', 8443), true],
    // Not an IPv6 upstream, or not HTTPS: mockttp names it right already.
    [at('https://127.0.0.1:8443/x', '127.0.0.1', 8443), false],
    [at('https://shop.example.com/x', 'shop.example.com', 443), false],
    [at('http://[::1]:8080/x', '::1', 8080), false],
    // A URL (from the Host header) that is not where the tunnel goes: the tunnel's upstream stays.
    [at('https://[::2]:8443/x', '::1', 8443), false],
    [at('https://[::1]:9443/x', '::1', 8443), false],
    [at('https://shop.example.com:8443/x', '::1', 8443), false],
    [at('not a url', '::1', 443), false],
  ])('%j: %s', (request, expected) => {
    expect(needsUrlForUpstreamName(request)).toBe(expected);
  });
});

describe('kept certificates', () => {
  const later = (ms: number) => new Date(Date.now() + ms);

  it('makes one per key, also for callers that come while it is being made', async () => {
    let made = 0;
    const kept = new Kept(async (key) => ({ value: `${key}#${++made}`, expiresAt: later(86_400_000) }));
    const [a, b] = await Promise.all([kept.get('a'), kept.get('a')]);
    expect([a, b, await kept.get('a')]).toEqual(['a#1', 'a#1', 'a#1']);
  });

  it('makes a new one when the kept one is within an hour of expiring, and after a failure', async () => {
    let made = 0;
    let fail = true;
    const kept = new Kept(async () => {
      made++;
      if (fail) throw new Error('no');
      return { value: made, expiresAt: later(30 * 60_000) };
    });
    await expect(kept.get('a')).rejects.toThrow('no');
    fail = false;
    expect(await kept.get('a')).toBe(2);
    expect(await kept.get('a')).toBe(3);
  });

  it('keeps at most its limit, the least recently used going first', async () => {
    const made: string[] = [];
    const kept = new Kept(async (key) => {
      made.push(key);
      return { value: key, expiresAt: later(86_400_000) };
    }, 3);
    for (const key of ['a', 'b', 'c', 'a', 'd']) await kept.get(key);
    expect(kept.size).toBe(3);
    await kept.get('a'); // kept: used after b
    await kept.get('b'); // made again
    expect(made).toEqual(['a', 'b', 'c', 'd', 'b']);
  });
});

describe("mockttp's insides, as installed", () => {
  let ca: { key: string; cert: string };
  const server = getLocal({ http2: false });
  let https: ReturnType<typeof getLocal>;
  const logged: string[] = [];

  beforeAll(async () => {
    ca = await generateCACertificate();
    https = getLocal({ https: ca, http2: false });
    await https.start();
    await server.start();
    interceptIpTunnels(https, ca, (line) => logged.push(line));
  });
  afterAll(async () => {
    await https.stop();
    await server.stop();
  });

  it('an HTTPS mockttp has the TLS server, protocol choice and tunnel symbol this proxy relies on', () => {
    expect(() => mockttpTlsServer(https)).not.toThrow();
  });

  it('a mockttp without HTTPS is refused with a message that names the file to look at', () => {
    expect(() => mockttpTlsServer(server)).toThrow(/src\/proxy\/ip-tunnels\.ts/);
  });

  it.each(['127.0.0.1', '::1'])(
    'a TLS client tunnelled to %s gets a certificate naming the address, from the CA it trusts alone',
    async (address) => {
      const target = address.includes(':') ? `[${address}]:9` : `${address}:9`;
      const connectRequest = request({
        host: '127.0.0.1',
        port: https.port,
        method: 'CONNECT',
        path: target,
      });
      connectRequest.end();
      const [answer, socket] = (await once(connectRequest, 'connect')) as [{ statusCode: number }, Socket];
      expect(answer.statusCode).toBe(200);
      const client = connect({ socket, host: address, ca: ca.cert });
      await once(client, 'secureConnect');
      expect(client.authorized).toBe(true);
      expect(client.getPeerCertificate().subjectaltname).toBe(
        address === '::1' ? 'IP Address:0:0:0:0:0:0:0:1' : `IP Address:${address}`,
      );
      client.destroy();
      expect(logged).toEqual([]);
    },
  );
});
