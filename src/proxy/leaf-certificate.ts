// Certificates the proxy signs for hosts that mockttp's own generator cannot name: mockttp puts every
// host in a dNSName, and a client that reached `https://127.0.0.1/` or `https://[::1]/` checks the
// address against iPAddress names only (RFC 5280 §4.2.1.6; Node's tls, curl and Chromium all do).
// Written with node:crypto and the DER pieces in der.ts, signed by the proxy's CA.
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';
import {
  bits,
  children,
  content,
  integer,
  NULL,
  octets,
  oid,
  sequence,
  set,
  TRUE,
  tagged,
  time,
  utf8,
} from './der.js';

export interface IssuedCertificate {
  key: string;
  cert: string;
  expiresAt: Date;
}

export interface Issuer {
  issue(host: string): Promise<IssuedCertificate>;
}

/** As mockttp's leaves: under the 47 days browsers will require of public certificates. */
const LIFETIME_DAYS = 45;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Signs leaf certificates with the CA (PEM key and certificate), all for one key of the proxy's own. */
export function createIssuer(ca: { key: string; cert: string }): Issuer {
  const caKey = createPrivateKey(ca.key);
  const caCert = new X509Certificate(ca.cert);
  const signature = signatureAlgorithm(caKey);
  const tbs = children(children(caCert.raw)[0] as Buffer);
  // The issuer of each leaf is the CA's subject, byte for byte (version [0] comes first when present).
  const offset = tbs[0]?.[0] === 0xa0 ? 1 : 0;
  const caSubject = tbs[offset + 4] as Buffer;
  const caKeyId = subjectKeyIdentifier(tbs, tbs[offset + 5] as Buffer);
  const caNotAfter = new Date(caCert.validTo);
  // One key for every leaf, made once (as mockttp does): P-256, which every TLS client takes.
  const leaf = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const leafKey = leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const leafSpki = leaf.publicKey.export({ type: 'spki', format: 'der' });

  return {
    async issue(host) {
      const name = subjectAltName(host);
      if (!name) throw new Error('not an IP address or host name a certificate can carry');
      const now = Date.now();
      // To the second, as the certificate says it.
      const notAfter = new Date(
        Math.floor(Math.min(now + LIFETIME_DAYS * DAY_MS, caNotAfter.getTime()) / 1000) * 1000,
      );
      // A common name only where it fits (at most 64 characters); without one, the names are critical.
      const common = isIP(host) ? host : host.replace(/\.$/, '').toLowerCase();
      const subject =
        common.length <= 64 ? sequence(set(sequence(oid('2.5.4.3'), utf8(common)))) : sequence();
      const serial = randomBytes(16);
      serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40; // positive, and 16 bytes long
      const extensions = [
        extension('2.5.29.19', true, sequence()), // basic constraints: not a CA
        extension('2.5.29.15', true, bits(Buffer.from([0x80]), 7)), // key usage: digitalSignature
        extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // extended: serverAuth
        extension('2.5.29.17', common.length > 64, sequence(name)),
        // Which key of the CA signed it (RFC 5280 §4.2.1.1 requires it of every certificate but a root).
        extension('2.5.29.35', false, sequence(tagged(0, caKeyId, false))),
      ];
      const certificate = sequence(
        tagged(0, integer(Buffer.from([2])), true), // v3
        integer(serial),
        signature.identifier,
        caSubject,
        sequence(time(new Date(now - DAY_MS)), time(notAfter)), // a day back, for clocks that disagree
        subject,
        leafSpki,
        tagged(3, sequence(...extensions), true),
      );
      const signed = await new Promise<Buffer>((resolve, reject) =>
        sign('sha256', certificate, caKey, (error, value) => (error ? reject(error) : resolve(value))),
      );
      const der = sequence(certificate, signature.identifier, bits(signed));
      return { key: leafKey, cert: pem(der), expiresAt: notAfter };
    },
  };
}

/** The subject alternative name for `host`: iPAddress for an address, dNSName for a host name. */
export function subjectAltName(host: string): Buffer | undefined {
  if (host.includes('%')) return undefined; // a zone (fe80::1%eth0) names no address a certificate can hold
  const family = isIP(host);
  if (family === 4) return tagged(7, Buffer.from(host.split('.').map(Number)), false);
  if (family === 6) return tagged(7, ipv6Bytes(host), false);
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  const label = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
  if (name.length === 0 || name.length > 253 || !name.split('.').every((part) => label.test(part)))
    return undefined;
  return tagged(2, Buffer.from(name.toLowerCase(), 'ascii'), false);
}

/** The 16 bytes of an IPv6 address that `isIP` accepted (`::` and a dotted IPv4 tail included). */
export function ipv6Bytes(address: string): Buffer {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  all.forEach((group, i) => {
    out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  });
  return out;
}

/** The CA's subject key identifier, or (a CA without one) the SHA-1 of its key, as RFC 5280 suggests. */
function subjectKeyIdentifier(tbs: Buffer[], spki: Buffer): Buffer {
  const wanted = oid('2.5.29.14');
  const extensions = tbs.find((part) => part[0] === 0xa3);
  for (const ext of extensions ? children(children(extensions)[0] as Buffer) : []) {
    const [id, ...rest] = children(ext);
    const value = rest.at(-1);
    if (id?.equals(wanted) && value) return content(content(value));
  }
  return createHash('sha1')
    .update(content(children(spki)[1] as Buffer).subarray(1))
    .digest();
}

function signatureAlgorithm(key: KeyObject): { identifier: Buffer } {
  if (key.asymmetricKeyType === 'rsa') return { identifier: sequence(oid('1.2.840.113549.1.1.11'), NULL) };
  if (key.asymmetricKeyType === 'ec') return { identifier: sequence(oid('1.2.840.10045.4.3.2')) };
  throw new Error(`the proxy's CA key is ${key.asymmetricKeyType}: only RSA and EC keys can sign here`);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [TRUE] : []), octets(value));
}

function pem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
