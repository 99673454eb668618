// The certificates the proxy signs itself for hosts reached by address: what a client checks (the
// subject alternative name, the signature, the chain to the CA, the dates), read back by Node's own
// X.509 parser and proved in a real TLS handshake with a client that trusts the CA alone.
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, isIP } from 'node:net';
import { connect, createServer } from 'node:tls';
import { generateCACertificate } from 'mockttp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIssuer, type Issuer, ipv6Bytes, subjectAltName } from '../../src/proxy/leaf-certificate.js';

let ca: { key: string; cert: string };
let issuer: Issuer;

beforeAll(async () => {
  ca = await generateCACertificate({ subject: { commonName: 'Leaf test CA' } });
  issuer = createIssuer(ca);
});

describe('leaf certificates', () => {
  it.each([
    ['127.0.0.1', 'IP Address:127.0.0.1'],
    ['10.1.2.3', 'IP Address:10.1.2.3'],
    ['::1', 'IP Address:0:0:0:0:0:0:0:1'],
    ['2001:db8::8:800:200c:417a', 'IP Address:2001:DB8:0:0:8:800:200C:417A'],
    ['fe80::', 'IP Address:FE80:0:0:0:0:0:0:0'],
    ['::ffff:192.0.2.1', 'IP Address:0:0:0:0:0:FFFF:C000:201'],
    ['shop.example.com', 'DNS:shop.example.com'],
    ['Shop.Example.COM.', 'DNS:shop.example.com'],
  ])('names %s as %s, signed by the CA, valid now and for 45 days at most', async (host, san) => {
    const issued = await issuer.issue(host);
    const cert = new X509Certificate(issued.cert);
    const caCert = new X509Certificate(ca.cert);
    expect(cert.subjectAltName).toBe(san);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    const name = host.replace(/\.$/, '');
    if (isIP(host)) expect(cert.checkIP(host)).toBe(host);
    else expect(cert.checkHost(name)?.toLowerCase()).toBe(name.toLowerCase());
    const now = Date.now();
    expect(new Date(cert.validFrom).getTime()).toBeLessThan(now);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(now);
    expect(new Date(cert.validTo).getTime() - now).toBeLessThanOrEqual(45 * 24 * 3600 * 1000);
    expect(issued.expiresAt.getTime()).toBe(new Date(cert.validTo).getTime());
  });

  it('an address certificate does not cover another address, nor the address as a DNS name', async () => {
    const cert = new X509Certificate((await issuer.issue('127.0.0.1')).cert);
    expect(cert.checkIP('127.0.0.2')).toBeUndefined();
    expect(cert.checkIP('::1')).toBeUndefined();
    expect(cert.subjectAltName).not.toMatch(/DNS:/);
  });

  it('a host name longer than a common name may be has no common name, and its names are critical', async () => {
    const host = `${'a'.repeat(63)}.${'b'.repeat(63)}.example`;
    const cert = new X509Certificate((await issuer.issue(host)).cert);
    expect(cert.subject ?? '').toBe('');
    expect(cert.checkHost(host)).toBe(host);
  });

  it.each([
    ['a zone', 'fe80::1%eth0'],
    ['an underscore', 'my_host.example.com'],
    ['a wildcard', '*.example.com'],
    ['an empty label', 'a..example.com'],
    ['a label of 64 characters', `${'a'.repeat(64)}.example.com`],
    ['a leading hyphen', '-a.example.com'],
    ['nothing', ''],
    ['bytes outside ASCII', 'münchen.de'],
    ['a space', 'a b.example.com'],
    ['a name of 254 characters', `${'a.'.repeat(126)}ab`],
  ])('refuses a host with %s', async (_what, host) => {
    expect(subjectAltName(host)).toBeUndefined();
    await expect(issuer.issue(host)).rejects.toThrow(/not an IP address or host name/);
  });

  it.each([
    ['::', '00000000000000000000000000000000'],
    ['::1', '00000000000000000000000000000001'],
    ['1::', '00010000000000000000000000000000'],
    ['1:2:3:4:5:6:7:8', '00010002000300040005000600070008'],
    ['1:2::7:8', '00010002000000000000000000070008'],
    ['::ffff:1.2.3.4', '00000000000000000000ffff01020304'],
    ['64:ff9b::192.0.2.33', '0064ff9b0000000000000000c0000221'],
  ])('reads the IPv6 address %s as its 16 bytes', (address, hex) => {
    expect(ipv6Bytes(address).toString('hex')).toBe(hex);
  });

  it.each(['127.0.0.1', '::1'])(
    'a TLS client connecting to %s, trusting only the CA, takes the certificate',
    async (host) => {
      const issued = await issuer.issue(host);
      const server = createServer({ key: issued.key, cert: issued.cert }, (socket) => socket.end('ok'));
      server.listen(0, host);
      await once(server, 'listening');
      try {
        const client = connect({ host, port: (server.address() as AddressInfo).port, ca: ca.cert });
        await once(client, 'secureConnect');
        expect(client.authorized).toBe(true);
        client.destroy();
        // The same certificate for another address is refused by the same client.
        const other = await issuer.issue(host === '::1' ? '::2' : '127.0.0.2');
        server.setSecureContext({ key: other.key, cert: other.cert });
        const refused = connect({ host, port: (server.address() as AddressInfo).port, ca: ca.cert });
        const [error] = await once(refused, 'error');
        expect((error as NodeJS.ErrnoException).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      } finally {
        server.close();
      }
    },
  );
});
