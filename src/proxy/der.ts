// The few pieces of DER (ITU-T X.690) that a certificate is made of, to write the proxy's own leaf
// certificates with node:crypto alone (no dependency of ours does X.509; mockttp's generator names only
// DNS hosts). Each function answers one encoded element; nothing here reads untrusted input except
// `children`, which reads only our own CA certificate.

/** One element: its tag, its length (short or long form), its content. */
export function element(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

export const sequence = (...parts: Buffer[]) => element(0x30, Buffer.concat(parts));
export const set = (...parts: Buffer[]) => element(0x31, Buffer.concat(parts));
export const octets = (content: Buffer) => element(0x04, content);
export const utf8 = (text: string) => element(0x0c, Buffer.from(text, 'utf8'));
export const TRUE = Buffer.from([0x01, 0x01, 0xff]);
export const NULL = Buffer.from([0x05, 0x00]);
/** A context-specific tag [n], constructed (EXPLICIT wrapping) or primitive (IMPLICIT). */
export const tagged = (n: number, content: Buffer, constructed: boolean) =>
  element((constructed ? 0xa0 : 0x80) | n, content);
/** A BIT STRING: the bytes, of which the last `unused` bits are not part of it. */
export const bits = (content: Buffer, unused = 0) =>
  element(0x03, Buffer.concat([Buffer.from([unused]), content]));

/** An INTEGER from unsigned big-endian bytes (a leading zero is added when the top bit is set). */
export function integer(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const trimmed = value.subarray(start);
  return element(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let rest7 = Math.floor(arc / 128); rest7 > 0; rest7 = Math.floor(rest7 / 128))
      groups.unshift((rest7 & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return element(0x06, Buffer.from(bytes));
}

/** UTCTime up to 2049, GeneralizedTime after (RFC 5280 §4.1.2.5), to the second. */
export function time(date: Date): Buffer {
  const text = date
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const year = date.getUTCFullYear();
  return year < 2050 ? element(0x17, Buffer.from(text.slice(2), 'ascii')) : element(0x18, Buffer.from(text));
}

/** The elements inside a constructed element, each whole (header and content). */
export function children(der: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const { start, end } = header(der, 0);
  for (let at = start; at < end; ) {
    const child = header(der, at);
    out.push(der.subarray(at, child.end));
    at = child.end;
  }
  return out;
}

/** What an element holds, without its tag and length. */
export function content(der: Buffer): Buffer {
  const { start, end } = header(der, 0);
  return der.subarray(start, end);
}

function header(der: Buffer, at: number): { start: number; end: number } {
  const first = der[at + 1];
  if (first === undefined) throw new Error('truncated DER');
  let length = first;
  let start = at + 2;
  if (first >= 0x80) {
    const count = first & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[at + 2 + i] ?? 0);
    start += count;
  }
  if (start + length > der.length) throw new Error('truncated DER');
  return { start, end: start + length };
}
